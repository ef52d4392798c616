import t from 'tap'
import { build, signup } from '../helpers/build.ts'
import { manualClock, DAY_MS } from '../../core/clock.ts'
import { call, isDetail, me } from './_kernel.ts'

t.test('claim-pro once: 30-day window, Pro limits; a second claim is 403', async t => {
  const clock = manualClock('2026-02-01T08:00:00Z')
  const app = await build(t, { clock, env: { RATE_LIMIT_PRO_PER_MINUTE: '600' } })
  const u = await signup(app)
  const res = await call(app, 'POST', '/api/auth/claim-pro', u.apiKey)
  t.equal(res.statusCode, 200)
  t.match(res.json(), { status: 'success', user: { tier: 'pro', pro_eligible: false, pro_expires_at: '2026-03-03T08:00:00.000Z' } })
  const body = (await me(app, u.apiKey)).json()
  t.equal(body.tier, 'pro')
  t.same(body.limits, { max_records_per_run: 1000, calls_per_day: 500, calls_per_month: 15000, retention_hours: 24, rate_limit_per_minute: 600, max_running_jobs: 4, max_queued_jobs: 100, max_file_mb: 500, max_job_files_mb: 2000, max_pending_uploads_mb: 2500, max_monitors: 100, min_monitor_interval_minutes: 5 })
  const again = await call(app, 'POST', '/api/auth/claim-pro', u.apiKey)
  t.equal(again.statusCode, 403)
  t.ok(isDetail(again.body))
})

t.test('parallel claims: exactly one succeeds', async t => {
  const app = await build(t)
  const u = await signup(app)
  const results = await Promise.all(Array.from({ length: 10 }, () => call(app, 'POST', '/api/auth/claim-pro', u.apiKey)))
  t.equal(results.filter(r => r.statusCode === 200).length, 1)
  t.equal(results.filter(r => r.statusCode === 403).length, 9)
})

t.test('not eligible (signup 101 and later): 403', async t => {
  const app = await build(t)
  // Move the signup sequence past 100 instead of making 100 accounts.
  await app.services.db.counter.upsert({ where: { name: 'signups' }, create: { name: 'signups', value: 100 }, update: { value: 100 } })
  const u = await signup(app)
  t.equal((await me(app, u.apiKey)).json().user.pro_eligible, false)
  const res = await call(app, 'POST', '/api/auth/claim-pro', u.apiKey)
  t.equal(res.statusCode, 403)
  t.ok(isDetail(res.body))
  t.equal((await me(app, u.apiKey)).json().tier, 'registered')
})

t.test('Pro lapses after 30 days: tier registered, pro_eligible stays false, no re-claim', async t => {
  const clock = manualClock('2026-02-01T08:00:00Z')
  const app = await build(t, { clock })
  const u = await signup(app)
  await call(app, 'POST', '/api/auth/claim-pro', u.apiKey)
  clock.advance(30 * DAY_MS - 1000)
  t.equal((await me(app, u.apiKey)).json().tier, 'pro', 'still Pro a second before')
  clock.advance(1000)
  const body = (await me(app, u.apiKey)).json()
  t.equal(body.tier, 'registered')
  t.match(body.user, { tier: 'registered', pro_eligible: false, pro_expires_at: '2026-03-03T08:00:00.000Z' })
  t.equal(body.limits.calls_per_day, 50)
  t.equal((await app.services.db.account.findUniqueOrThrow({ where: { id: u.id } })).tier, 'registered', 'lapse written back')
  t.equal((await call(app, 'POST', '/api/auth/claim-pro', u.apiKey)).statusCode, 403, 'cannot claim again')
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: u.email, password: u.password } })
  t.equal(login.json().user.tier, 'registered', 'login agrees')
})
