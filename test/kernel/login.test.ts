import t from 'tap'
import { build, signup } from '../helpers/build.ts'
import { isDetail } from './_kernel.ts'

const login = (app: Awaited<ReturnType<typeof build>>, payload: unknown) =>
  app.inject({ method: 'POST', url: '/api/auth/login', payload: payload as object })

t.test('login returns {status, api_key, user} with the current key', async t => {
  const app = await build(t)
  const u = await signup(app)
  const res = await login(app, { email: u.email.toUpperCase(), password: u.password })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.status, 'success')
  t.equal(body.api_key, u.apiKey)
  t.match(body.user, { id: u.id, email: u.email, api_key: u.apiKey, tier: 'registered' })
})

t.test('wrong password and unknown e-mail give the same 401', async t => {
  const app = await build(t)
  const u = await signup(app)
  const wrong = await login(app, { email: u.email, password: 'wrong password' })
  const unknown = await login(app, { email: 'nobody@example.com', password: u.password })
  t.equal(wrong.statusCode, 401)
  t.equal(unknown.statusCode, 401)
  t.equal(wrong.json().detail, unknown.json().detail, 'same message for both')
  t.notMatch(wrong.body, u.apiKey)
})

t.test('login input errors are 400 or 401, never 500', async t => {
  const app = await build(t)
  const cases: Array<[string, unknown, number]> = [
    ['missing password', { email: 'a@example.com' }, 400],
    ['missing email', { password: 'x' }, 400],
    ['email not a string', { email: ['a'], password: 'x' }, 400],
    ['email with NUL', { email: 'a\u0000@example.com', password: 'password123' }, 401],
    ['email too long', { email: 'a'.repeat(320) + '@example.com', password: 'password123' }, 400],
  ]
  for (const [name, payload, status] of cases) {
    const res = await login(app, payload)
    t.equal(res.statusCode, status, name)
    t.ok(isDetail(res.body), `${name}: {detail}`)
  }
})
