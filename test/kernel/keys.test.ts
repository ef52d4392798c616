import t from 'tap'
import { build, signup } from '../helpers/build.ts'
import { call, me, mintToken } from './_kernel.ts'

t.test('regenerate-key: the old key fails at once, the new one works', async t => {
  const app = await build(t)
  const u = await signup(app)
  t.equal((await me(app, u.apiKey)).statusCode, 200, 'old key works before')
  const res = await call(app, 'POST', '/api/auth/regenerate-key', u.apiKey)
  t.equal(res.statusCode, 200)
  const fresh = res.json().api_key as string
  t.match(fresh, /^sk-/)
  t.not(fresh, u.apiKey)
  t.equal((await me(app, u.apiKey)).statusCode, 401, 'old key refused on the very next request')
  const now = await me(app, fresh)
  t.equal(now.statusCode, 200)
  t.equal(now.json().user.api_key, fresh, 'me shows the new key')
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: u.email, password: u.password } })
  t.equal(login.json().api_key, fresh, 'login hands back the new key')
  t.equal((await call(app, 'POST', '/api/auth/regenerate-key', u.apiKey)).statusCode, 401, 'the old key cannot rotate again')
})

t.test('rotating twice in parallel leaves exactly one working key', async t => {
  const app = await build(t)
  const u = await signup(app)
  const [a, b] = await Promise.all([
    call(app, 'POST', '/api/auth/regenerate-key', u.apiKey),
    call(app, 'POST', '/api/auth/regenerate-key', u.apiKey),
  ])
  const keys = [a, b].filter(r => r.statusCode === 200).map(r => r.json().api_key as string)
  t.ok(keys.length >= 1)
  const working = []
  for (const k of keys) if ((await me(app, k)).statusCode === 200) working.push(k)
  t.equal(working.length, 1, 'one key works')
  t.equal(await app.services.db.personalKey.count({ where: { accountId: u.id, revokedAt: null } }), 1)
})

t.test('a scoped token keeps working after the personal key rotates', async t => {
  const app = await build(t)
  const u = await signup(app)
  const tok = await mintToken(app, u.apiKey)
  await call(app, 'POST', '/api/auth/regenerate-key', u.apiKey)
  t.equal((await me(app, tok.token)).statusCode, 200)
})
