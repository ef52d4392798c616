import t from 'tap'
import { build, signup } from '../helpers/build.ts'
import { manualClock, DAY_MS } from '../../core/clock.ts'
import { call, isDetail, me, mintToken } from './_kernel.ts'

t.test('mint returns the token once (201); list never shows it', async t => {
  const app = await build(t)
  const u = await signup(app)
  const res = await call(app, 'POST', '/api/auth/tokens', u.apiKey, { name: 'zapier', tools: ['maps', 'websearch', 'maps'] })
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.match(body, { status: 'success', name: 'zapier', tools: ['maps', 'websearch'], expires_at: null, revoked_at: null })
  t.match(body.token, /^scp-/)
  const list = await call(app, 'GET', '/api/auth/tokens', u.apiKey)
  t.equal(list.statusCode, 200)
  t.equal(list.json().count, 1)
  t.match(list.json().tokens[0], { id: body.id, name: 'zapier', tools: ['maps', 'websearch'] })
  t.notMatch(list.body, body.token, 'the secret is not listed')
  t.notMatch(list.body, body.token.slice(4), 'not even without its prefix')
})

t.test('tokens are listed per account, newest first', async t => {
  const clock = manualClock('2026-01-01T00:00:00Z')
  const app = await build(t, { clock })
  const a = await signup(app)
  const b = await signup(app)
  await mintToken(app, a.apiKey, { name: 'one' })
  clock.advance(1000)
  await mintToken(app, a.apiKey, { name: 'two' })
  await mintToken(app, b.apiKey, { name: 'other' })
  const list = (await call(app, 'GET', '/api/auth/tokens', a.apiKey)).json()
  t.same(list.tokens.map((x: { name: string }) => x.name), ['two', 'one'])
})

t.test('revoke: the token fails at once; revoking again is fine; unknown or foreign ids are 404', async t => {
  const app = await build(t)
  const a = await signup(app)
  const b = await signup(app)
  const tok = await mintToken(app, a.apiKey)
  t.equal((await me(app, tok.token)).statusCode, 200)
  const del = await call(app, 'DELETE', `/api/auth/tokens/${tok.id}`, a.apiKey)
  t.equal(del.statusCode, 200)
  t.match(del.json(), { status: 'success', id: tok.id, revoked: true })
  t.equal((await me(app, tok.token)).statusCode, 401, 'revoked token refused')
  t.equal((await call(app, 'DELETE', `/api/auth/tokens/${tok.id}`, a.apiKey)).statusCode, 200, 'idempotent')
  const listed = (await call(app, 'GET', '/api/auth/tokens', a.apiKey)).json().tokens[0]
  t.type(listed.revoked_at, 'string', 'list shows revoked_at')
  const other = await mintToken(app, b.apiKey)
  for (const id of [other.id, 'no-such-id', '00000000-0000-0000-0000-000000000000', '%00']) {
    const res = await call(app, 'DELETE', `/api/auth/tokens/${id}`, a.apiKey)
    t.equal(res.statusCode, 404, `DELETE ${id}`)
    t.ok(isDetail(res.body))
  }
  t.equal((await me(app, other.token)).statusCode, 200, "b's token untouched")
})

t.test('expires_in_days: the token stops working when it expires', async t => {
  const clock = manualClock('2026-05-01T10:00:00Z')
  const app = await build(t, { clock })
  const u = await signup(app)
  const tok = await mintToken(app, u.apiKey, { expires_in_days: 2 })
  t.equal(tok.expires_at, '2026-05-03T10:00:00.000Z')
  clock.advance(2 * DAY_MS - 1000)
  t.equal((await me(app, tok.token)).statusCode, 200, 'valid a second before')
  clock.advance(1000)
  t.equal((await me(app, tok.token)).statusCode, 401, 'expired at the instant')
})

t.test('mint errors: 400 for bad bodies and unknown tool keys', async t => {
  const app = await build(t)
  const u = await signup(app)
  const cases: Array<[string, unknown]> = [
    ['no name', { tools: ['maps'] }],
    ['empty name', { name: '', tools: ['maps'] }],
    ['no tools', { name: 'x' }],
    ['empty tools', { name: 'x', tools: [] }],
    ['unknown tool', { name: 'x', tools: ['nope'] }],
    ['retired tool', { name: 'x', tools: ['twitter'] }],
    ['expiry zero', { name: 'x', tools: ['maps'], expires_in_days: 0 }],
    ['expiry fraction', { name: 'x', tools: ['maps'], expires_in_days: 1.5 }],
  ]
  for (const [name, payload] of cases) {
    const res = await call(app, 'POST', '/api/auth/tokens', u.apiKey, payload)
    t.equal(res.statusCode, 400, name)
    t.ok(isDetail(res.body), `${name}: {detail}`)
  }
  t.equal((await call(app, 'GET', '/api/auth/tokens', u.apiKey)).json().count, 0, 'nothing minted')
})

t.test('a scoped token cannot mint, list or revoke tokens', async t => {
  const app = await build(t)
  const u = await signup(app)
  const tok = await mintToken(app, u.apiKey)
  t.equal((await call(app, 'POST', '/api/auth/tokens', tok.token, { name: 'x', tools: ['maps'] })).statusCode, 403)
  t.equal((await call(app, 'GET', '/api/auth/tokens', tok.token)).statusCode, 403)
  t.equal((await call(app, 'DELETE', `/api/auth/tokens/${tok.id}`, tok.token)).statusCode, 403)
  t.equal((await me(app, tok.token)).statusCode, 200, 'still valid')
})

t.test('a scoped token records when it was last used (at most once a minute)', async t => {
  const clock = manualClock('2026-05-01T10:00:00Z')
  const app = await build(t, { clock })
  const user = await signup(app)
  const minted = (await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: { 'x-api-key': user.apiKey }, payload: { name: 'agent', tools: ['webemail'] } })).json()
  const list = async () => (await app.inject({ url: '/api/auth/tokens', headers: { 'x-api-key': user.apiKey } })).json().tokens[0]
  // The write is fire-and-forget: poll until it lands (or give up after 5 s).
  const lastUsedBecomes = async (value: string) => {
    for (let i = 0; i < 250 && (await list()).last_used_at !== value; i++) await new Promise(r => setTimeout(r, 20))
    return (await list()).last_used_at
  }
  t.equal((await list()).last_used_at, null, 'unused at first')
  await app.inject({ url: '/api/auth/me', headers: { 'x-api-key': minted.token } })
  const first = clock().toISOString()
  t.equal(await lastUsedBecomes(first), first)
  clock.advance(30_000)
  await app.inject({ url: '/api/auth/me', headers: { 'x-api-key': minted.token } })
  await new Promise(r => setTimeout(r, 50))
  t.equal((await list()).last_used_at, first, 'not rewritten within the minute')
  clock.advance(60_000)
  await app.inject({ url: '/api/auth/me', headers: { 'x-api-key': minted.token } })
  t.equal(await lastUsedBecomes(clock().toISOString()), clock().toISOString(), 'rewritten after it')
})
