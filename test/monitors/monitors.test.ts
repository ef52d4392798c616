// Monitors (core/monitors): the API and its checks (nothing charged by a
// refusal), the database scheduler on a fake clock (one tick, one run; a tick
// missed while down runs once at start, said missed; a restart in the middle of
// a tick still makes one run), a monitor of the products tool on a stand-in
// Shopify store whose catalogue changes between runs (added, removed and
// changed rows exact, duplicate identities kept and reported, the exports, the
// webhook's change counts), quota exhaustion (skipped with its reason), a
// monitor that pauses itself after failing runs, and, with Redis, two
// processes whose BullMQ job schedulers make one run of one tick, and ticks
// taken together fired as one batch (one run each; a paused monitor's none).
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { build, signup, tempDir, testDatabaseKind, PUBLIC_TOKEN, type TestUser } from '../helpers/build.ts'
import { waitForEnd, usageOf } from '../helpers/jobs.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { manualClock } from '../../core/clock.ts'
import type { DatabaseMonitorScheduler } from '../../core/monitors/monitor-scheduler.ts'
import { BullMonitorScheduler } from '../../core/monitors/bull-monitor-scheduler.ts'
import { MAX_FAILURES_IN_A_ROW } from '../../core/monitors/monitor-runs.ts'

const PRODUCTS = resolve('plugins/products')
const COUNTER = resolve('test/fixtures/plugins/counter')

function toolsConfig (t: Parameters<typeof tempDir>[0]): string {
  const path = join(tempDir(t, 'ejs-monitor-tools-'), 'tools.config.json')
  writeFileSync(path, JSON.stringify({ tools: [
    { key: 'counter', plugin: COUNTER, enabled: true },
    { key: 'products', plugin: PRODUCTS, enabled: true, settings: { shopify_page_size: 50 } },
  ], retired: [] }))
  return path
}

const call = (app: FastifyInstance, key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) })

// The database scheduler on a fake clock: its apps are built without Redis (distributed: false) even under TEST_REDIS_URL; the BullMQ scheduler has tests of its own below.
const scheduler = (app: FastifyInstance) => app.services.monitorScheduler as DatabaseMonitorScheduler

/** Polls until the condition holds (every 50 ms); the deadline only turns a hang into a readable failure. */
async function until (what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}

/** The monitor's latest run, waited for to its end. */
async function lastRun (app: FastifyInstance, user: TestUser, monitorId: string) {
  const monitor = (await call(app, user.apiKey, 'GET', `/api/monitors/${monitorId}`)).json()
  // A loaded machine (the products tool's first run boots the extraction worker) can take a while.
  return waitForEnd(app, user.apiKey, monitor.last_run_id, 60_000)
}

