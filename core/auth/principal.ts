// Who is calling: resolved once per request from `x-api-key` (or a Bearer token
// on the agent endpoint). Lookups go by SHA-256 digest; configured secrets are
// compared in constant time.
import type { Clock } from '../clock.ts'
import { safeEqual, sha256Hex } from '../crypto.ts'
import type { AppConfig } from '../config.ts'
import type { Db } from '../db/database.ts'
import { effectiveTier, type TierName } from '../quotas/tiers.ts'

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

  constructor (private readonly db: Db, private readonly config: AppConfig, private readonly clock: Clock) {
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
    if (secret.startsWith('sk-')) {
      const key = await this.db.personalKey.findUnique({ where: { digest }, include: { account: true } })
      if (!key || key.revokedAt) return { kind: 'bad' }
      return { kind: 'personal', account: key.account, tier: effectiveTier(key.account, now), keyId: key.id }
    }
    if (secret.startsWith('scp-')) {
      const token = await this.db.scopedToken.findUnique({ where: { digest }, include: { account: true } })
      if (!token || token.revokedAt || (token.expiresAt && token.expiresAt.getTime() <= now.getTime())) return { kind: 'bad' }
      return { kind: 'scoped', account: token.account, tier: effectiveTier(token.account, now), tokenId: token.id, tools: JSON.parse(token.tools) as string[] }
    }
    return { kind: 'bad' }
  }
}
