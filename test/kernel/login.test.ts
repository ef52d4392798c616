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

t.test('password hashes: the service stores scrypt at N=16384, r=8, p=1; a cheaper cost (tests only) still verifies, decoy included', async t => {
  const { PasswordHasher, PASSWORD_SCRYPT, verifyPassword } = await import('../../core/crypto.ts')
  t.same(PASSWORD_SCRYPT, { N: 16384, r: 8, p: 1 })
  const production = new PasswordHasher(1, 1)
  const stored = await production.hash('correct horse')
  t.match(stored, /^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{86}$/, 'the parameters travel with the hash')
  t.ok(await production.verify('correct horse', stored))
  t.notOk(await production.verify('wrong horse', stored))
  t.match(production.decoyHash, /^scrypt\$16384\$8\$1\$/, 'an unknown e-mail costs a login the same scrypt')
  t.notOk(await verifyPassword('anything', production.decoyHash))
  const cheap = new PasswordHasher(1, 1, { N: 1024, r: 8, p: 1 })
  const cheapHash = await cheap.hash('correct horse')
  t.match(cheapHash, /^scrypt\$1024\$8\$1\$/)
  t.ok(await production.verify('correct horse', cheapHash), 'any stored cost verifies, by its own parameters')
  t.match(cheap.decoyHash, /^scrypt\$1024\$8\$1\$/)
})