/** A stand-in Shopify store: /products.json answers the current catalogue. */
async function standInStore (t: Parameters<typeof tempDir>[0]) {
  const store = { products: [] as Array<{ id: number, title: string, price: string }> }
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/products.json') {
      const page = Number(url.searchParams.get('page') ?? 1)
      const products = page === 1 ? store.products.map(p => ({ id: p.id, title: p.title, handle: `p-${p.id}`, body_html: '', vendor: 'Acme', product_type: 'Thing', tags: [], options: [], images: [], variants: [{ id: p.id * 10, title: 'Default', sku: `S-${p.id}`, price: p.price, available: true }] })) : []
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ products }))
    }
    if (url.pathname === '/meta.json') { res.writeHead(200, { 'content-type': 'application/json' }); return res.end('{"currency":"EUR"}') }
    res.writeHead(404); res.end()
  })
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>(r => { server.closeAllConnections(); server.close(() => r()) }))
  return { store, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

t.test('the API: checks before anything, tiers, scoped tokens, other accounts', async t => {
  const clock = manualClock('2026-11-30T07:30:00Z')
  const app = await build(t, { clock, distributed: false, env: { TOOLS_CONFIG: toolsConfig(t) } })
  const user = await signup(app)
  const refused: Array<[unknown, number, RegExp]> = [
    [{ tool: 'counter', schedule: { every: '30m' } }, 400, /at most every 60 minutes/],
    [{ tool: 'counter', schedule: { cron: '*/5 * * * *', tz: 'UTC' } }, 400, /5 minutes apart/],
    [{ tool: 'counter', schedule: { cron: '0 8 * * 1-5', tz: 'Mars/Olympus' } }, 400, /not a time zone/],
    [{ tool: 'counter', schedule: { cron: '0 0 8 * * 1-5', tz: 'UTC' } }, 400, /five fields/],
    [{ tool: 'counter', schedule: { cron: '0 99 * * *', tz: 'UTC' } }, 400, /not a valid cron/],
    [{ tool: 'counter', schedule: { every: 'often' } }, 400, /number and a unit/],
    [{ tool: 'counter', params: { max_results: 'many' }, schedule: { every: '1h' } }, 400, /max_results/],
    [{ tool: 'counter', schedule: { every: '1h' }, webhook: { url: 'ftp://x' } }, 400, /http/],
    [{ tool: 'nope', schedule: { every: '1h' } }, 400, /nope/],
  ]
  for (const [body, status, detail] of refused) {
    const res = await call(app, user.apiKey, 'POST', '/api/monitors', body)
    t.equal(res.statusCode, status, JSON.stringify(body))
    t.match(res.json().detail, detail)
  }
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0, 'no refusal was charged')

  const guest = await call(app, PUBLIC_TOKEN, 'POST', '/api/monitors', { tool: 'counter', schedule: { every: '1h' } })
  t.equal(guest.statusCode, 403, 'guests keep no monitors')

  const created = await call(app, user.apiKey, 'POST', '/api/monitors', { tool: 'counter', params: { max_results: 2 }, schedule: { cron: '0 8 * * 1-5', tz: 'Europe/Berlin' }, name: 'weekday rows', webhook: { url: 'https://hooks.example/x', secret: 's3cret' } })
  t.equal(created.statusCode, 201)
  const monitor = created.json()
  t.match(monitor, { name: 'weekday rows', tool: 'counter', status: 'active', schedule: { cron: '0 8 * * 1-5', tz: 'Europe/Berlin' }, webhook: { url: 'https://hooks.example/x' }, next_run_at: '2026-12-01T07:00:00.000Z' })
  t.notOk(JSON.stringify(monitor).includes('s3cret'), 'the webhook secret is never shown')

  // Scoped tokens reach only the monitors of their tools; other accounts see nothing.
  const mint = await call(app, user.apiKey, 'POST', '/api/auth/tokens', { name: 'products only', tools: ['products'] })
  const scoped = mint.json().token as string
  t.equal((await call(app, scoped, 'GET', `/api/monitors/${monitor.monitor_id}`)).statusCode, 404)
  t.equal((await call(app, scoped, 'GET', '/api/monitors')).json().count, 0)
  t.equal((await call(app, scoped, 'POST', '/api/monitors', { tool: 'counter', schedule: { every: '1h' } })).statusCode, 403)
  const other = await signup(app)
  for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/run'], ['POST', '/pause'], ['POST', '/resume'], ['GET', '/changes'], ['GET', '/changes.csv']] as const) {
    const res = await call(app, other.apiKey, method, `/api/monitors/${monitor.monitor_id}${path}`, method === 'PATCH' ? { name: 'x' } : undefined)
    t.equal(res.statusCode, 404, `${method} ${path} of another account's monitor`)
  }

  // Change, pause, resume, delete.
  const patched = await call(app, user.apiKey, 'PATCH', `/api/monitors/${monitor.monitor_id}`, { schedule: { every: '2h' }, name: 'every two hours' })
  t.match(patched.json(), { name: 'every two hours', schedule: { every: '2h' }, next_run_at: '2026-11-30T08:00:00.000Z' })
  t.equal((await call(app, user.apiKey, 'PATCH', `/api/monitors/${monitor.monitor_id}`, { schedule: { every: '10m' } })).statusCode, 400)
  const paused = (await call(app, user.apiKey, 'POST', `/api/monitors/${monitor.monitor_id}/pause`)).json()
  t.match(paused, { status: 'paused', paused_reason: 'Paused by its owner.', next_run_at: null })
  clock.set('2026-11-30T09:00:00Z')
  t.equal(await scheduler(app).pass(), 0, 'a paused monitor does not run')
  t.match((await call(app, user.apiKey, 'POST', `/api/monitors/${monitor.monitor_id}/resume`)).json(), { status: 'active', next_run_at: '2026-11-30T10:00:00.000Z' })
  t.equal((await call(app, user.apiKey, 'GET', `/api/monitors/${monitor.monitor_id}/changes`)).statusCode, 404, 'no run yet')

  // The cap on monitors per account (registered: 10).
  for (let i = 1; i < 10; i++) t.equal((await call(app, user.apiKey, 'POST', '/api/monitors', { tool: 'counter', schedule: { every: '1d' } })).statusCode, 201)
  const eleventh = await call(app, user.apiKey, 'POST', '/api/monitors', { tool: 'counter', schedule: { every: '1d' } })
  t.equal(eleventh.statusCode, 429)
  t.match(eleventh.json().detail, /at most 10 monitors/)
  t.match((await call(app, user.apiKey, 'DELETE', `/api/monitors/${monitor.monitor_id}`)).json(), { deleted: true })
  t.equal((await call(app, user.apiKey, 'GET', '/api/monitors')).json().count, 9)

  // Pro: five minutes.
  const pro = await signup(app)
  t.equal((await call(app, pro.apiKey, 'POST', '/api/auth/claim-pro')).statusCode, 200)
  t.equal((await call(app, pro.apiKey, 'POST', '/api/monitors', { tool: 'counter', schedule: { every: '5m' } })).statusCode, 201)
})

