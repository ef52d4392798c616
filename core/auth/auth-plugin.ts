// Resolves the caller on every request, then applies the per-IP rate limit
// (whose ceiling depends on whether the key is Pro). /api/health is exempt.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { tooManyRequests } from '../errors.ts'

/** `x-api-key` (any case), else `Authorization: Bearer`. */
export function presentedKey (request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key']
  if (typeof header === 'string' && header !== '') return header.trim()
  const auth = request.headers.authorization
  if (typeof auth === 'string' && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim()
  return undefined
}

const UNLIMITED = new Set(['/api/health'])

async function authPlugin (app: FastifyInstance): Promise<void> {
  const { keys, rateLimiter, config } = app.services
  app.decorateRequest('principal', null as never)
  app.addHook('onRequest', async (request) => {
    request.principal = await keys.resolve(presentedKey(request))
    const path = request.url.split('?')[0]!
    if (UNLIMITED.has(path)) return
    const p = request.principal
    const limit = (p.kind === 'personal' || p.kind === 'scoped') && p.tier === 'pro' ? config.rateLimitProPerMinute : config.rateLimitPerMinute
    const wait = rateLimiter.hit(request.ip, limit)
    if (wait > 0) throw tooManyRequests(`Rate limit of ${limit} requests per minute exceeded; retry in ${wait} s.`, wait)
  })
}

export default fp(authPlugin, { name: 'auth', fastify: '5.x' })
