// What each class of endpoint lets through. Routes call one of these first;
// the table of key kinds against endpoint classes is in README.md (Authentication).
import { forbidden, unauthorized } from '../errors.ts'
import type { AccountRecord, Principal } from './principal.ts'
import type { TierName } from '../quotas/tiers.ts'

export interface AccountCaller {
  account: AccountRecord
  tier: TierName
  principal: Extract<Principal, { kind: 'personal' | 'scoped' }>
}

const SIGN_UP = 'A guest token cannot do this: sign up (POST /api/auth/signup) and use your personal sk- key.'

/** Read endpoints: any valid key, the guest token included. */
export function requireAnyKey (p: Principal): Exclude<Principal, { kind: 'none' | 'bad' }> {
  if (p.kind === 'none' || p.kind === 'bad') throw unauthorized()
  return p
}

/**
 * Endpoints that act for an account. `scoped` says whether a scoped token may
 * call it (tool runs and reads: yes; managing the account or tokens: no).
 */
export function requireAccount (p: Principal, options: { scoped: boolean }): AccountCaller {
  switch (p.kind) {
    case 'none':
    case 'bad':
      throw unauthorized()
    case 'guest':
      throw forbidden(SIGN_UP)
    case 'admin':
      throw forbidden('The admin key belongs to no account: use a personal sk- key here.')
    case 'scoped':
      if (!options.scoped) throw forbidden('A scoped token cannot manage the account or mint tokens: use the personal sk- key.')
      return { account: p.account, tier: p.tier, principal: p }
    case 'personal':
      return { account: p.account, tier: p.tier, principal: p }
  }
}

/** A scoped token may only start the tools it was minted for. */
export function requireToolAllowed (caller: AccountCaller, toolKey: string): void {
  if (caller.principal.kind === 'scoped' && !caller.principal.tools.includes(toolKey)) {
    throw forbidden(`This scoped token is not allowed to run the tool '${toolKey}'; it may run: ${caller.principal.tools.join(', ') || 'none'}.`)
  }
}

export function requireAdmin (p: Principal, adminConfigured: boolean): void {
  if (!adminConfigured) throw forbidden('Admin endpoints are disabled on this server (ADMIN_API_KEY is not set).')
  if (p.kind === 'none' || p.kind === 'bad') throw unauthorized()
  if (p.kind !== 'admin') throw forbidden('This endpoint needs the admin master key.')
}