t.test('a monitor of a stand-in store: added, removed, changed and duplicates exact, run by the scheduler on a fake clock', async t => {
  const clock = manualClock('2026-11-30T07:59:00Z')
  const app = await build(t, { clock, distributed: false, env: { TOOLS_CONFIG: toolsConfig(t), ALLOW_PRIVATE_TARGETS: '1' } })
  const user = await signup(app)
  const { store, base } = await standInStore(t)
  store.products = [{ id: 1, title: 'Chair', price: '10.00' }, { id: 2, title: 'Table', price: '50.00' }, { id: 3, title: 'Lamp', price: '20.00' }]
  const monitor = (await call(app, user.apiKey, 'POST', '/api/monitors', { tool: 'products', params: { url: base, platform: 'shopify' }, schedule: { every: '1h' } })).json()
  t.equal(monitor.next_run_at, '2026-11-30T08:00:00.000Z')
  t.equal(await scheduler(app).pass(), 0, 'nothing before its tick')

  clock.set('2026-11-30T08:00:00Z')
  t.equal(await scheduler(app).pass(), 1)
  t.equal(await scheduler(app).pass(), 0, 'one tick, one run: a second pass finds it done')
  const first = await lastRun(app, user, monitor.monitor_id)
  t.match(first, { status: 'done', records: 3, monitor: { monitor_id: monitor.monitor_id, changes: { added: 3, removed: 0, changed: 0, duplicates: 0, first_run: true } } })

  // The store changes: Chair gone, Table cheaper, Desk new; Lamp as it was.
  store.products = [{ id: 2, title: 'Table', price: '45.00' }, { id: 3, title: 'Lamp', price: '20.00' }, { id: 4, title: 'Desk', price: '99.00' }]
  clock.set('2026-11-30T09:00:30Z')
  t.equal(await scheduler(app).pass(), 1)
  const second = await lastRun(app, user, monitor.monitor_id)
  t.same(second.monitor.changes, { added: 1, removed: 1, changed: 1, duplicates: 0, first_run: false })
  const changes = (await call(app, user.apiKey, 'GET', `/api/monitors/${monitor.monitor_id}/changes?run=${second.job_id}`)).json()
  t.equal(changes.added.length, 1)
  t.match(changes.added[0], { key: { store_url: base, id: '4' }, after: { title: 'Desk', price: 99 } })
  t.same(changes.removed.map((c: any) => [c.key.id, c.before.title]), [['1', 'Chair']])
  t.same(changes.changed.map((c: any) => [c.key.id, c.fields]), [['2', { price: { before: 50, after: 45 }, price_max: { before: 50, after: 45 } }]])
  t.same(changes.duplicates, [])
  t.equal(changes.changes.added, 1, 'the counts come with the lists')

  // Exports, like results.
  const csv = await call(app, user.apiKey, 'GET', `/api/monitors/${monitor.monitor_id}/changes.csv?run=${second.job_id}`)
  t.equal(csv.statusCode, 200)
  t.match(csv.headers['content-type'], /text\/csv/)
  const lines = csv.body.replace(/^\uFEFF/, '').trim().split(/\r?\n/)
  t.equal(lines[0], 'change,key,before,after,occurrence')
  t.same(lines.slice(1).map(l => l.split(',')[0]).sort(), ['added', 'changed', 'removed'])
  const jsonl = (await call(app, user.apiKey, 'GET', `/api/monitors/${monitor.monitor_id}/changes.jsonl?run=${second.job_id}`)).body.trim().split('\n').map(l => JSON.parse(l))
  t.same(jsonl.find((c: any) => c.change === 'changed'), { change: 'changed', key: { store_url: base, id: '2' }, before: { price: 50, price_max: 50 }, after: { price: 45, price_max: 45 } })
  const json = await call(app, user.apiKey, 'GET', `/api/monitors/${monitor.monitor_id}/changes.json`)
  t.equal(json.json().length, 3, 'the latest run by default')
  const xlsx = await call(app, user.apiKey, 'GET', `/api/monitors/${monitor.monitor_id}/changes.xlsx`)
  t.equal(xlsx.statusCode, 200)
  t.equal(xlsx.rawPayload.subarray(0, 2).toString(), 'PK')
  t.equal((await call(app, user.apiKey, 'GET', `/api/monitors/${monitor.monitor_id}/changes.pdf`)).statusCode, 400)

  // Two rows with one identity: both kept and compared, the second reported.
  store.products = [{ id: 2, title: 'Table', price: '45.00' }, { id: 3, title: 'Lamp', price: '20.00' }, { id: 4, title: 'Desk', price: '99.00' }, { id: 3, title: 'Lamp (blue)', price: '22.00' }]
  const now = await call(app, user.apiKey, 'POST', `/api/monitors/${monitor.monitor_id}/run`)
  t.equal(now.statusCode, 202)
  t.equal(now.json().monitor_id, monitor.monitor_id)
  const third = await waitForEnd(app, user.apiKey, now.json().job_id, 60_000)
  t.equal(third.records, 4, 'no row lost')
  t.same(third.monitor.changes, { added: 1, removed: 0, changed: 0, duplicates: 1, first_run: false })
  const dup = (await call(app, user.apiKey, 'GET', `/api/monitors/${monitor.monitor_id}/changes`)).json()
  t.same(dup.duplicates, [{ key: { store_url: base, id: '3' }, occurrence: 2 }])
  t.match(dup.added, [{ key: { id: '3' }, after: { title: 'Lamp (blue)', price: 22 } }])
  const detail = (await call(app, user.apiKey, 'GET', `/api/monitors/${monitor.monitor_id}`)).json()
  t.same(detail.runs.map((r: any) => [r.trigger, r.status, r.changes?.added]), [['now', 'done', 1], ['schedule', 'done', 1], ['schedule', 'done', 3]])
  t.equal((await usageOf(app, user.apiKey)).calls_today, 3, 'each run is one charged call')

  // The baseline outlives the rows: with the runs' rows swept, the next run still compares.
  await app.services.db.resultRow.deleteMany({})
  store.products = [{ id: 2, title: 'Table', price: '45.00' }]
  clock.set('2026-11-30T10:00:00Z')
  await scheduler(app).pass()
  const fourth = await lastRun(app, user, monitor.monitor_id)
  t.same(fourth.monitor.changes, { added: 0, removed: 3, changed: 0, duplicates: 0, first_run: false })

  // Many of one kind before another: a page of changes still lists the first `limit` of each kind.
  store.products = [...Array.from({ length: 6 }, (_, i) => ({ id: 10 + i, title: `New ${i}`, price: '1.00' })), { id: 2, title: 'Table', price: '40.00' }]
  clock.set('2026-11-30T11:00:00Z')
  await scheduler(app).pass()
  const fifth = await lastRun(app, user, monitor.monitor_id)
  t.same(fifth.monitor.changes, { added: 6, removed: 0, changed: 1, duplicates: 0, first_run: false })
  const page = (await call(app, user.apiKey, 'GET', `/api/monitors/${monitor.monitor_id}/changes?limit=1`)).json()
  t.same([page.added.length, page.changed.length], [1, 1], 'one of each kind, the changed one behind six added')
  t.match(page.changed[0], { key: { id: '2' } })
})

