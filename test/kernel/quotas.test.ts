import t from 'tap'
import { build, signup } from '../helpers/build.ts'
import { manualClock, DAY_MS } from '../../core/clock.ts'
import { AppError } from '../../core/errors.ts'

async function quotaError (p: Promise<unknown>): Promise<AppError> {
  try { await p } catch (err) { if (err instanceof AppError) return err; throw err }
  throw new Error('expected a quota error')
}

t.test('100 parallel charges never pass the daily quota', async t => {
  const app = await build(t, { clock: manualClock('2026-04-15T12:00:00Z') })
  const u = await signup(app)
  const { quotas } = app.services
  const results = await Promise.allSettled(Array.from({ length: 100 }, () => quotas.charge(u.id, 'registered')))
  const ok = results.filter(r => r.status === 'fulfilled').length
  const refused = results.filter(r => r.status === 'rejected').map(r => (r as PromiseRejectedResult).reason)
  t.equal(ok, 50, 'exactly the 50 registered calls pass')
  t.equal(refused.length, 50)
  t.ok(refused.every(e => e instanceof AppError && e.statusCode === 429), 'the rest are 429')
  t.same(await quotas.usage(u.id), { calls_today: 50, calls_this_month: 50, records_today: 0, jobs_running: 0, jobs_queued: 0 })
})

t.test('the 429 names the daily quota and Retry-After counts to UTC midnight', async t => {
  const app = await build(t, { clock: manualClock('2026-04-15T23:00:00Z') })
  const u = await signup(app)
  for (let i = 0; i < 5; i++) await app.services.quotas.charge(u.id, 'guest')
  const err = await quotaError(app.services.quotas.charge(u.id, 'guest'))
  t.equal(err.statusCode, 429)
  t.match(err.detail, /daily/i)
  t.equal(err.headers['retry-after'], '3600')
})

t.test('the daily counter rolls over at UTC midnight, the monthly one does not', async t => {
  const clock = manualClock('2026-04-15T23:59:59Z')
  const app = await build(t, { clock })
  const u = await signup(app)
  const { quotas } = app.services
  for (let i = 0; i < 5; i++) await quotas.charge(u.id, 'guest')
  t.equal((await quotaError(quotas.charge(u.id, 'guest'))).statusCode, 429)
  clock.advance(1000) // 2026-04-16T00:00:00Z
  t.same(await quotas.usage(u.id), { calls_today: 0, calls_this_month: 5, records_today: 0, jobs_running: 0, jobs_queued: 0 })
  await quotas.charge(u.id, 'guest')
  t.same(await quotas.usage(u.id), { calls_today: 1, calls_this_month: 6, records_today: 0, jobs_running: 0, jobs_queued: 0 })
})

t.test('the monthly quota is 30 × daily and rolls over on the 1st at 00:00 UTC', async t => {
  const clock = manualClock('2026-04-01T00:00:00Z')
  const app = await build(t, { clock })
  const u = await signup(app)
  const { quotas } = app.services
  // Spend 5 a day for 30 days: 150 = the guest monthly quota.
  for (let d = 0; d < 30; d++) {
    for (let i = 0; i < 5; i++) await quotas.charge(u.id, 'guest')
    clock.advance(DAY_MS)
  }
  clock.set('2026-04-30T23:00:00Z')
  t.same((await quotas.usage(u.id)).calls_this_month, 150)
  clock.set('2026-05-01T00:00:00Z')
  t.equal((await quotas.usage(u.id)).calls_this_month, 0, 'a new month starts at zero')
})

t.test('the monthly refusal gives back the daily charge and names the monthly quota', async t => {
  const clock = manualClock('2026-06-30T22:00:00Z')
  const app = await build(t, { clock })
  const u = await signup(app)
  const { quotas, db } = app.services
  await db.usageCounter.create({ data: { accountId: u.id, period: 'm:2026-06', calls: 150, records: 0 } })
  const err = await quotaError(quotas.charge(u.id, 'guest'))
  t.equal(err.statusCode, 429)
  t.match(err.detail, /monthly/i)
  t.equal(err.headers['retry-after'], String(2 * 3600), 'seconds until 1 July 00:00 UTC')
  t.equal((await quotas.usage(u.id)).calls_today, 0, 'the daily call was given back')
})

t.test('refund gives the call back to the day and month it was charged, even after midnight', async t => {
  const clock = manualClock('2026-07-31T23:59:00Z')
  const app = await build(t, { clock })
  const u = await signup(app)
  const { quotas, db } = app.services
  const charge = await quotas.charge(u.id, 'registered')
  await quotas.charge(u.id, 'registered')
  clock.advance(120_000)
  await quotas.charge(u.id, 'registered')
  await quotas.refund(charge)
  const rows = await db.usageCounter.findMany({ where: { accountId: u.id }, orderBy: { period: 'asc' } })
  t.same(rows.map(r => [r.period, r.calls]), [['d:2026-07-31', 1], ['d:2026-08-01', 1], ['m:2026-07', 1], ['m:2026-08', 1]])
  await quotas.refund(charge)
  await quotas.refund(charge)
  const after = await db.usageCounter.findMany({ where: { accountId: u.id }, orderBy: { period: 'asc' } })
  t.ok(after.every(r => r.calls >= 0), 'never below zero')
})

t.test('records_today counts and rolls over', async t => {
  const clock = manualClock('2026-08-10T23:00:00Z')
  const app = await build(t, { clock })
  const u = await signup(app)
  await app.services.quotas.addRecords(u.id, 12)
  await app.services.quotas.addRecords(u.id, 0)
  t.equal((await app.services.quotas.usage(u.id)).records_today, 12)
  clock.advance(3600_000)
  t.equal((await app.services.quotas.usage(u.id)).records_today, 0)
})
