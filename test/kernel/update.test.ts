import t from 'tap'
import { build, signup } from '../helpers/build.ts'
import { call, isDetail } from './_kernel.ts'

const login = (app: Awaited<ReturnType<typeof build>>, email: string, password: string) =>
  app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } })

t.test('update the name', async t => {
  const app = await build(t)
  const u = await signup(app)
  const res = await call(app, 'POST', '/api/auth/update', u.apiKey, { name: '  New Name ' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().status, 'success')
  t.match(res.json().user, { id: u.id, name: 'New Name' })
  t.equal((await call(app, 'GET', '/api/auth/me', u.apiKey)).json().user.name, 'New Name')
})

t.test('change the password with the current one; the old one stops working', async t => {
  const app = await build(t)
  const u = await signup(app)
  const res = await call(app, 'POST', '/api/auth/update', u.apiKey, { current_password: u.password, new_password: 'brand new secret' })
  t.equal(res.statusCode, 200)
  t.equal((await login(app, u.email, u.password)).statusCode, 401, 'old password refused')
  const ok = await login(app, u.email, 'brand new secret')
  t.equal(ok.statusCode, 200)
  t.equal(ok.json().api_key, u.apiKey, 'the key is unchanged by a password change')
})

t.test('update errors: 403 without a correct current_password, 400 for bad input', async t => {
  const app = await build(t)
  const u = await signup(app)
  const cases: Array<[string, unknown, number]> = [
    ['no current_password', { new_password: 'another secret' }, 403],
    ['wrong current_password', { current_password: 'not it at all', new_password: 'another secret' }, 403],
    ['short new_password', { current_password: u.password, new_password: 'short' }, 400],
    ['nothing to update', {}, 400],
    ['name not a string', { name: 5 }, 400],
    ['name too long', { name: 'x'.repeat(201) }, 400],
  ]
  for (const [name, payload, status] of cases) {
    const res = await call(app, 'POST', '/api/auth/update', u.apiKey, payload)
    t.equal(res.statusCode, status, name)
    t.ok(isDetail(res.body), `${name}: {detail}`)
  }
  t.equal((await login(app, u.email, u.password)).statusCode, 200, 'password unchanged after the refusals')
})