t.test('quota exhausted: the tick is skipped with its reason; failures in a row pause the monitor', async t => {
  const clock = manualClock('2026-11-30T07:59:00Z')
  const app = await build(t, { clock, distributed: false, env: { TOOLS_CONFIG: toolsConfig(t) } })
  const user = await signup(app)
  const quiet = (await call(app, user.apiKey, 'POST', '/api/monitors', { tool: 'counter', params: { max_results: 1 }, schedule: { every: '1h' } })).json()
  await app.services.db.usageCounter.upsert({ where: { accountId_period: { accountId: user.id, period: 'd:2026-11-30' } }, create: { accountId: user.id, period: 'd:2026-11-30', calls: 50 }, update: { calls: 50 } })
  clock.set('2026-11-30T08:00:00Z')
  await scheduler(app).pass()
  const skipped = (await call(app, user.apiKey, 'GET', `/api/monitors/${quiet.monitor_id}`)).json()
  t.match(skipped.runs, [{ status: 'skipped', job_id: null, skipped: /quota|limit/i }])
  t.match(skipped, { status: 'active', failures_in_a_row: 0, last_run_id: null }, 'out of quota is not the monitor\'s failure')
  t.equal(await app.services.db.job.count({ where: { accountId: user.id } }), 0, 'no job, nothing charged')

  // Failing runs: after MAX_FAILURES_IN_A_ROW it pauses itself and says why.
  await app.services.db.usageCounter.deleteMany({ where: { accountId: user.id } })
  await call(app, user.apiKey, 'DELETE', `/api/monitors/${quiet.monitor_id}`)
  const failing = (await call(app, user.apiKey, 'POST', '/api/monitors', { tool: 'counter', params: { max_results: 1, outcome: 'input' }, schedule: { every: '1h' } })).json()
  for (let i = 1; i <= MAX_FAILURES_IN_A_ROW; i++) {
    clock.set(new Date(Date.parse('2026-11-30T08:00:00Z') + i * 3_600_000))
    t.equal(await scheduler(app).pass(), 1)
    t.equal((await lastRun(app, user, failing.monitor_id)).status, 'error')
  }
  const after = (await call(app, user.apiKey, 'GET', `/api/monitors/${failing.monitor_id}`)).json()
  t.match(after, { status: 'paused', failures_in_a_row: MAX_FAILURES_IN_A_ROW, paused_reason: new RegExp(`Paused after ${MAX_FAILURES_IN_A_ROW} failed runs in a row`), next_run_at: null })
  clock.set('2026-12-01T08:00:00Z')
  t.equal(await scheduler(app).pass(), 0, 'a paused monitor stays quiet')
})

