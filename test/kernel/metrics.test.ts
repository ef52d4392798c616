// Prometheus metrics (core/metrics): exact deltas after a job of each outcome,
// every refusal counted, labels bounded whatever the URLs and accounts, the
// admin key on GET /metrics, METRICS_PORT's own listener, METRICS=0.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { parseExposition, scrape, valueOf } from '../helpers/metrics.ts'
import { ADMIN_KEY, build, signup, tempDir, migratedDatabaseUrl } from '../helpers/build.ts'
import { buildWithCounter, waitForEnd } from '../helpers/jobs.ts'
import { buildServices } from '../../core/services.ts'
import { createHttpClient } from '../../core/net/http-client.ts'
import { createNetworkPolicy } from '../../core/net/network-policy.ts'
import { observedHttpClient } from '../../core/jobs/observed-network.ts'

t.test('GET /metrics: the admin key only; the exposition names the service\'s metrics', async t => {
  const app = await build(t)
  const user = await signup(app)
  t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 401)
  t.equal((await app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': user.apiKey } })).statusCode, 403)
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': ADMIN_KEY } })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  const names = new Set(parseExposition(res.body).map(s => s.name))
  for (const name of ['http_requests_total', 'jobs_started_total', 'jobs_ended_total', 'jobs_running', 'jobs_queued', 'jobs_queued_oldest_seconds', 'rows_written_total', 'upstream_requests_total', 'refusals_total', 'webhook_deliveries_total', 'process_cpu_seconds_total']) {
    t.ok(names.has(name), name)
  }
})

/** Polls until the condition holds; the deadline only turns a hang into a readable failure. */
async function until (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

async function startCounter (app: FastifyInstance, key: string, params: Record<string, unknown>): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': key }, payload: { tool: 'counter', params } })
  if (res.statusCode !== 202) throw new Error(`start answered ${res.statusCode}: ${res.body}`)
  return res.json().job_id
}

const SLOW = { max_results: 1, delay_ms: 60_000 }

t.test('each outcome of a job moves exactly its own series: started, ended, duration, queue wait, rows, running', async t => {
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '1' } })
  const user = await signup(app)
  const tool = { tool: 'counter' }
  const runOne = async (params: Record<string, unknown>, outcome: string, rows: number) => {
    const before = await scrape(app)
    const id = await startCounter(app, user.apiKey, params)
    await waitForEnd(app, user.apiKey, id)
    // The process lets go of the run (the gauge) just after its outcome is written, not before.
    await until('the run let go', async () => valueOf(await scrape(app), 'jobs_running', tool) === 0)
    const after = await scrape(app)
    const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels)
    t.equal(delta('jobs_started_total', tool), 1, `${outcome}: one run started`)
    t.equal(delta('jobs_ended_total', tool), 1, `${outcome}: one job ended`)
    t.equal(delta('jobs_ended_total', { ...tool, outcome }), 1, `${outcome}: under its outcome`)
    t.equal(delta('job_duration_seconds_count', { ...tool, outcome }), 1, `${outcome}: its duration observed`)
    t.equal(delta('job_queue_wait_seconds_count', tool), 1, `${outcome}: its queue wait observed`)
    t.equal(delta('rows_written_total', tool), rows, `${outcome}: ${rows} rows written`)
  }
  await runOne({ max_results: 3 }, 'done', 3)
  await runOne({ max_results: 3, outcome: 'input' }, 'error', 0)
  await runOne({ max_results: 5, outcome: 'upstream' }, 'refunded', 2)
  await runOne({ max_results: 5, outcome: 'blocked' }, 'blocked', 2)

  // Cancelled while it runs: counted once, whichever of the cancel and the run's own ending writes it.
  let before = await scrape(app)
  const running = await startCounter(app, user.apiKey, SLOW)
  await until('the job runs', async () => valueOf(await scrape(app), 'jobs_running', tool) === 1)
  // A second job waits behind it: the queued gauge counts it (read from the database).
  const queued = await startCounter(app, user.apiKey, SLOW)
  t.equal(valueOf(await scrape(app), 'jobs_queued', tool), 1, 'one job queued')
  // How long it has waited, from its start request (backdated two minutes): what a queue-wait alert reads when no worker claims.
  await app.services.db.job.update({ where: { id: queued }, data: { createdAt: new Date(Date.now() - 120_000) } })
  const waited = valueOf(await scrape(app), 'jobs_queued_oldest_seconds', tool)
  t.ok(waited >= 120 && waited < 180, `the oldest queued job waited ${waited} s`)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/tool-run/${queued}`, headers: { 'x-api-key': user.apiKey } })).statusCode, 200)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/tool-run/${running}`, headers: { 'x-api-key': user.apiKey } })).statusCode, 200)
  await until('the run let go', async () => valueOf(await scrape(app), 'jobs_running', tool) === 0)
  let after = await scrape(app)
  t.equal(valueOf(after, 'jobs_ended_total', { ...tool, outcome: 'cancelled' }) - valueOf(before, 'jobs_ended_total', { ...tool, outcome: 'cancelled' }), 2, 'two cancels')
  t.equal(valueOf(after, 'job_duration_seconds_count', { ...tool, outcome: 'cancelled' }) - valueOf(before, 'job_duration_seconds_count', { ...tool, outcome: 'cancelled' }), 1, 'only the one that ran has a duration')
  t.equal(valueOf(after, 'jobs_started_total', tool) - valueOf(before, 'jobs_started_total', tool), 1, 'the queued one never started')
  t.equal(valueOf(after, 'jobs_ended_total', tool) - valueOf(before, 'jobs_ended_total', tool), 2, 'two endings in all, under no other outcome')
  t.equal(valueOf(after, 'job_queue_wait_seconds_count', tool) - valueOf(before, 'job_queue_wait_seconds_count', tool), 1, 'one queue wait: the run that was claimed')
  t.equal(valueOf(after, 'jobs_queued', tool), 0, 'nothing queued')
  t.equal(valueOf(after, 'jobs_queued_oldest_seconds', tool), 0, 'no wait')

  // Interrupted: as a dead worker sharing the database leaves a job (claimed, no heartbeat for a minute), ended by the reaper.
  before = after
  const holder = await startCounter(app, user.apiKey, SLOW)
  await until('the slot is held', async () => valueOf(await scrape(app), 'jobs_running', tool) === 1)
  const orphan = await startCounter(app, user.apiKey, SLOW)
  const longAgo = new Date(Date.now() - 60_000)
  await app.services.db.job.update({ where: { id: orphan }, data: { startedAt: longAgo, heartbeatAt: longAgo, stage: 'running' } })
  t.equal(await app.services.maintenance.reapStale(), 1)
  after = await scrape(app)
  t.equal(valueOf(after, 'jobs_ended_total', { ...tool, outcome: 'interrupted' }) - valueOf(before, 'jobs_ended_total', { ...tool, outcome: 'interrupted' }), 1, 'one interrupted')
  t.equal(valueOf(after, 'job_duration_seconds_count', { ...tool, outcome: 'interrupted' }) - valueOf(before, 'job_duration_seconds_count', { ...tool, outcome: 'interrupted' }), 1, 'its duration from its claim')
  t.equal(valueOf(after, 'jobs_ended_total', tool) - valueOf(before, 'jobs_ended_total', tool), 1, 'one ending in all')
  t.equal(valueOf(after, 'jobs_started_total', tool) - valueOf(before, 'jobs_started_total', tool), 1, 'one start: the holder\'s (the orphan\'s claim was another process\'s)')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/tool-run/${holder}`, headers: { 'x-api-key': user.apiKey } })).statusCode, 200)
  // Every outcome of the table has its series from the start, at 0 or more.
  for (const outcome of ['done', 'error', 'blocked', 'refunded', 'cancelled', 'interrupted']) t.ok(after.some(s => s.name === 'jobs_ended_total' && s.labels.outcome === outcome), `${outcome} present`)
})

/** A local upstream: `/status/<code>` answers that code, anything else 200. */
async function upstream (t: { teardown (fn: () => unknown): void }): Promise<string> {
  const server = createServer((req, res) => {
    const code = /^\/status\/(\d{3})/.exec(req.url ?? '')?.[1]
    res.writeHead(code ? Number(code) : 200, { 'content-type': 'text/plain' }).end('ok')
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.closeAllConnections(); server.close() })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

t.test('upstream requests by outcome; labels stay bounded across 1,000 URLs and 100 accounts', async t => {
  const app = await buildWithCounter(t)
  const base = await upstream(t)
  const signal = new AbortController().signal
  const http = observedHttpClient(createHttpClient({ policy: createNetworkPolicy({ allowPrivateTargets: true }), userAgent: 'test', signal }), 'counter', app.services.metrics, signal)
  t.teardown(() => http.close())
  const before = await scrape(app)
  for (const code of [200, 404, 403, 451, 429, 500, 503]) await http.fetch(`${base}/status/${code}`).then(r => r.arrayBuffer())
  await http.text(`${base}/page`)
  await http.json(`${base}/status/401`).catch(() => {})
  // Nothing listens there: no answer at all.
  await t.rejects(http.fetch('http://127.0.0.1:1/closed'))
  const after = await scrape(app)
  const delta = (outcome: string) => valueOf(after, 'upstream_requests_total', { tool: 'counter', outcome }) - valueOf(before, 'upstream_requests_total', { tool: 'counter', outcome })
  t.equal(delta('ok'), 3, '200, 404 and the text read')
  t.equal(delta('blocked'), 3, '401, 403, 451')
  t.equal(delta('rate-limited'), 1, '429')
  t.equal(delta('error'), 3, '500, 503 and the refused connection')

  // 1,000 distinct upstream URLs, and 100 accounts each asking for 10 distinct API URLs (a job route and an unknown path).
  for (let i = 0; i < 1000; i++) await http.fetch(`${base}/item/${i}?q=${randomBytes(4).toString('hex')}`).then(r => r.arrayBuffer())
  const users = await Promise.all(Array.from({ length: 100 }, () => signup(app)))
  for (const [i, user] of users.entries()) {
    for (let j = 0; j < 5; j++) {
      await app.inject({ method: 'GET', url: `/api/tool-run/${randomBytes(8).toString('hex')}/status?n=${i}-${j}`, headers: { 'x-api-key': user.apiKey } })
      await app.inject({ method: 'GET', url: `/no-such-page/${user.id}/${j}`, headers: { 'x-api-key': user.apiKey } })
    }
  }
  // …and each of them runs a job: the job metrics are by tool and outcome, never by account or job.
  const jobs = await Promise.all(users.map(user => startCounter(app, user.apiKey, { max_results: 1, delay_ms: 0 })))
  for (const [i, id] of jobs.entries()) t.equal((await waitForEnd(app, users[i]!.apiKey, id, 60_000)).status, 'done')
  const samples = await scrape(app)
  const series = (name: string) => samples.filter(s => s.name === name)
  t.equal(valueOf(samples, 'jobs_ended_total', { tool: 'counter', outcome: 'done' }), 100, 'the hundred jobs, under one series')
  const routes = new Set(series('http_requests_total').map(s => s.labels.route))
  t.ok(routes.has('/api/tool-run/:id/status'), 'a job route is its pattern')
  t.ok(routes.has('(unmatched)'), 'every unknown path is one label')
  t.ok(series('http_requests_total').length < 30, `HTTP series stay few (${series('http_requests_total').length})`)
  t.equal(series('upstream_requests_total').filter(s => s.labels.tool === 'counter').length, 4, 'one upstream series per outcome')
  const labelValues = samples.flatMap(s => Object.values(s.labels))
  t.notOk(labelValues.some(v => v.includes('127.0.0.1') || v.includes('/item/') || v.includes('no-such-page') || users.some(u => v.includes(u.id)) || jobs.some(id => v.includes(id))), 'no URL, host, account or job in any label')
  t.ok(samples.length < 1000, `the whole exposition stays bounded (${samples.length} samples)`)
})

t.test('refusals: the rate limit, the job cap and the daily quota, each under its reason', async t => {
  const app = await buildWithCounter(t, { env: { RATE_LIMIT_PER_MINUTE: '100', JOB_CONCURRENCY: '1' } })
  const user = await signup(app)
  const refusals = async (reason: string) => valueOf(await scrape(app), 'refusals_total', { reason })
  // The registered tier: 2 running and 20 queued jobs, 50 calls a day.
  const cap0 = await refusals('job-cap')
  const slow = []
  for (let i = 0; i < 22; i++) slow.push(await startCounter(app, user.apiKey, SLOW))
  const capped = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'counter', params: SLOW } })
  t.equal(capped.statusCode, 429)
  t.equal(await refusals('job-cap') - cap0, 1, 'the job cap')
  for (const id of slow) await app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': user.apiKey } })
  // The day's calls spent (as 50 starts would leave them): the next start is the daily quota's.
  const quota0 = await refusals('daily-quota')
  const day = `d:${new Date().toISOString().slice(0, 10)}`
  await app.services.db.$executeRaw`UPDATE usage_counters SET calls = 50 WHERE account_id = ${user.id} AND period = ${day}`
  const spent = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'counter', params: {} } })
  t.equal(spent.statusCode, 429)
  t.equal(await refusals('daily-quota') - quota0, 1, 'the daily quota')
  // The per-IP window: ask until refused.
  const limit0 = await refusals('rate-limit')
  let status = 0
  for (let i = 0; i < 150 && status !== 429; i++) status = (await app.inject({ method: 'GET', url: '/api/tools' })).statusCode
  t.equal(status, 429)
  // The admin's scrape from the same address is not counted, so it still answers while the window is full.
  t.equal(await refusals('rate-limit') - limit0, 1, 'the rate limit, read by a scrape from the refused address')
  t.equal(await refusals('rate-limit') - limit0, 1, 'and again: scrapes are not refused, nor counted')
  // Another key's read of /metrics is counted (and refused: it is the admin's route).
  t.equal((await app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': user.apiKey } })).statusCode, 429, 'a non-admin /metrics request is counted like any other')
})

t.test('METRICS_PORT: a worker serves its own metrics on its own port without a key; METRICS=0 serves and counts nothing', async t => {
  const dataDir = tempDir(t)
  const databaseUrl = await migratedDatabaseUrl(t, dataDir)
  const host = await buildServices({ env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, SECRET_KEY: 'test-secret-key-0123456789', LOG_LEVEL: 'silent', METRICS_PORT: '0', EXTRACT_WORKERS: '1' } })
  await host.start()
  t.teardown(() => host.close())
  const port = host.metricsPort()
  t.ok(port, 'listening')
  const res = await fetch(`http://127.0.0.1:${port}/metrics`)
  t.equal(res.status, 200)
  t.ok(parseExposition(await res.text()).some(s => s.name === 'jobs_started_total'), 'the job metrics')
  t.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404, 'nothing else on that port')

  const off = await build(t, { env: { METRICS: '0' } })
  t.equal((await off.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': ADMIN_KEY } })).statusCode, 404, 'no route')
  t.equal(off.services.metrics.enabled, false)
})
