// Resolves the caller on every request, applies the per-IP rate limit
// (whose ceiling depends on whether the key is Pro; /api/health and the admin's
// /metrics scrape are exempt),
// then enforces the route's declared access class (`config.auth`), before the
// body is read: the declaration is what lets a caller through, so OpenAPI and
// the README's table cannot drift from what the server does. Boot fails on a
// route that declares no class.
// The IP is fastify's `request.ip`, which honours TRUST_PROXY (config.ts): with
// a hop count it is the address the nearest trusted proxy saw, never the
// client-written leftmost X-Forwarded-For.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { ROUTE_AUTH_CLASSES } from '../fastify-types.ts'
import { authorizeRoute, type RouteAuthSettings } from './guards.ts'
import type { AppConfig } from '../config.ts'
import type { Principal } from './principal.ts'
import type { ClientRateLimiter } from '../quotas/rate-limiter.ts'
import { tooManyRequests } from '../errors.ts'
import { NO_PRINCIPAL } from './principal.ts'

/** `x-api-key` (any case), else `Authorization: Bearer`. */
export function presentedKey (request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key']
  if (typeof header === 'string' && header !== '') return header.trim()
  const auth = request.headers.authorization
  if (typeof auth === 'string' && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim()
  return undefined
}

const UNLIMITED = new Set(['/api/health', '/api/health/ready'])

/**
 * Not counted either: the admin's scrape of `GET /metrics`. A scraper often shares its address
 * with clients (a proxy, a NAT, the same host), and a window those clients filled would blind
 * the operator exactly while the service refuses them.
 */
const isAdminScrape = (request: FastifyRequest, path: string) => path === '/metrics' && request.principal.kind === 'admin'

/** Requests a minute this caller may make: the Pro ceiling with a Pro key, else the default. */
function rateLimitFor (p: Principal, config: Pick<AppConfig, 'rateLimitPerMinute' | 'rateLimitProPerMinute'>): number {
  return (p.kind === 'personal' || p.kind === 'scoped') && p.tier === 'pro' ? config.rateLimitProPerMinute : config.rateLimitPerMinute
}

/**
 * Counts `weight` more requests of this client (one HTTP request counts 1 in the
 * hook below; a JSON-RPC batch adds its other messages); 429 past the limit.
 */
export async function countRequests (rateLimiter: ClientRateLimiter, config: Pick<AppConfig, 'rateLimitPerMinute' | 'rateLimitProPerMinute'>, request: FastifyRequest, weight = 1): Promise<void> {
  const limit = rateLimitFor(request.principal, config)
  const wait = await rateLimiter.hit(request.ip, limit, weight)
  if (wait > 0) {
    request.server.services.metrics.refusals.inc({ reason: 'rate-limit' })
    throw tooManyRequests(`Rate limit of ${limit} requests per minute exceeded; retry in ${wait} s.`, wait)
  }
}

async function authPlugin (app: FastifyInstance): Promise<void> {
  const { keys, rateLimiter, config } = app.services
  app.decorateRequest('principal', null as never)
  const settings: RouteAuthSettings = { adminConfigured: config.adminApiKey !== null, blogApiKey: config.blogApiKey }

  // Every route declares its class. Checked when the app is ready: routes
  // plugins fill their defaults in (routeDefaults) after this hook sees a route.
  const routes: RouteOptions[] = []
  app.addHook('onRoute', route => { routes.push(route) })
  app.addHook('onReady', async () => {
    const undeclared = routes.filter(r => !ROUTE_AUTH_CLASSES.includes(r.config?.auth as never)).map(r => `${String(r.method)} ${r.url}`)
    if (undeclared.length) throw new Error(`routes without an access class (config.auth, one of ${ROUTE_AUTH_CLASSES.join(', ')}): ${undeclared.join(', ')}`)
  })

  app.addHook('onRequest', async (request) => {
    // Read once: fastify builds a new routeOptions object at each read.
    const route = request.routeOptions.config
    // A keyless route (health) ignores keys: their lookup needs the database, which may be what is down.
    if (route?.keyless) {
      request.principal = NO_PRINCIPAL
      return
    }
    request.principal = await keys.resolve(presentedKey(request))
    const path = request.url.split('?')[0]!
    if (!UNLIMITED.has(path) && !isAdminScrape(request, path)) await countRequests(rateLimiter, config, request)
    // No route (404), or a WebSocket whose socket enforces the class after the upgrade.
    if (request.is404 || route.authAfterUpgrade) return
    const blogKey = request.headers['x-blog-key']
    authorizeRoute(request.principal, route, settings, typeof blogKey === 'string' ? blogKey.trim() : undefined)
  })
}

export default fp(authPlugin, { name: 'auth', fastify: '5.x' })