t.test('one batch, two accounts: one affords only part (its first ticks run, the rest skip with the quota\'s reason); a monitor paused after the batch was read does not run', async t => {
  const clock = manualClock('2026-11-30T07:59:00Z')
  const app = await build(t, { clock, distributed: false, env: { TOOLS_CONFIG: toolsConfig(t) } })
  const { db, monitors } = app.services
  const [poor, rich] = [await signup(app), await signup(app)]
  const create = async (user: TestUser) => (await call(app, user.apiKey, 'POST', '/api/monitors', { tool: 'counter', params: { max_results: 1 }, schedule: { every: '1h' } })).json().monitor_id as string
  const poorIds: string[] = []
  const richIds: string[] = []
  for (let i = 0; i < 4; i++) { poorIds.push(await create(poor)); richIds.push(await create(rich)) }
  // Two calls left today (registered: 50).
  await db.usageCounter.create({ data: { accountId: poor.id, period: 'd:2026-11-30', calls: 48, records: 0 } })
  clock.set('2026-11-30T08:00:00Z')
  const due = await monitors.due(clock(), 500)
  t.equal(due.length, 8, 'one read: the eight monitors with their accounts')
  t.ok(due.every(m => m.account.id === m.accountId))
  const paused = richIds[3]!
  t.equal((await call(app, rich.apiKey, 'POST', `/api/monitors/${paused}/pause`)).statusCode, 200)

  const { outcomes, failures } = await monitors.fireDueBatch(due, clock())
  t.same(failures, [])
  // A batch takes one account's monitors in the read's order (by id): the first two of the poor account's start.
  const poorInOrder = [...poorIds].sort()
  t.same(poorInOrder.map(id => outcomes.get(id)), ['started', 'started', 'skipped', 'skipped'])
  t.same(richIds.map(id => outcomes.get(id)), ['started', 'started', 'started', 'skipped'])
  for (const id of poorInOrder.slice(2)) {
    const m = (await call(app, poor.apiKey, 'GET', `/api/monitors/${id}`)).json()
    t.match(m, { status: 'active', failures_in_a_row: 0, last_run_id: null, next_run_at: '2026-11-30T09:00:00.000Z' }, 'out of quota is not the monitor\'s failure')
    t.match(m.runs, [{ tick: '2026-11-30T08:00:00.000Z', trigger: 'schedule', status: 'skipped', job_id: null, skipped: /^Daily quota of 50 calls/ }])
  }
  t.equal((await usageOf(app, poor.apiKey)).calls_today, 50, 'the two it could afford, charged')
  t.equal((await usageOf(app, rich.apiKey)).calls_today, 3)
  t.match((await call(app, rich.apiKey, 'GET', `/api/monitors/${paused}`)).json(), { status: 'paused', next_run_at: null, runs: [] }, 'paused: no tick, no run, not rescheduled')
  t.equal(await db.job.count({ where: { monitorId: paused } }), 0)
  for (const id of [...poorInOrder.slice(0, 2), ...richIds.slice(0, 3)]) {
    const m = (await call(app, (poorIds.includes(id) ? poor : rich).apiKey, 'GET', `/api/monitors/${id}`)).json()
    t.match(m, { next_run_at: '2026-11-30T09:00:00.000Z', runs: [{ trigger: 'schedule', job_id: m.last_run_id }] })
    t.match(await db.job.findUniqueOrThrow({ where: { id: m.last_run_id } }), { monitorId: id, accountId: poorIds.includes(id) ? poor.id : rich.id })
    await lastRun(app, poorIds.includes(id) ? poor : rich, id)
  }
  t.equal(await scheduler(app).pass(), 0, 'one tick, one run: nothing left due')
})

