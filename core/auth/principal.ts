// Who is calling: resolved once per request from `x-api-key` (or a Bearer token
// on the agent endpoint). Lookups go by SHA-256 digest; configured secrets are
// compared in constant time.
import type { Clock } from '../clock.ts'
import { digestsEqual, sha256Hex } from '../crypto.ts'
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

type ScopedTokenRow = KeyRow & { key_expires_at: Date | string | null, key_tools: string, key_last_used_at: Date | string | null }

/** A personal key as the resolver keeps it: its row and its account, converted once (frozen: requests share it). */
interface ResolvedKey { keyId: string, revoked: boolean, account: AccountRecord }
interface ResolvedToken extends ResolvedKey { expiresAt: Date | null, lastUsedAt: Date | null, tools: readonly string[] }

const resolvedKey = (row: KeyRow): ResolvedKey =>
  Object.freeze({ keyId: row.key_id, revoked: Boolean(row.key_revoked_at), account: Object.freeze(accountFrom(row)) })
const personalKeyOf = ([row]: KeyRow[]): ResolvedKey | undefined => (row ? resolvedKey(row) : undefined)
const scopedTokenOf = ([row]: ScopedTokenRow[]): ResolvedToken | undefined => (row
  ? Object.freeze({ ...resolvedKey(row), expiresAt: toDate(row.key_expires_at), lastUsedAt: toDate(row.key_last_used_at), tools: Object.freeze(JSON.parse(row.key_tools) as string[]) })
  : undefined)

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
  private readonly adminDigest: string | null

  constructor (
    private readonly reads: HotReads,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    /** Records a scoped token's use (shown by GET /api/auth/tokens). */
    private readonly touchToken: (tokenId: string, at: Date) => Promise<unknown> = async () => {},
  ) {
    this.publicDigests = config.publicTokens.map(sha256Hex)
    this.adminDigest = config.adminApiKey ? sha256Hex(config.adminApiKey) : null
  }

  async resolve (secret: string | undefined): Promise<Principal> {
    if (secret === undefined || secret === '') return NO_PRINCIPAL
    if (secret.length > 512) return { kind: 'bad' }
    // One digest a request, compared with the configured secrets' digests in constant time.
    const digest = sha256Hex(secret)
    if (this.adminDigest !== null && digestsEqual(digest, this.adminDigest)) return { kind: 'admin' }
    if (secret.startsWith('pub-')) {
      // Every configured token is compared, so the time taken does not say which matched.
      let match = false
      for (const d of this.publicDigests) match = digestsEqual(d, digest) || match
      return match ? { kind: 'guest', tier: 'guest' } : { kind: 'bad' }
    }
    const now = this.clock()
    // One joined query per request, answered from memory only while nothing was committed
    // since (HotReads.selectUnchanged, which keeps the converted key): a rotated or revoked
    // key fails on the next request. Prisma's `include` costs a second round trip and
    // several times the time (scripts/bench/README.md).
    if (secret.startsWith('sk-')) {
      const key = await this.reads.selectUnchanged(PERSONAL_KEY_SQL, [digest], personalKeyOf)
      if (!key || key.revoked) return { kind: 'bad' }
      return { kind: 'personal', account: key.account, tier: effectiveTier(key.account, now), keyId: key.keyId }
    }
    if (secret.startsWith('scp-')) {
      const token = await this.reads.selectUnchanged(SCOPED_TOKEN_SQL, [digest], scopedTokenOf)
      if (!token || token.revoked) return { kind: 'bad' }
      if (token.expiresAt && token.expiresAt.getTime() <= now.getTime()) return { kind: 'bad' }
      // At most one write a minute per token: last_used_at is for the owner's overview, not an audit log.
      if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > 60_000) this.touchToken(token.keyId, now).catch(() => {})
      return { kind: 'scoped', account: token.account, tier: effectiveTier(token.account, now), tokenId: token.keyId, tools: [...token.tools] }
    }
    return { kind: 'bad' }
  }
}
