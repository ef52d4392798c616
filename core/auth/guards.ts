// What each class of endpoint lets through. A route declares its class
// (`config.auth`, see RouteAuth in fastify-types.ts) and the auth hook enforces
// it with `authorizeRoute` before the body is read; handlers call
// `requireAccount` for the typed caller (and may refuse more, never less).
// The table of key kinds against endpoint classes is in README.md (Authentication).
import { AppError, forbidden, unauthorized } from '../errors.ts'
import { safeEqual } from '../crypto.ts'
import type { FastifyContextConfig } from 'fastify'
import type { AccountRecord, Principal } from './principal.ts'
import type { TierName } from '../quotas/tiers.ts'

export interface AccountCaller {
  account: AccountRecord
  tier: TierName
  principal: Extract<Principal, { kind: 'personal' | 'scoped' }>
}

const ADMIN_HAS_NO_ACCOUNT = 'The admin key belongs to no account: use a personal sk- key here.'
const SIGN_UP = 'A guest token cannot do this: sign up (POST /api/auth/signup) and use your personal sk- key.'

/** Read endpoints: any valid key, the guest token included. */
function requireAnyKey (p: Principal): Exclude<Principal, { kind: 'none' | 'bad' }> {
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
      throw forbidden(ADMIN_HAS_NO_ACCOUNT)
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

function requireAdmin (p: Principal, adminConfigured: boolean): void {
  if (!adminConfigured) throw forbidden('Admin endpoints are disabled on this server (ADMIN_API_KEY is not set).')
  if (p.kind === 'none' || p.kind === 'bad') throw unauthorized()
  if (p.kind !== 'admin') throw forbidden('This endpoint needs the admin master key.')
}

/** What the server knows that some classes need. */
export interface RouteAuthSettings {
  adminConfigured: boolean
  /** BLOG_API_KEY, for routes that accept X-Blog-Key. */
  blogApiKey: string | null
}

/**
 * Enforces a route's declared class (`config.auth`) for this caller: 401
 * `{detail}` without a valid key, 403 for a key the class does not admit.
 * `blogKey` is the X-Blog-Key header sent, if any: on a route that accepts it,
 * a good admin key is enough on its own, otherwise a blog key that is sent must match.
 */
export function authorizeRoute (p: Principal, route: Pick<FastifyContextConfig, 'auth' | 'acceptsBlogKey' | 'authChallenge'>, settings: RouteAuthSettings, blogKey?: string): void {
  try {
    switch (route.auth) {
      case 'none':
        return
      case 'key':
        requireAnyKey(p)
        return
      case 'user':
        requireAnyKey(p)
        if (p.kind === 'admin') throw forbidden(ADMIN_HAS_NO_ACCOUNT)
        return
      case 'account':
        requireAccount(p, { scoped: true })
        return
      case 'personal':
        requireAccount(p, { scoped: false })
        return
      case 'admin':
        if (route.acceptsBlogKey && p.kind !== 'admin' && blogKey) {
          if (settings.blogApiKey && safeEqual(blogKey, settings.blogApiKey)) return
          throw unauthorized('Invalid X-Blog-Key.')
        }
        requireAdmin(p, settings.adminConfigured)
        return
      default:
        // Boot refuses a route without a class (auth-plugin.ts); fail closed all the same.
        throw forbidden('This endpoint declares no access class.')
    }
  } catch (err) {
    if (route.authChallenge && err instanceof AppError && err.statusCode === 401) {
      throw new AppError(401, route.authChallenge.detail, { headers: { 'www-authenticate': route.authChallenge.wwwAuthenticate } })
    }
    throw err
  }
}