t.test('restarts: a tick missed while down runs once at start and says so; a restart in the middle of a tick makes one run', async t => {
  const clock = manualClock('2026-11-30T07:59:00Z')
  const env = { TOOLS_CONFIG: toolsConfig(t) }
  const first = await build(t, { clock, distributed: false, env })
  const { dataDir, databaseUrl } = first.services.config
  const user = await signup(first)
  const create = async () => (await call(first, user.apiKey, 'POST', '/api/monitors', { tool: 'counter', params: { max_results: 1 }, schedule: { every: '1h' } })).json()
  const missed = await create()
  const halfTicked = await create()
  const halfStarted = await create()

  // Two monitors were in the middle of their 10:00 tick when the process stopped: one had
  // recorded its tick, the other had also started its job (its tick not yet updated).
  const tick = '2026-11-30T10:00:00.000Z'
  const fdb = first.services.db
  for (const m of [halfTicked, halfStarted]) await fdb.monitorTick.create({ data: { id: `t-${m.monitor_id}`, monitorId: m.monitor_id, tick, scheduledFor: new Date(tick), trigger: 'missed', createdAt: clock() } })
  const account = await fdb.account.findUniqueOrThrow({ where: { id: user.id } })
  const caller = { account, tier: 'registered' as const, principal: { kind: 'personal' as const, account, tier: 'registered' as const, keyId: 'x' } }
  const early = await first.services.jobs.start({ caller, tool: 'counter', params: { max_results: 1 }, idempotencyKey: `monitor:${halfStarted.monitor_id}:${tick}`, monitorId: halfStarted.monitor_id })
  await first.close()

  // Down while 08:00, 09:00 and 10:00 passed; the start's first pass fires each monitor once.
  clock.set('2026-11-30T10:20:00Z')
  const second = await build(t, { clock, distributed: false, env, dataDir, databaseUrl })
  const sdb = second.services.db
  for (const m of [missed, halfTicked, halfStarted]) {
    const jobs = await sdb.job.findMany({ where: { monitorId: m.monitor_id } })
    t.equal(jobs.length, 1, 'one run for the ticks that passed')
    const ticks = await sdb.monitorTick.findMany({ where: { monitorId: m.monitor_id } })
    t.same(ticks.map(x => [x.tick, x.trigger, x.jobId]), [[tick, 'missed', jobs[0]!.id]], 'the latest tick, said missed')
    t.equal((await sdb.monitor.findUniqueOrThrow({ where: { id: m.monitor_id } })).nextRunAt?.toISOString(), '2026-11-30T11:00:00.000Z')
  }
  t.equal((await sdb.job.findMany({ where: { monitorId: halfStarted.monitor_id } }))[0]!.id, early.job_id, 'the job the stopped process started is the tick\'s run')
  for (const m of [missed, halfTicked, halfStarted]) await lastRun(second, user, m.monitor_id)
})

