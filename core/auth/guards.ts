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

/**
 * Which jobs a caller sees: its account's, and for a scoped token only those of
 * the tools it was minted for (`tools` set); a personal key sees them all.
 * Status, results, exports, artifacts, cancel, the list, the WebSocket and the
 * agent's job tools all go through this one rule (JobService.find and .list).
 */
export interface JobVisibility { accountId: string, tools?: readonly string[] }

export function jobVisibility (caller: AccountCaller): JobVisibility {
  return caller.principal.kind === 'scoped'
    ? { accountId: caller.account.id, tools: caller.principal.tools }
    : { accountId: caller.account.id }
}

/** False for another account's job and for a job of a tool outside a scoped token's list: both read as unknown (404). */
export function maySeeJob (caller: AccountCaller, job: { accountId: string, tool: string }): boolean {
  const visible = jobVisibility(caller)
  return job.accountId === visible.accountId && (visible.tools === undefined || visible.tools.includes(job.tool))
}

export function requireAdmin (p: Principal, adminConfigured: boolean): void {
  if (!adminConfigured) throw forbidden('Admin endpoints are disabled on this server (ADMIN_API_KEY is not set).')
  if (p.kind === 'none' || p.kind === 'bad') throw unauthorized()
  if (p.kind !== 'admin') throw forbidden('This endpoint needs the admin master key.')
}
