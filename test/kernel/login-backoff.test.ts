// Failed logins back off per account (without telling whether it exists), and
// concurrent scrypt work is bounded.
import t from 'tap'
import { build, signup } from '../helpers/build.ts'
import { manualClock } from '../../core/clock.ts'
import { PasswordHasher } from '../../core/crypto.ts'
import { isAppError } from '../../core/errors.ts'
import { isDetail } from './_kernel.ts'

type App = Awaited<ReturnType<typeof build>>
const login = (app: App, email: string, password: string) =>
  app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } })

t.test('five failures lock the e-mail for 15 minutes; known and unknown e-mails answer alike', async t => {
  const clock = manualClock('2026-03-01T10:00:00Z')
  const app = await build(t, { clock })
  const user = await signup(app)
  const statuses = async (email: string, password: string) => {
    const out: number[] = []
    for (let i = 0; i < 6; i++) out.push((await login(app, email, password)).statusCode)
    return out
  }
  t.same(await statuses(user.email, 'wrong password'), [401, 401, 401, 401, 401, 429])
  t.same(await statuses('nobody-here@example.com', 'wrong password'), [401, 401, 401, 401, 401, 429], 'an unknown e-mail is throttled the same way')

  const locked = await login(app, user.email, user.password)
  t.equal(locked.statusCode, 429, 'even the right password waits')
  t.ok(isDetail(locked.body))
  t.equal(locked.headers['retry-after'], '900')
  const unknownLocked = await login(app, 'nobody-here@example.com', 'x'.repeat(10))
  t.equal(unknownLocked.json().detail, locked.json().detail, 'same message, known or not')
  t.equal(unknownLocked.headers['retry-after'], locked.headers['retry-after'])
  t.equal((await login(app, user.email.toUpperCase(), user.password)).statusCode, 429, 'the e-mail is matched as login matches it (case-insensitive)')

  clock.advance(10 * 60_000)
  t.equal((await login(app, user.email, user.password)).headers['retry-after'], '300', 'Retry-After counts down')
  clock.advance(5 * 60_000)
  t.equal((await login(app, user.email, user.password)).statusCode, 200, 'after the lock the right password works')
})

t.test('a password change checks current_password under the same backoff: a leaked key does not recover the password', async t => {
  const clock = manualClock('2026-03-01T10:00:00Z')
  const app = await build(t, { clock })
  const user = await signup(app)
  const change = (current: string) => app.inject({ method: 'POST', url: '/api/auth/update', headers: { 'x-api-key': user.apiKey }, payload: { current_password: current, new_password: 'a brand new secret' } })
  const statuses: number[] = []
  for (let i = 0; i < 6; i++) statuses.push((await change(`wrong guess ${i}`)).statusCode)
  t.same(statuses, [403, 403, 403, 403, 403, 429], 'five wrong guesses lock, as for logins')
  const right = await change(user.password)
  t.equal(right.statusCode, 429, 'the right password waits too: the ninth guess tells nothing')
  t.ok(isDetail(right.body))
  t.equal(right.headers['retry-after'], '900')
  t.equal((await login(app, user.email, user.password)).statusCode, 429, 'logins share the lock: one count per address')
  clock.advance(15 * 60_000)
  t.equal((await change(user.password)).statusCode, 200, 'after the lock the right password changes it')
  t.equal((await login(app, user.email, 'a brand new secret')).statusCode, 200)
})

t.test('wrong current_password guesses and failed logins add up to one count per address', async t => {
  const clock = manualClock('2026-03-01T10:00:00Z')
  const app = await build(t, { clock })
  const user = await signup(app)
  for (let i = 0; i < 3; i++) await login(app, user.email, 'wrong password')
  for (let i = 0; i < 2; i++) {
    const res = await app.inject({ method: 'POST', url: '/api/auth/update', headers: { 'x-api-key': user.apiKey }, payload: { current_password: 'wrong password', new_password: 'a brand new secret' } })
    t.equal(res.statusCode, 403)
  }
  t.equal((await login(app, user.email, user.password)).statusCode, 429, 'three failed logins and two wrong guesses lock')
})

t.test('a success clears the count; failures of another account do not count', async t => {
  const clock = manualClock('2026-03-01T10:00:00Z')
  const app = await build(t, { clock })
  const a = await signup(app)
  const b = await signup(app)
  for (let i = 0; i < 4; i++) await login(app, a.email, 'wrong password')
  for (let i = 0; i < 4; i++) await login(app, b.email, 'wrong password')
  t.equal((await login(app, a.email, a.password)).statusCode, 200)
  for (let i = 0; i < 4; i++) t.equal((await login(app, a.email, 'wrong password')).statusCode, 401, `failure ${i + 1} after the reset`)
  t.equal((await login(app, b.email, 'wrong password')).statusCode, 401, 'b reaches five')
  t.equal((await login(app, b.email, b.password)).statusCode, 429, 'b is locked')
  t.equal((await login(app, a.email, a.password)).statusCode, 200, 'a is not')
})

t.test('failures spread over more than the window do not lock', async t => {
  const clock = manualClock('2026-03-01T10:00:00Z')
  const app = await build(t, { clock })
  const u = await signup(app)
  for (let i = 0; i < 8; i++) {
    t.equal((await login(app, u.email, 'wrong password')).statusCode, 401)
    clock.advance(4 * 60_000)
  }
})

t.test('PasswordHasher runs at most `concurrency` at once and refuses past the queue with 503', async t => {
  const hasher = new PasswordHasher(1, 1)
  const results = await Promise.allSettled([hasher.hash('password one'), hasher.hash('password two'), hasher.hash('password three')])
  t.same(results.map(r => r.status), ['fulfilled', 'fulfilled', 'rejected'])
  const refused = (results[2] as PromiseRejectedResult).reason
  t.ok(isAppError(refused))
  t.equal(refused.statusCode, 503)
  t.equal(refused.headers['retry-after'], '1')
  const hash = (results[0] as PromiseFulfilledResult<string>).value
  t.ok(await hasher.verify('password one', hash), 'the slot was given back')
  t.notOk(await hasher.verify('password two', hash))
})

t.test('over HTTP a burst of signups past the queue answers 503 {detail}, never piles up', async t => {
  const app = await build(t, { env: { PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '0' } })
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) =>
    app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: `burst${i}@example.com`, password: 'password123' } })))
  const codes = answers.map(a => a.statusCode)
  t.ok(codes.includes(200), `some pass (${codes})`)
  t.ok(codes.includes(503), `some are refused (${codes})`)
  for (const a of answers.filter(a => a.statusCode === 503)) {
    t.ok(isDetail(a.body))
    t.equal(a.headers['retry-after'], '1')
  }
  t.equal((await app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: 'after@example.com', password: 'password123' } })).statusCode, 200, 'a later signup goes through')
})