// Several processes share one database only on PostgreSQL (README, Scale-out): two apps on one SQLite
// file meet SQLITE_BUSY under load, which pushes ticks into later passes past this test's reads.
const sharedDatabase = testDatabaseKind() === 'postgresql' ? false : 'two processes share a database only on PostgreSQL (the PostgreSQL suite runs this)'
t.test('two processes on one database: one tick, one run', { skip: sharedDatabase }, async t => {
  const clock = manualClock('2026-11-30T07:59:00Z')
  const env = { TOOLS_CONFIG: toolsConfig(t) }
  const a = await build(t, { clock, distributed: false, env })
  const { dataDir, databaseUrl } = a.services.config
  const b = await build(t, { clock, distributed: false, env, dataDir, databaseUrl })
  const user = await signup(a)
  const ids: string[] = []
  for (let i = 0; i < 5; i++) ids.push((await call(a, user.apiKey, 'POST', '/api/monitors', { tool: 'counter', params: { max_results: 1 }, schedule: { every: '1h' } })).json().monitor_id)
  clock.set('2026-11-30T08:00:00Z')
  await Promise.all([scheduler(a).pass(), scheduler(b).pass(), scheduler(a).pass()])
  // Two processes writing one SQLite file can meet a busy database mid-tick (SQLITE_BUSY): that
  // fire fails, its monitor stays due, and a later pass finishes the tick (its start is
  // idempotent on the tick). Passes until none is due, as the schedulers' timers would.
  for (let i = 0; i < 10 && await a.services.db.monitor.count({ where: { id: { in: ids }, nextRunAt: { lte: clock() } } }) > 0; i++) await scheduler(b).pass()
  t.equal(await a.services.db.job.count({ where: { monitorId: { in: ids } } }), 5, 'five monitors, five runs')
  t.equal(await a.services.db.monitorTick.count({ where: { monitorId: { in: ids } } }), 5)
  for (const id of ids) await lastRun(a, user, id)
})

t.test('with Redis: two worker processes, BullMQ job schedulers, one tick, one run', async t => {
  const redis = await startRedis(t)
  const env = { TOOLS_CONFIG: toolsConfig(t), REDIS_URL: redis.url, RUN_JOBS: '1', WORKER_SHUTDOWN_GRACE_MS: '0' }
  const logLines: string[] = []
  const a = await build(t, { env, distributed: false, logLines })
  const { dataDir, databaseUrl } = a.services.config
  const b = await build(t, { env, dataDir, databaseUrl, distributed: false })
  const user = await signup(a)
  t.equal((await call(a, user.apiKey, 'POST', '/api/auth/claim-pro')).statusCode, 200)
  const monitor = (await call(a, user.apiKey, 'POST', '/api/monitors', { tool: 'counter', params: { max_results: 1 }, schedule: { every: '5m' } })).json()
  // The scheduler's next tick is minutes away: this upsert plans one now, as if that time had come.
  const tickAt = new Date(Math.floor(Date.now() / 300_000) * 300_000)
  await a.services.db.monitor.update({ where: { id: monitor.monitor_id }, data: { nextRunAt: tickAt } })
  const bullA = a.services.monitorScheduler as unknown as { scheduled (m: unknown): Promise<void>, unscheduled (id: string): Promise<void> }
  const bullB = b.services.monitorScheduler as unknown as { scheduled (m: unknown): Promise<void> }
  await bullA.unscheduled(monitor.monitor_id)
  await Promise.all([bullA.scheduled({ id: monitor.monitor_id, schedule: { every: '5m' }, nextRunAt: new Date() }), bullB.scheduled({ id: monitor.monitor_id, schedule: { every: '5m' }, nextRunAt: new Date() })])
  const deadline = Date.now() + 20_000
  const ended = new Promise<string>((resolve, reject) => {
    const check = async () => {
      const job = await a.services.db.job.findFirst({ where: { monitorId: monitor.monitor_id } })
      if (job) return resolve(job.id)
      if (Date.now() > deadline) return reject(new Error(`no run: ${logLines.filter(l => /tick|monitor|error/i.test(l)).join('\n')}`))
      setTimeout(() => { void check() }, 50)
    }
    void check()
  })
  const jobId = await ended
  await waitForEnd(a, user.apiKey, jobId, 60_000)
  // Both processes fire the same tick again by hand: still the one run.
  await Promise.all([a.services.monitors.fire(monitor.monitor_id, tickAt, 'schedule'), b.services.monitors.fire(monitor.monitor_id, tickAt, 'schedule')])
  t.equal(await a.services.db.job.count({ where: { monitorId: monitor.monitor_id } }), 1, 'one run')
  t.equal(await a.services.db.monitorTick.count({ where: { monitorId: monitor.monitor_id } }), 1, 'one tick')
})

