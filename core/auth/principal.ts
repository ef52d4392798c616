// Who is calling: resolved once per request from `x-api-key` (or a Bearer token
// on the agent endpoint). Lookups go by SHA-256 digest; configured secrets are
// compared in constant time.
import type { Clock } from '../clock.ts'
import { safeEqual, sha256Hex } from '../crypto.ts'
import type { AppConfig } from '../config.ts'
import type { HotReads } from '../db/hot-reads.ts'
import { effectiveTier, type TierName } from '../quotas/tiers.ts'

const ACCOUNT_COLUMNS = 'a.id, a.email, a.name, a.tier, a.pro_eligible, a.pro_claimed_at, a.pro_expires_at, a.created_at'
const PERSONAL_KEY_SQL = `SELECT k.id AS key_id, k.revoked_at AS key_revoked_at, ${ACCOUNT_COLUMNS} FROM personal_keys k JOIN accounts a ON a.id = k.account_id WHERE k.digest = ?`
const SCOPED_TOKEN_SQL = `SELECT k.id AS key_id, k.revoked_at AS key_revoked_at, k.expires_at AS key_expires_at, k.tools AS key_tools, k.last_used_at AS key_last_used_at, ${ACCOUNT_COLUMNS} FROM scoped_tokens k JOIN accounts a ON a.id = k.account_id WHERE k.digest = ?`

interface KeyRow {
  key_id: string
  key_revoked_at: Date | string | null
  id: string
  email: string
  name: string
  tier: string
  pro_eligible: boolean | number | bigint
  pro_claimed_at: Date | string | null
  pro_expires_at: Date | string | null
  created_at: Date | string
}

// PostgreSQL rows come back typed (Date, boolean); SQLite's as ISO text and 0/1.
const toDate = (v: Date | string | number | null): Date | null => (v === null ? null : v instanceof Date ? v : new Date(v))

function accountFrom (r: KeyRow): AccountRecord {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    tier: r.tier,
    proEligible: r.pro_eligible === true || Number(r.pro_eligible) === 1,
    proClaimedAt: toDate(r.pro_claimed_at),
    proExpiresAt: toDate(r.pro_expires_at),
    createdAt: toDate(r.created_at)!,
  }
}

export interface AccountRecord {
  id: string
  email: string
  name: string
  tier: string
  proEligible: boolean
  proClaimedAt: Date | null
  proExpiresAt: Date | null
  createdAt: Date
}

export type Principal =
  | { kind: 'none' }
  | { kind: 'bad' }
  | { kind: 'admin' }
  | { kind: 'guest', tier: 'guest' }
  | { kind: 'personal', account: AccountRecord, tier: TierName, keyId: string }
  | { kind: 'scoped', account: AccountRecord, tier: TierName, tokenId: string, tools: string[] }

export const NO_PRINCIPAL: Principal = { kind: 'none' }

export class KeyResolver {
  private readonly publicDigests: string[]
  /**
   * The account of each key row, converted once per row: `selectUnchanged`
   * hands every request the same row object until the next commit, so the
   * record built from it (three date parses) is kept beside the row and goes
   * with it. Requests only read it (frozen: a change would fail loudly).
   */
  private readonly accountsOfRows = new WeakMap<KeyRow, AccountRecord>()

  constructor (
    private readonly reads: HotReads,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    /** Records a scoped token's use (shown by GET /api/auth/tokens). */
    private readonly touchToken: (tokenId: string, at: Date) => Promise<unknown> = async () => {},
  ) {
    this.publicDigests = config.publicTokens.map(sha256Hex)
  }

  async resolve (secret: string | undefined): Promise<Principal> {
    if (secret === undefined || secret === '') return NO_PRINCIPAL
    if (secret.length > 512) return { kind: 'bad' }
    if (this.config.adminApiKey && safeEqual(secret, this.config.adminApiKey)) return { kind: 'admin' }
    const digest = sha256Hex(secret)
    if (secret.startsWith('pub-')) {
      // Every configured token is compared, so the time taken does not say which matched.
      let match = false
      for (const d of this.publicDigests) match = safeEqual(d, digest) || match
      return match ? { kind: 'guest', tier: 'guest' } : { kind: 'bad' }
    }
    const now = this.clock()
    // One joined query per request, answered from memory only while nothing was committed
    // since (HotReads.selectUnchanged): a rotated or revoked key fails on the next request.
    // Prisma's `include` costs a second round trip and several times the time (scripts/bench/README.md).
    if (secret.startsWith('sk-')) {
      const [key] = await this.reads.selectUnchanged<KeyRow>(PERSONAL_KEY_SQL, [digest])
      if (!key || key.key_revoked_at) return { kind: 'bad' }
      const account = this.accountOf(key)
      return { kind: 'personal', account, tier: effectiveTier(account, now), keyId: key.key_id }
    }
    if (secret.startsWith('scp-')) {
      const [token] = await this.reads.selectUnchanged<KeyRow & { key_expires_at: Date | string | null, key_tools: string, key_last_used_at: Date | string | null }>(SCOPED_TOKEN_SQL, [digest])
      if (!token || token.key_revoked_at) return { kind: 'bad' }
      const expires = toDate(token.key_expires_at)
      if (expires && expires.getTime() <= now.getTime()) return { kind: 'bad' }
      const account = this.accountOf(token)
      // At most one write a minute per token: last_used_at is for the owner's overview, not an audit log.
      const lastUsed = toDate(token.key_last_used_at)
      if (!lastUsed || now.getTime() - lastUsed.getTime() > 60_000) this.touchToken(token.key_id, now).catch(() => {})
      return { kind: 'scoped', account, tier: effectiveTier(account, now), tokenId: token.key_id, tools: JSON.parse(token.key_tools) as string[] }
    }
    return { kind: 'bad' }
  }

  private accountOf (row: KeyRow): AccountRecord {
    let account = this.accountsOfRows.get(row)
    if (!account) {
      account = Object.freeze(accountFrom(row))
      this.accountsOfRows.set(row, account)
    }
    return account
  }
}
