// Webhook deliveries (core/webhooks): every attempt recorded, retries on the
// backoff schedule until the window ends (dead), redelivery, the account's
// default webhook, Standard Webhooks signatures a `standardwebhooks` receiver
// verifies (and its refusal of replays), deliveries that survive a restart,
// one send per attempt when several processes poll the same database, and a
// monitor's `monitor.changed` (when it is sent, its body, its targets and the
// `changed` event of every events list).
// Time is a manual clock: a retry is made by moving it and running what is due,
// never by waiting.
import t from 'tap'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { createHmac } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { Webhook } from 'standardwebhooks'
import { manualClock } from '../../core/clock.ts'
import { freshDatabaseUrl, signup, tempDir, type BuildTestOptions } from '../helpers/build.ts'
import { buildWithCounter, waitForEnd } from '../helpers/jobs.ts'
import { call, mintToken } from '../kernel/_kernel.ts'
import { scrape, valueOf } from '../helpers/metrics.ts'
import { CHANGES_PER_KIND_IN_A_WEBHOOK } from '../../core/monitors/monitor-runs.ts'

type Teardown = Parameters<typeof buildWithCounter>[0]
interface Received { headers: IncomingHttpHeaders, body: string }

/** A local receiver: `answer(n)` (n = 1 for the first request) gives the status, or null to never answer. */
async function receiver (t: Teardown, answer: (n: number, request: Received) => number | null) {
  const requests: Received[] = []
  const hanging = new Set<() => void>()
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', c => { body += c })
    req.on('end', () => {
      const request = { headers: req.headers, body }
      requests.push(request)
      const status = answer(requests.length, request)
      if (status === null) { hanging.add(() => res.destroy()); return }
      res.statusCode = status
      res.end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { for (const cut of hanging) cut(); server.closeAllConnections(); server.close() })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/token-123`, requests, answer: (next: typeof answer) => { answer = next } }
}

const put = (app: FastifyInstance, url: string, key: string, payload: unknown) =>
  app.inject({ method: 'PUT', url, headers: { 'x-api-key': key }, payload: payload as object })

const appWith = (t: Teardown, clock: ReturnType<typeof manualClock>, env: Record<string, string> = {}, more: BuildTestOptions = {}) =>
  buildWithCounter(t, { clock, distributed: false, ...more, env: { ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_RETRY_BASE_MS: '1000', ...env, ...more.env } })

/** Runs a counter job to its end and, when it has a target, to its delivery's first recorded attempt. */
async function runJob (app: FastifyInstance, apiKey: string, webhook?: Record<string, unknown>, params: Record<string, unknown> = { max_results: 1 }, attempted = true): Promise<string> {
  const attempts: string[] = []
  let heard: () => void = () => {}
  const firstAttempt = new Promise<void>(resolve => { heard = resolve })
  const stop = app.services.webhooks.onAttempt(o => { if (o.jobId) attempts.push(o.jobId); heard() })
  try {
    const res = await call(app, 'POST', '/api/tool-run', apiKey, { tool: 'counter', params, ...(webhook ? { webhook } : {}) })
    if (res.statusCode !== 202) throw new Error(`start answered ${res.statusCode}: ${res.body}`)
    const id = res.json().job_id as string
    await waitForEnd(app, apiKey, id)
    while (attempted && !attempts.includes(id)) await firstAttempt
    return id
  } finally {
    stop()
  }
}

const deliveriesOf = async (app: FastifyInstance, apiKey: string, jobId: string) => {
  const res = await call(app, 'GET', `/api/jobs/${jobId}/webhooks`, apiKey)
  if (res.statusCode !== 200) throw new Error(`deliveries answered ${res.statusCode}: ${res.body}`)
  return res.json().deliveries as Array<Record<string, any>>
}

/** Moves the clock to the delivery's next attempt and runs what is due. */
async function nextAttempt (app: FastifyInstance, clock: ReturnType<typeof manualClock>, apiKey: string, jobId: string) {
  const [delivery] = await deliveriesOf(app, apiKey, jobId)
  clock.set(delivery!.next_attempt_at)
  await app.services.webhooks.runDue()
}

t.test('a receiver that fails three times then succeeds: four attempts on the backoff schedule, each recorded, each signed', async t => {
  const clock = manualClock()
  const hook = await receiver(t, n => (n <= 3 ? 500 : 204))
  const app = await appWith(t, clock)
  const user = await signup(app)
  const jobId = await runJob(app, user.apiKey, { url: hook.url, secret: 's3cret' })

  let [delivery] = await deliveriesOf(app, user.apiKey, jobId)
  t.match(delivery, { event: 'job.done', status: 'pending', attempts: 1, target: new URL(hook.url).origin, delivered_at: null })
  t.equal(Date.parse(delivery!.next_attempt_at) - clock().getTime(), 1000, 'the first retry is WEBHOOK_RETRY_BASE_MS later')

  clock.advance(999)
  t.equal(await app.services.webhooks.runDue(), 0, 'nothing is sent before its time')
  for (let i = 0; i < 3; i++) await nextAttempt(app, clock, user.apiKey, jobId)
  ;[delivery] = await deliveriesOf(app, user.apiKey, jobId)
  t.match(delivery, { status: 'delivered', attempts: 4, next_attempt_at: null })
  t.ok(delivery!.delivered_at, 'delivered_at is set')
  const log = [...delivery!.attempt_log].reverse()
  t.same(log.map((a: any) => a.http_status), [500, 500, 500, 204])
  t.same(log.map((a: any) => a.error === null), [false, false, false, true], 'a failed attempt says why')
  t.match(log[0].error, /HTTP 500/)
  const gaps = log.slice(1).map((a: any, i: number) => Date.parse(a.at) - Date.parse(log[i].at))
  t.same(gaps, [1000, 2000, 4000], 'the delay doubles')
  t.ok(log.every((a: any) => Number.isInteger(a.duration_ms) && a.duration_ms >= 0), 'each attempt has its duration')
  t.equal(log[3].next_attempt_at, null)

  t.equal(hook.requests.length, 4)
  const ids = new Set(hook.requests.map(r => r.headers['webhook-id']))
  t.same([...ids], [delivery!.id], 'one webhook-id across the attempts')
  const verifier = new Webhook('s3cret', { format: 'raw' })
  for (const request of hook.requests) {
    t.match(verifier.verify(request.body, request.headers as Record<string, string>), { event: 'job.done', job: { job_id: jobId, status: 'done' } }, 'standardwebhooks verifies the attempt (raw secret)')
    t.equal(request.headers['x-signature'], `sha256=${createHmac('sha256', 's3cret').update(request.body).digest('hex')}`, 'and X-Signature is kept')
  }
  t.not(hook.requests[0]!.headers['webhook-timestamp'], hook.requests[3]!.headers['webhook-timestamp'], 'each attempt is signed at its own time')
})

t.test('a receiver that always fails: dead at the end of the window; redelivery sends it again with the same id', async t => {
  const clock = manualClock()
  const hook = await receiver(t, () => 503)
  const app = await appWith(t, clock, { WEBHOOK_RETRY_WINDOW_MS: '60000' })
  const user = await signup(app)
  const other = await signup(app)
  const jobId = await runJob(app, user.apiKey, { url: hook.url })

  for (let i = 0; i < 20; i++) {
    const [d] = await deliveriesOf(app, user.apiKey, jobId)
    if (d!.status !== 'pending') break
    await nextAttempt(app, clock, user.apiKey, jobId)
  }
  let [delivery] = await deliveriesOf(app, user.apiKey, jobId)
  // Delays 1, 2, 4, 8 s, then capped at a quarter of the window (15 s): attempts at 0, 1, 3, 7, 15, 30, 45 and 60 s; the next (75 s) would pass it.
  t.match(delivery, { status: 'dead', attempts: 8, next_attempt_at: null, delivered_at: null })
  t.equal(delivery!.attempt_log[0].next_attempt_at, null, 'the last attempt names no next one')
  t.ok(delivery!.attempt_log.slice(1).every((a: any) => a.next_attempt_at !== null))
  t.same([...new Set(hook.requests.map(r => r.headers['webhook-signature']))], [undefined], 'no secret, no signature')
  t.ok(hook.requests.every(r => typeof r.headers['webhook-id'] === 'string' && /^\d+$/.test(String(r.headers['webhook-timestamp']))), 'id and timestamp still sent')
  clock.advance(3_600_000)
  t.equal(await app.services.webhooks.runDue(), 0, 'a dead delivery is not retried')

  t.equal((await call(app, 'POST', `/api/jobs/${jobId}/webhooks/redeliver`, other.apiKey, {})).statusCode, 404, 'another account: the job is unknown')
  t.equal((await call(app, 'GET', `/api/jobs/${jobId}/webhooks`, other.apiKey)).statusCode, 404)
  hook.answer(() => 200)
  const redelivered = await call(app, 'POST', `/api/jobs/${jobId}/webhooks/redeliver`, user.apiKey, {})
  t.equal(redelivered.statusCode, 202)
  t.match(redelivered.json(), { id: delivery!.id, status: 'pending' })
  await app.services.webhooks.idle()
  ;[delivery] = await deliveriesOf(app, user.apiKey, jobId)
  t.match(delivery, { status: 'delivered', attempts: 9 })
  t.equal(hook.requests.at(-1)!.headers['webhook-id'], delivery!.id, 'the same webhook-id: a receiver that saw it may drop it')

  const unknown = await call(app, 'POST', `/api/jobs/${jobId}/webhooks/redeliver`, user.apiKey, { delivery_id: 'msg_nope' })
  t.equal(unknown.statusCode, 409)
  const bare = await runJob(app, user.apiKey, undefined, undefined, false)
  const none = await call(app, 'POST', `/api/jobs/${bare}/webhooks/redeliver`, user.apiKey, {})
  t.equal(none.statusCode, 409, 'a job with no webhook and no account default')
  t.match(none.json().detail, /PUT \/api\/account\/webhook/)
  t.same(await deliveriesOf(app, user.apiKey, bare), [])
})

t.test('metrics: each attempt counted once under its outcome (retrying, delivered, dead) and timed; no event, target or id in a label', async t => {
  const clock = manualClock()
  const flaky = await receiver(t, n => (n <= 3 ? 500 : 204))
  const down = await receiver(t, () => 503)
  const app = await appWith(t, clock, { WEBHOOK_RETRY_WINDOW_MS: '60000' })
  const user = await signup(app)
  const deltas = async (work: () => Promise<unknown>) => {
    const before = await scrape(app)
    await work()
    const after = await scrape(app)
    const delta = (name: string, outcome: string) => valueOf(after, name, { outcome }) - valueOf(before, name, { outcome })
    return {
      counted: Object.fromEntries(['retrying', 'delivered', 'dead'].map(o => [o, delta('webhook_deliveries_total', o)])),
      timed: Object.fromEntries(['retrying', 'delivered', 'dead'].map(o => [o, delta('webhook_attempt_duration_seconds_count', o)])),
      samples: after,
    }
  }
  /** Runs a job whose end goes to `url`, then each retry as it falls due, until the delivery is no longer pending. */
  const deliver = async (url: string) => {
    const jobId = await runJob(app, user.apiKey, { url })
    for (let i = 0; i < 20 && (await deliveriesOf(app, user.apiKey, jobId))[0]!.status === 'pending'; i++) await nextAttempt(app, clock, user.apiKey, jobId)
    return jobId
  }

  const good = await deltas(() => deliver(flaky.url))
  t.same(good.counted, { retrying: 3, delivered: 1, dead: 0 }, 'three failures then a 2xx')
  t.same(good.timed, good.counted, 'each attempt timed under its outcome')
  let jobId = ''
  const bad = await deltas(async () => { jobId = await deliver(down.url) })
  // As in the always-failing test above: 8 attempts in the 60 s window, the last one dead.
  t.same(bad.counted, { retrying: 7, delivered: 0, dead: 1 }, 'seven retries, then dead')
  t.equal(down.requests.length, 8)
  down.answer(() => 200)
  const again = await deltas(async () => {
    t.equal((await call(app, 'POST', `/api/jobs/${jobId}/webhooks/redeliver`, user.apiKey, {})).statusCode, 202)
    await app.services.webhooks.idle()
  })
  t.same(again.counted, { retrying: 0, delivered: 1, dead: 0 }, 'a redelivery is one more attempt')
  const webhookSeries = again.samples.filter(s => s.name.startsWith('webhook_'))
  t.ok(webhookSeries.every(s => Object.keys(s.labels).every(k => k === 'outcome' || k === 'le')), 'labelled by outcome only')
  t.notOk(webhookSeries.some(s => Object.values(s.labels).some(v => v.includes('127.0.0.1') || v.includes('job.') || v.includes('msg_'))), 'no target, event or id')
})

t.test('the account default webhook: secret shown once, used when a start names none, verified by standardwebhooks, replays refused', async t => {
  const clock = manualClock()
  let secret = ''
  const seen = new Set<string>()
  const refusals: string[] = []
  // A receiver as its documentation would have it: verify, then drop an id already seen.
  const hook = await receiver(t, (_n, request) => {
    try {
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>)
    } catch (err) {
      refusals.push((err as Error).message)
      return 400
    }
    const id = String(request.headers['webhook-id'])
    if (seen.has(id)) { refusals.push('replayed id'); return 409 }
    seen.add(id)
    return 200
  })
  const app = await appWith(t, clock)
  const user = await signup(app)
  t.equal((await call(app, 'GET', '/api/account/webhook', user.apiKey)).statusCode, 404)
  const scoped = await mintToken(app, user.apiKey, { tools: ['counter'] })
  t.equal((await put(app, '/api/account/webhook', scoped.token, { url: hook.url })).statusCode, 403, 'a scoped token cannot set it')
  t.equal((await put(app, '/api/account/webhook', user.apiKey, { url: 'ftp://x' })).statusCode, 400)
  t.equal((await put(app, '/api/account/webhook', user.apiKey, { url: hook.url, events: ['nope'] })).statusCode, 400)

  const set = await put(app, '/api/account/webhook', user.apiKey, { url: hook.url, events: ['done'] })
  t.equal(set.statusCode, 200)
  secret = set.json().secret
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  const read = await call(app, 'GET', '/api/account/webhook', user.apiKey)
  t.same(Object.keys(read.json()).sort(), ['created_at', 'events', 'url'], 'the secret is never shown again')
  t.notMatch(JSON.stringify(await app.services.db.accountWebhook.findMany()), secret.slice(6, 30), 'stored sealed')

  const jobId = await runJob(app, user.apiKey)
  const [delivery] = await deliveriesOf(app, user.apiKey, jobId)
  t.match(delivery, { status: 'delivered', attempts: 1, event: 'job.done' })
  t.same(refusals, [], 'the receiver verified the delivery')
  const first = hook.requests[0]!
  t.equal(first.headers['x-signature'], `sha256=${createHmac('sha256', secret).update(first.body).digest('hex')}`, 'X-Signature: the secret\'s text as the key')

  // A captured delivery sent again: its signature still verifies, its id gives it away.
  const replay = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': String(first.headers['webhook-id']), 'webhook-timestamp': String(first.headers['webhook-timestamp']), 'webhook-signature': String(first.headers['webhook-signature']) }, body: first.body })
  t.equal(replay.status, 409)
  t.same(refusals, ['replayed id'])
  // A capture replayed later under a new id: the signature covers the id, so it fails.
  const forged = await fetch(hook.url, { method: 'POST', headers: { 'webhook-id': 'msg_other', 'webhook-timestamp': String(first.headers['webhook-timestamp']), 'webhook-signature': String(first.headers['webhook-signature']) }, body: first.body })
  t.equal(forged.status, 400)
  // A delivery signed more than five minutes ago (this app's clock runs 10 minutes behind): too old.
  const lateClock = manualClock(new Date(Date.now() - 600_000))
  const late = await appWith(t, lateClock)
  const lateUser = await signup(late)
  secret = (await put(late, '/api/account/webhook', lateUser.apiKey, { url: hook.url })).json().secret
  const lateJob = await runJob(late, lateUser.apiKey)
  const [stale] = await deliveriesOf(late, lateUser.apiKey, lateJob)
  t.match(stale, { status: 'pending', attempts: 1 })
  t.equal(stale!.attempt_log[0].http_status, 400)
  t.match(refusals.at(-1), /too old/)

  // events: ['done'] — an error job sends nothing.
  const failing = await runJob(app, user.apiKey, undefined, { max_results: 1, outcome: 'input' }, false)
  await runJob(app, user.apiKey, { url: hook.url, secret: 'own' })
  t.same(await deliveriesOf(app, user.apiKey, failing), [], 'an outcome the default does not ask for (the job after it was delivered)')
  t.equal(hook.requests.at(-1)!.headers['x-signature'], `sha256=${createHmac('sha256', 'own').update(hook.requests.at(-1)!.body).digest('hex')}`, 'a start\'s own webhook wins over the default')

  t.equal((await call(app, 'DELETE', '/api/account/webhook', user.apiKey)).statusCode, 200)
  t.equal((await call(app, 'DELETE', '/api/account/webhook', user.apiKey)).statusCode, 404)
  t.equal((await call(app, 'GET', '/api/account/webhook', user.apiKey)).statusCode, 404)
})

t.test('deliveries survive a restart: an attempt cut by the stop is sent by the next start, a retry when its time comes', async t => {
  const dataDir = tempDir(t)
  const databaseUrl = await freshDatabaseUrl(t, dataDir)
  const clock = manualClock()
  const hook = await receiver(t, () => 500)
  const first = await appWith(t, clock, {}, { dataDir, databaseUrl })
  const user = await signup(first)
  const retried = await runJob(first, user.apiKey, { url: hook.url })
  t.match((await deliveriesOf(first, user.apiKey, retried))[0], { status: 'pending', attempts: 1 })
  // A receiver that never answers: the next delivery is in flight when the app stops.
  hook.answer(() => null)
  const start = await call(first, 'POST', '/api/tool-run', user.apiKey, { tool: 'counter', params: { max_results: 1 }, webhook: { url: hook.url } })
  const cut = start.json().job_id as string
  await waitForEnd(first, user.apiKey, cut)
  while (hook.requests.length < 2) await new Promise<void>(resolve => setImmediate(resolve))
  const t0 = performance.now()
  await first.close()
  t.ok(performance.now() - t0 < 9000, 'the stop does not wait for the attempt\'s timeout')

  hook.answer(() => 200)
  const second = await appWith(t, clock, {}, { dataDir, databaseUrl })
  await second.services.webhooks.idle()
  await second.services.webhooks.runDue()
  t.match((await deliveriesOf(second, user.apiKey, cut))[0], { status: 'delivered', attempts: 1 }, 'the cut attempt was not counted, and was sent at the start')
  t.match((await deliveriesOf(second, user.apiKey, retried))[0], { status: 'pending', attempts: 1 }, 'the retry waits for its time')
  await nextAttempt(second, clock, user.apiKey, retried)
  t.match((await deliveriesOf(second, user.apiKey, retried))[0], { status: 'delivered', attempts: 2 })
})

t.test('several processes polling one database send each attempt once', async t => {
  const dataDir = tempDir(t)
  const databaseUrl = await freshDatabaseUrl(t, dataDir)
  const clock = manualClock()
  const hook = await receiver(t, () => 200)
  const apps = [await appWith(t, clock, {}, { dataDir, databaseUrl }), await appWith(t, clock, {}, { dataDir, databaseUrl }), await appWith(t, clock, {}, { dataDir, databaseUrl })]
  const user = await signup(apps[0]!)
  const due = new Date(clock().getTime() + 5000)
  await apps[0]!.services.db.webhookDelivery.createMany({
    data: Array.from({ length: 30 }, (_, i) => ({ id: `msg_cluster_${i}`, accountId: user.id, event: 'test.ping', url: hook.url, body: JSON.stringify({ event: 'test.ping', n: i }), status: 'pending', nextAttemptAt: due, windowStart: clock(), createdAt: clock() })),
  })
  clock.advance(5000)
  const sent = await Promise.all(apps.flatMap(app => [app.services.webhooks.runDue(), app.services.webhooks.runDue()]))
  await Promise.all(apps.map(app => app.services.webhooks.idle()))
  t.equal(hook.requests.length, 30, 'thirty deliveries, thirty requests')
  t.equal(new Set(hook.requests.map(r => r.headers['webhook-id'])).size, 30, 'none twice')
  t.equal(sent.reduce((a, b) => a + b, 0), 30, 'the passes together made thirty attempts')
  t.equal(await apps[0]!.services.db.webhookDelivery.count({ where: { status: 'delivered' } }), 30)
})

t.test('the delivery service takes any event type and payload (not only a job\'s end)', async t => {
  const clock = manualClock()
  const hook = await receiver(t, () => 200)
  const app = await appWith(t, clock)
  const user = await signup(app)
  const observed: string[] = []
  app.services.webhooks.onAttempt(o => observed.push(`${o.event}:${o.outcome}`))
  await app.services.webhooks.enqueue({ accountId: user.id, event: 'monitor.changed', payload: { monitor: { id: 'm1', changes: 2 } }, target: { url: hook.url, secret: 'k' } })
  await app.services.webhooks.idle()
  t.same(JSON.parse(hook.requests[0]!.body), { event: 'monitor.changed', monitor: { id: 'm1', changes: 2 } })
  t.same(observed, ['monitor.changed:delivered'], 'the attempt hook (metrics) hears each attempt')
})

/**
 * Records the jobs whose final event was emitted: JobEnding stores every delivery of an ending
 * (the job's end, a monitor's `monitor.changed`) before it, so once heard, all are stored.
 */
function finalEventsOf (app: FastifyInstance) {
  const { events } = app.services
  const ended = new Set<string>()
  const waiting = new Map<string, () => void>()
  const emit = events.emit.bind(events)
  events.emit = (jobId, event) => {
    emit(jobId, event)
    if (event.type === 'progress') return
    ended.add(jobId)
    waiting.get(jobId)?.()
  }
  return (jobId: string) => (ended.has(jobId) ? Promise.resolve() : new Promise<void>(resolve => { waiting.set(jobId, resolve) }))
}

/** A monitor of the counter tool, run now with `params` by its owner: the run's id once its deliveries are stored and attempted. */
async function monitorRunner (app: FastifyInstance, apiKey: string) {
  const ended = finalEventsOf(app)
  return async (monitorId: string, params: Record<string, unknown>) => {
    const patched = await app.inject({ method: 'PATCH', url: `/api/monitors/${monitorId}`, headers: { 'x-api-key': apiKey }, payload: { params } })
    if (patched.statusCode !== 200) throw new Error(`PATCH answered ${patched.statusCode}: ${patched.body}`)
    const res = await call(app, 'POST', `/api/monitors/${monitorId}/run`, apiKey)
    if (res.statusCode !== 202) throw new Error(`run answered ${res.statusCode}: ${res.body}`)
    const runId = res.json().job_id as string
    await ended(runId)
    await app.services.webhooks.idle()
    return runId
  }
}

t.test('a monitor\'s run that finds changes sends monitor.changed beside its job.done: signed, listed, redeliverable, counted; not its first run, not a run without changes, not to a setting stored before `changed`', async t => {
  const clock = manualClock()
  const hook = await receiver(t, () => 204)
  const app = await appWith(t, clock)
  const user = await signup(app)
  const observed: string[] = []
  app.services.webhooks.onAttempt(o => observed.push(`${o.event}:${o.outcome}`))
  const run = await monitorRunner(app, user.apiKey)
  const created = await call(app, 'POST', '/api/monitors', user.apiKey, { tool: 'counter', params: { max_results: 3, label: 'a' }, schedule: { every: '1h' }, name: 'rows', webhook: { url: hook.url, secret: 's3cret' } })
  t.equal(created.statusCode, 201)
  const monitorId = created.json().monitor_id as string
  const verifier = new Webhook('s3cret', { format: 'raw' })
  const bodies = () => hook.requests.map(r => verifier.verify(r.body, r.headers as Record<string, string>) as Record<string, any>)
  const eventsOf = async (jobId: string) => (await deliveriesOf(app, user.apiKey, jobId)).map(d => d.event).sort()

  const first = await run(monitorId, { max_results: 3, label: 'a' })
  t.same(await eventsOf(first), ['job.done'], 'the first run (no baseline, every row added): its end only')
  const second = await run(monitorId, { max_results: 3, label: 'a' })
  t.same(await eventsOf(second), ['job.done'], 'a run that changed nothing: its end only')

  // One row more, every label changed.
  const third = await run(monitorId, { max_results: 4, label: 'b' })
  t.same(await eventsOf(third), ['job.done', 'monitor.changed'])
  // The two deliveries of one ending may be sent in one pass, side by side: their order is not promised.
  const sent = bodies()
  t.same(sent.map(b => b.event).sort(), ['job.done', 'job.done', 'job.done', 'monitor.changed'], 'standardwebhooks verifies every delivery')
  t.match(sent.find(b => b.event === 'job.done' && b.job.job_id === third), { job: { status: 'done', monitor: { monitor_id: monitorId, changes: { added: 1, changed: 3 } } } }, 'the run\'s job.done as it was')
  const { run: ranAs, ...changed } = sent.find(b => b.event === 'monitor.changed')!
  t.same(changed, {
    event: 'monitor.changed',
    monitor: { id: monitorId, name: 'rows', tool: 'counter' },
    changes: { added: 1, removed: 0, changed: 3, duplicates: 0, first_run: false },
    added: [{ key: { n: 4 }, after: { label: 'b', text: 'row 4' } }],
    removed: [],
    changed: [1, 2, 3].map(n => ({ key: { n }, fields: { label: { before: 'a', after: 'b' } } })),
    truncated: false,
    changes_url: `/api/monitors/${monitorId}/changes?run=${third}`,
  })
  t.match(ranAs, { id: third, status: 'done', records: 4, finished_at: String })
  t.equal((await call(app, 'GET', changed.changes_url, user.apiKey)).json().changed.length, 3, 'changes_url reads the run\'s changes')

  // Listed with the run's deliveries; redelivered by its id with the same webhook-id; the default redelivery is the run's end.
  const listed = await deliveriesOf(app, user.apiKey, third)
  const delivery = listed.find(d => d.event === 'monitor.changed')!
  t.match(delivery, { status: 'delivered', attempts: 1, target: new URL(hook.url).origin })
  t.equal(hook.requests.find(r => JSON.parse(r.body).event === 'monitor.changed')!.headers['webhook-id'], delivery.id)
  const again = await call(app, 'POST', `/api/jobs/${third}/webhooks/redeliver`, user.apiKey, { delivery_id: delivery.id })
  t.equal(again.statusCode, 202)
  t.match(again.json(), { id: delivery.id, event: 'monitor.changed', status: 'pending' })
  await app.services.webhooks.idle()
  t.equal(hook.requests.at(-1)!.headers['webhook-id'], delivery.id, 'the same webhook-id')
  t.match((await deliveriesOf(app, user.apiKey, third)).find(d => d.id === delivery.id), { status: 'delivered', attempts: 2 })
  const byDefault = await call(app, 'POST', `/api/jobs/${third}/webhooks/redeliver`, user.apiKey, {})
  t.match(byDefault.json(), { event: 'job.done' }, 'without delivery_id: the run\'s end')
  await app.services.webhooks.idle()
  t.same(observed.filter(o => o.startsWith('monitor.')), ['monitor.changed:delivered', 'monitor.changed:delivered'], 'each attempt heard by the metrics hook')

  // Many changes: the first of each kind, the counts, and where to read the rest.
  const fourth = await run(monitorId, { max_results: 25, label: 'c' })
  const many = bodies().find(b => b.event === 'monitor.changed' && b.run.id === fourth)!
  t.match(many, { event: 'monitor.changed', run: { id: fourth }, changes: { added: 21, changed: 4, removed: 0 }, truncated: true })
  t.same([many.added.length, many.changed.length, many.removed.length], [CHANGES_PER_KIND_IN_A_WEBHOOK, 4, 0])
  t.same(many.added[0].key, { n: 5 }, 'in the run\'s order')

  // A monitor's webhook stored before `changed` existed (no events: done and error) keeps what it asked for.
  await app.services.db.monitor.update({ where: { id: monitorId }, data: { webhook: JSON.stringify({ url: hook.url, secret: 's3cret' }) } })
  const fifth = await run(monitorId, { max_results: 2, label: 'c' })
  t.match((await call(app, 'GET', `/api/jobs/${fifth}`, user.apiKey)).json(), { monitor: { changes: { removed: 23 } } })
  t.same(await eventsOf(fifth), ['job.done'])
})

t.test('events: `changed` accepted wherever events are named, an unknown one refused; the account default sends monitor.changed only when it asks for it', async t => {
  const clock = manualClock()
  const hook = await receiver(t, () => 200)
  const app = await appWith(t, clock)
  const user = await signup(app)
  const run = await monitorRunner(app, user.apiKey)
  const monitor = { tool: 'counter', params: { max_results: 3 }, schedule: { every: '1h' } }
  for (const [method, url, body] of [
    ['PUT', '/api/account/webhook', { url: hook.url, events: ['changed', 'sometimes'] }],
    ['POST', '/api/monitors', { ...monitor, webhook: { url: hook.url, events: ['sometimes'] } }],
    ['POST', '/api/tool-run', { tool: 'counter', params: { max_results: 1 }, webhook: { url: hook.url, events: ['done', 'sometimes'] } }],
  ] as const) {
    const res = await app.inject({ method, url, headers: { 'x-api-key': user.apiKey }, payload: body })
    t.equal(res.statusCode, 400, `${method} ${url}: an unknown event`)
    t.match(res.json(), { detail: /events/ })
  }
  t.equal((await call(app, 'POST', '/api/monitors', user.apiKey, { ...monitor, webhook: { url: hook.url, events: ['changed'] } })).statusCode, 201)
  t.equal((await call(app, 'POST', '/api/tool-run', user.apiKey, { tool: 'counter', params: { max_results: 1 }, webhook: { url: hook.url, events: ['changed'] } })).statusCode, 202, 'a start takes it too (it is never sent for a job that is no monitor\'s run)')
  t.same((await put(app, '/api/account/webhook', user.apiKey, { url: hook.url })).json().events, ['done', 'error', 'changed'], 'the default events of a new setting')

  // The default asks for done only: a run with changes sends its end, no monitor.changed.
  await put(app, '/api/account/webhook', user.apiKey, { url: hook.url, events: ['done'] })
  const monitorId = (await call(app, 'POST', '/api/monitors', user.apiKey, monitor)).json().monitor_id as string
  await run(monitorId, { max_results: 3 })
  const changedRun = await run(monitorId, { max_results: 4 })
  t.same((await deliveriesOf(app, user.apiKey, changedRun)).map(d => d.event), ['job.done'])

  // Changed only: the change, not the end.
  const secret = (await put(app, '/api/account/webhook', user.apiKey, { url: hook.url, events: ['changed'] })).json().secret as string
  const fewer = await run(monitorId, { max_results: 2 })
  t.same((await deliveriesOf(app, user.apiKey, fewer)).map(d => d.event), ['monitor.changed'])
  const last = hook.requests.at(-1)!
  t.match(new Webhook(secret).verify(last.body, last.headers as Record<string, string>), {
    event: 'monitor.changed', run: { id: fewer, records: 2 }, changes: { added: 0, removed: 2, changed: 0, first_run: false },
    removed: [{ key: { n: 3 }, before: { label: 'row' } }, { key: { n: 4 }, before: { label: 'row' } }], truncated: false,
  }, 'verified with the account\'s whsec_ secret')
  t.equal((await call(app, 'POST', `/api/jobs/${fewer}/webhooks/redeliver`, user.apiKey, {})).statusCode, 409, 'the default redelivery is of the run\'s end, which the default does not ask for')
})