t.test('with Redis: ticks taken together are fired as one batch, each tick one run; a paused monitor\'s tick runs nothing; a second tick of the same time is the same run', async t => {
  const redis = await startRedis(t)
  const env = { TOOLS_CONFIG: toolsConfig(t), REDIS_URL: redis.url, RUN_JOBS: '1', WORKER_SHUTDOWN_GRACE_MS: '0' }
  // Weeks ahead of BullMQ's clock: each tick fires at this instant (its time or later), in the 08:00 tick, and
  // the app's own job schedulers (at the next tick of this clock) never come during the test.
  const clock = manualClock('2027-01-04T08:00:30Z')
  const app = await build(t, { clock, env, distributed: false })
  const { db, monitors, logger } = app.services
  const user = await signup(app)
  t.equal((await call(app, user.apiKey, 'POST', '/api/auth/claim-pro')).statusCode, 200)
  const ids: string[] = []
  for (let i = 0; i < 4; i++) ids.push((await call(app, user.apiKey, 'POST', '/api/monitors', { tool: 'counter', params: { max_results: 1 }, schedule: { every: '5m' } })).json().monitor_id)
  const paused = ids[3]!
  t.equal((await call(app, user.apiKey, 'POST', `/api/monitors/${paused}/pause`)).statusCode, 200)
  // What the batches read, and what they fired once fired (the start's pass fires an empty one: not counted).
  const read: string[][] = []
  const fired: string[][] = []
  const running = monitors.running.bind(monitors)
  const fireDueBatch = monitors.fireDueBatch.bind(monitors)
  monitors.running = async ids => { read.push([...ids].sort()); return running(ids) }
  monitors.fireDueBatch = async (batch, now) => {
    const outcome = await fireDueBatch(batch, now)
    if (batch.length) fired.push(batch.map(m => m.id).sort())
    return outcome
  }
  // A scheduler of the test's own, on a queue of its own (the app's own ticks are weeks away), gathering
  // for long enough that ticks waiting in Redis when its worker starts are one batch on any machine.
  const scheduler = new BullMonitorScheduler({ redisUrl: redis.url, keyPrefix: 'batch-test', runJobs: true, monitors, clock, logger, gatherMs: 2000 })
  t.teardown(() => scheduler.stop())
  // Four ticks due now (BullMQ's time), in Redis before the worker runs (the paused monitor's too, as if planned before its pause).
  await Promise.all(ids.map(id => scheduler.scheduled({ id, schedule: { every: '5m' }, nextRunAt: new Date() })))
  await scheduler.start()
  const runs = (id: string) => db.job.findMany({ where: { monitorId: id } })
  await until('a batch fired', async () => fired.length > 0)
  t.same(read, [[...ids].sort()], 'the four ticks taken, read together')
  t.same(fired, [ids.slice(0, 3).sort()], 'fired as one batch, without the paused monitor')
  t.equal(await db.job.count({ where: { monitorId: { in: ids } } }), 3, 'three runs')
  for (const id of ids.slice(0, 3)) {
    const [job] = await runs(id)
    t.same((await db.monitorTick.findMany({ where: { monitorId: id } })).map(x => [x.tick, x.trigger, x.jobId]), [['2027-01-04T08:00:00.000Z', 'schedule', job!.id]], 'one tick, its run')
    t.equal((await db.monitor.findUniqueOrThrow({ where: { id } })).lastRunId, job!.id)
  }
  t.equal(await db.monitorTick.count({ where: { monitorId: paused } }), 0, 'paused: no tick, no run')
  // Another tick job for the same schedule tick (a redelivery, a second process's): the tick is recorded, no second run.
  await scheduler.unscheduled(ids[0]!)
  await scheduler.scheduled({ id: ids[0]!, schedule: { every: '5m' }, nextRunAt: new Date() })
  await until('the second tick fired', async () => fired.length > 1)
  t.same(fired[1], [ids[0]])
  t.equal((await runs(ids[0]!)).length, 1, 'still one run')
  t.equal(await db.monitorTick.count({ where: { monitorId: ids[0]! } }), 1, 'still one tick')
  for (const id of ids.slice(0, 3)) await lastRun(app, user, id)
})
