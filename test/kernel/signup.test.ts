import t from 'tap'
import { build, signup } from '../helpers/build.ts'
import { isDetail, me, PASSWORD } from './_kernel.ts'

const post = (app: Awaited<ReturnType<typeof build>>, payload: unknown) =>
  app.inject({ method: 'POST', url: '/api/auth/signup', payload: payload as object })

t.test('signup returns the spec shape with a working sk- key', async t => {
  const app = await build(t)
  const res = await post(app, { email: 'Alice@Example.com', password: PASSWORD, name: 'Alice' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.status, 'success')
  t.match(body.user, { email: 'alice@example.com', tier: 'registered', pro_eligible: true, pro_expires_at: null, name: 'Alice' })
  t.match(body.user.id, /^[0-9a-f-]{36}$/)
  t.match(body.user.api_key, /^sk-/)
  const who = await me(app, body.user.api_key)
  t.equal(who.statusCode, 200)
  t.equal(who.json().user.id, body.user.id)
})

t.test('name is optional', async t => {
  const app = await build(t)
  const res = await post(app, { email: 'noname@example.com', password: PASSWORD })
  t.equal(res.statusCode, 200)
  t.equal(res.json().user.name, '')
})

t.test('signup errors: 400 for bad input, 409 for a taken e-mail (any case)', async t => {
  const app = await build(t)
  await signup(app, { email: 'taken@example.com' })
  const cases: Array<[string, unknown, number]> = [
    ['missing email', { password: PASSWORD }, 400],
    ['missing password', { email: 'x@example.com' }, 400],
    ['short password', { email: 'x@example.com', password: '1234567' }, 400],
    ['invalid email', { email: 'not-an-email', password: PASSWORD }, 400],
    ['email without dot domain', { email: 'a@b', password: PASSWORD }, 400],
    ['email with a NUL', { email: 'a\u0000b@example.com', password: PASSWORD }, 400],
    ['email as a number', { email: 42, password: PASSWORD }, 400],
    ['body an array', [1, 2], 400],
    ['duplicate', { email: 'taken@example.com', password: PASSWORD }, 409],
    ['duplicate other case', { email: ' TAKEN@example.com ', password: PASSWORD }, 409],
  ]
  for (const [name, payload, status] of cases) {
    const res = await post(app, payload)
    t.equal(res.statusCode, status, name)
    t.ok(isDetail(res.body), `${name}: {detail}`)
  }
})

t.test('a name with control characters is stored without them (no 500 on PostgreSQL)', async t => {
  const app = await build(t)
  const res = await post(app, { email: 'ctl@example.com', password: PASSWORD, name: 'An\u0000na' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().user.name, 'Anna')
})

t.test('50 parallel signups with one e-mail make one account', async t => {
  const app = await build(t)
  const results = await Promise.all(Array.from({ length: 50 }, () => post(app, { email: 'race@example.com', password: PASSWORD })))
  const codes = results.map(r => r.statusCode)
  t.equal(codes.filter(c => c === 200).length, 1, 'one 200')
  t.equal(codes.filter(c => c === 409).length, 49, 'the rest 409')
  t.equal(await app.services.db.account.count({ where: { email: 'race@example.com' } }), 1)
  t.equal(await app.services.db.personalKey.count(), 1, 'one personal key')
})

t.test('the first 100 signups are pro_eligible, even in parallel; refused signups take no number', async t => {
  const app = await build(t)
  // Refused signups (duplicates, bad input) must not use up the 100 numbers.
  await signup(app, { email: 'first@example.com' })
  await Promise.all(Array.from({ length: 10 }, () => post(app, { email: 'first@example.com', password: PASSWORD })))
  await post(app, { email: 'bad', password: PASSWORD })
  const results = await Promise.all(Array.from({ length: 100 }, (_, i) => post(app, { email: `p${i}@example.com`, password: PASSWORD })))
  t.ok(results.every(r => r.statusCode === 200), 'all 100 signed up')
  const eligible = results.filter(r => r.json().user.pro_eligible).length
  t.equal(eligible, 99, 'numbers 2..100 eligible, 101 not')
  const late = await post(app, { email: 'late@example.com', password: PASSWORD })
  t.equal(late.json().user.pro_eligible, false, 'the 102nd is not eligible')
})

t.test('a signup waits for a transaction that holds the database for longer than Prisma\'s 2 s default', async t => {
  // SQLite runs one transaction at a time: the signup's waits for the held one to end,
  // and Prisma's default (2 s) answered 500 here (P2028); PostgreSQL's waits on the
  // signup counter's row lock. Both now wait (TRANSACTION_OPTIONS, core/db/database.ts).
  const app = await build(t)
  await signup(app, { email: 'first@example.com' })
  const { db } = app.services
  let release!: () => void
  const held = new Promise<void>(resolve => { release = resolve })
  let holding!: () => void
  const isHolding = new Promise<void>(resolve => { holding = resolve })
  const holder = db.$transaction(async tx => {
    await tx.$executeRaw`UPDATE counters SET value = value WHERE name = 'signups'`
    holding()
    await held
  })
  await isHolding
  const timer = setTimeout(release, 2500)
  const res = await post(app, { email: 'waited@example.com', password: PASSWORD })
  clearTimeout(timer)
  release()
  await holder
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.json().user.email, 'waited@example.com')
})

t.test('a transaction that cannot start in time is a 503 with Retry-After, not a 500', async t => {
  const app = await build(t)
  const accounts = app.services.accounts
  const signupOf = accounts.signup
  accounts.signup = async () => { throw Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { code: 'P2028' }) }
  t.teardown(() => { accounts.signup = signupOf })
  const res = await post(app, { email: 'busy@example.com', password: PASSWORD })
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '2')
  t.ok(isDetail(res.body), '{detail}')
  t.match(res.json().detail, /busy; retry shortly/)
})
