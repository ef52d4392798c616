// /api/auth/*: signup, login, me, update, regenerate-key, claim-pro, scoped tokens.
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { presentedKey } from '../auth/auth-plugin.ts'
import { requireAccount } from '../auth/guards.ts'
import { badRequest } from '../errors.ts'
import { routeDefaults } from '../route-defaults.ts'
import { tierLimits } from '../quotas/tiers.ts'
import { LoginAnswer, LoginBody, MeResponse, MintedTokenAnswer, MintTokenBody, RegeneratedKeyAnswer, SignupBody, TokenListAnswer, TokenParams, TokenRevokedAnswer, UpdateBody, UserAnswer } from './schemas.ts'

export default async function accountRoutes (fastify: FastifyInstance): Promise<void> {
  routeDefaults(fastify, { tag: 'Account', auth: 'personal' })
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { accounts, quotas, config, catalog } = app.services

  app.post('/api/auth/signup', { schema: { body: SignupBody }, config: { auth: 'none', responses: { 200: UserAnswer } } }, async (req) => {
    const user = await accounts.signup(req.body)
    return { status: 'success', user }
  })

  app.post('/api/auth/login', { schema: { body: LoginBody }, config: { auth: 'none', responses: { 200: LoginAnswer } } }, async (req) => {
    const { apiKey, user } = await accounts.login(req.body)
    return { status: 'success', api_key: apiKey, user }
  })

  app.get('/api/auth/me', { schema: { response: { 200: MeResponse } }, config: { auth: 'user' } }, async (req) => {
    const p = req.principal
    if (p.kind === 'guest') {
      return { user: null, tier: 'guest', limits: { ...tierLimits('guest'), rate_limit_per_minute: config.rateLimitPerMinute }, usage: null }
    }
    const caller = requireAccount(p, { scoped: true })
    const account = await accounts.settleTier(caller.account)
    // The key this request was just authenticated with is the account's current key
    // (a rotation revokes every other), so there is nothing to look up or decrypt.
    const apiKey = p.kind === 'personal' ? presentedKey(req) : undefined
    return {
      user: accounts.userView(account, apiKey),
      tier: caller.tier,
      limits: { ...tierLimits(caller.tier), rate_limit_per_minute: caller.tier === 'pro' ? config.rateLimitProPerMinute : config.rateLimitPerMinute },
      usage: await quotas.usage(account.id),
    }
  })

  app.post('/api/auth/update', { schema: { body: UpdateBody }, config: { responses: { 200: UserAnswer } } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: false })
    if (req.body.name === undefined && req.body.new_password === undefined) throw badRequest('Nothing to update: send name or new_password.')
    return { status: 'success', user: await accounts.update(caller.account.id, req.body) }
  })

  app.post('/api/auth/regenerate-key', { config: { responses: { 200: RegeneratedKeyAnswer } } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: false })
    const apiKey = await accounts.regenerateKey(caller.account.id)
    return { status: 'success', api_key: apiKey, detail: 'The previous key no longer works.' }
  })

  app.post('/api/auth/claim-pro', { config: { responses: { 200: UserAnswer } } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: false })
    return { status: 'success', user: await accounts.claimPro(caller.account.id) }
  })

  app.post('/api/auth/tokens', { schema: { body: MintTokenBody }, config: { responses: { 201: MintedTokenAnswer } } }, async (req, reply) => {
    const caller = requireAccount(req.principal, { scoped: false })
    const known = new Set(catalog.keys())
    const unknown = req.body.tools.filter(t => !known.has(t))
    if (unknown.length) throw badRequest(`tools has unknown tool keys: ${unknown.join(', ')}. Valid keys: ${catalog.keys().join(', ')}.`)
    const { token, view } = await accounts.mintScopedToken(caller.account.id, { name: req.body.name, tools: req.body.tools, expiresInDays: req.body.expires_in_days })
    reply.code(201)
    return { status: 'success', token, ...view }
  })

  app.get('/api/auth/tokens', { config: { responses: { 200: TokenListAnswer } } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: false })
    const tokens = await accounts.listScopedTokens(caller.account.id)
    return { count: tokens.length, tokens }
  })

  app.delete('/api/auth/tokens/:id', { schema: { params: TokenParams }, config: { responses: { 200: TokenRevokedAnswer } } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: false })
    await accounts.revokeScopedToken(caller.account.id, req.params.id)
    return { status: 'success', id: req.params.id, revoked: true }
  })
}
