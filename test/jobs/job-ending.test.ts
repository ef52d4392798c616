// Issue 12: every ending of a job goes through one endJob, so each one, however
// the job ends (cancel while queued or running, the dead-worker reaper, a run
// that ends while a cancel races it), writes one outcome, refunds at most once,
// sends the final WebSocket message and the webhook. Slow jobs are counter jobs
// that sleep until their signal fires; nothing depends on how fast anything runs.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { signup } from '../helpers/build.ts'
import { openSocket } from '../helpers/socket.ts'
import { buildWithCounter, usageOf, waitForEnd } from '../helpers/jobs.ts'
import { CANCELLED, INTERRUPTED } from '../../core/jobs/job-ending.ts'

type Msg = Record<string, any>

/** A job that runs until it is cancelled (or the app closes). */
const SLOW = { max_results: 1, delay_ms: 60_000 }

async function start (app: FastifyInstance, key: string, params: Record<string, unknown>, webhook?: { url: string }): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': key }, payload: { tool: 'counter', params, ...(webhook ? { webhook } : {}) } })
  if (res.statusCode !== 202) throw new Error(`start answered ${res.statusCode}: ${res.body}`)
  return res.json().job_id
}

const cancel = (app: FastifyInstance, key: string, id: string) => app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': key } })

/** Polls until the condition holds; the deadline only turns a hang into a readable failure. */
async function until (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

const isClaimed = (app: FastifyInstance, id: string) => app.services.db.job.findUnique({ where: { id } }).then(j => j?.startedAt != null)

/** Opens the job's WebSocket and resolves once its first message (the current status) has come, so the socket is following. */
async function follow (app: FastifyInstance, key: string, id: string): Promise<{ messages: Msg[], closed: Promise<number> }> {
  const { messages, closed } = await openSocket(app, `/api/tool-run/${id}/ws`, { headers: { 'x-api-key': key } })
  await until('the socket sent the current status', () => messages.length > 0)
  return { messages, closed }
}

/** A local webhook receiver that records every body it gets. */
async function webhookReceiver (t: { teardown (fn: () => unknown): void }): Promise<{ url: string, bodies: Msg[] }> {
  const bodies: Msg[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', c => { body += c })
    req.on('end', () => { bodies.push(JSON.parse(body)); res.end('ok') })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies }
}

t.test('the WebSocket of a queued job that is then cancelled gets its final message, and the call is refunded', async t => {
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '1' } })
  const user = await signup(app)
  const running = await start(app, user.apiKey, SLOW)
  await until('the first job holds the slot', () => isClaimed(app, running))
  const queued = await start(app, user.apiKey, SLOW)
  t.notOk(await isClaimed(app, queued), 'the second job waits for the slot')

  const socket = await follow(app, user.apiKey, queued)
  t.match(socket.messages[0], { type: 'progress', status: 'running', stage: 'queued' })
  const del = await cancel(app, user.apiKey, queued)
  t.equal(del.statusCode, 200)
  t.match(del.json(), { status: 'cancelled', error: 'cancelled', refunded: true })
  t.equal(await socket.closed, 1000, 'the server closes the socket after the final message')
  const finals = socket.messages.filter(m => m.type !== 'progress')
  t.equal(finals.length, 1, 'exactly one final message')
  t.match(finals[0], { type: 'error', job: { job_id: queued, status: 'cancelled', error: 'cancelled', refunded: true } })
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'the running job is charged, the cancelled one refunded')
  t.ok((await app.services.db.job.findUniqueOrThrow({ where: { id: queued } })).expiresAt, 'retention counts from the cancel')

  // When the slot frees, the cancelled job is not run.
  t.equal((await cancel(app, user.apiKey, running)).statusCode, 200)
  await new Promise(resolve => setTimeout(resolve, 50))
  t.notOk(await isClaimed(app, queued), 'the cancelled job was never claimed')
})

t.test('a job whose worker died is reaped: final WebSocket message, webhook, refund', async t => {
  const hook = await webhookReceiver(t)
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '1', ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_RETRY_BASE_MS: '20' } })
  const user = await signup(app)
  const running = await start(app, user.apiKey, SLOW)
  await until('the first job holds the slot', () => isClaimed(app, running))
  const orphan = await start(app, user.apiKey, SLOW, { url: hook.url })
  // As another process sharing the database would leave it: claimed, a row pushed, then no heartbeat for a minute.
  const longAgo = new Date(Date.now() - 60_000)
  await app.services.db.job.update({ where: { id: orphan }, data: { startedAt: longAgo, heartbeatAt: longAgo, stage: 'running' } })
  await app.services.db.resultRow.create({ data: { jobId: orphan, seq: 0, data: JSON.stringify({ n: 1, label: 'row', text: 'row 1' }) } })

  const socket = await follow(app, user.apiKey, orphan)
  t.equal(await app.services.maintenance.reapStale(), 1, 'the orphan is reaped; the live job is not')
  await socket.closed
  const finals = socket.messages.filter(m => m.type !== 'progress')
  t.equal(finals.length, 1, 'exactly one final message')
  t.match(finals[0], { type: 'error', job: { job_id: orphan, status: 'error', error: (INTERRUPTED as { error: string }).error, refunded: true, records: 1 } })

  await until('the webhook arrived', () => hook.bodies.length > 0)
  t.match(hook.bodies, [{ event: 'job.error', job: { job_id: orphan, status: 'error', refunded: true, records: 1 } }])
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'the reaped job is refunded')
  t.equal((await usageOf(app, user.apiKey)).records_today, 1, 'its row the dead worker never counted is counted')
  t.equal(await app.services.maintenance.reapStale(), 0, 'a second pass finds nothing')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'and refunds nothing more')
  t.equal((await cancel(app, user.apiKey, running)).statusCode, 200)
})

t.test('cancel of a running job refunds once; a second cancel is 409 and refunds nothing', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const id = await start(app, user.apiKey, SLOW)
  await until('the job is claimed', () => isClaimed(app, id))
  const socket = await follow(app, user.apiKey, id)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1)

  const del = await cancel(app, user.apiKey, id)
  t.equal(del.statusCode, 200)
  t.match(del.json(), { status: 'cancelled', error: 'cancelled', refunded: true })
  await socket.closed
  t.equal(socket.messages.filter(m => m.type !== 'progress').length, 1, 'one final message')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0, 'refunded')
  t.notOk(app.services.runner.isRunningHere(id), 'the run stopped')

  const again = await cancel(app, user.apiKey, id)
  t.equal(again.statusCode, 409)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0, 'still refunded once')
})

t.test('a cancel racing a finish ends the job once: one webhook, one refund at most', async t => {
  const hook = await webhookReceiver(t)
  const app = await buildWithCounter(t, { env: { ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_RETRY_BASE_MS: '20' } })
  const user = await signup(app)
  const ids: string[] = []
  for (let i = 0; i < 8; i++) {
    // The job ends by itself within a few ms; the cancel lands before, during or after its ending.
    const id = await start(app, user.apiKey, { max_results: 1, delay_ms: i % 4 }, { url: hook.url })
    ids.push(id)
    const del = await cancel(app, user.apiKey, id)
    t.ok(del.statusCode === 200 || del.statusCode === 409, `cancel answered ${del.statusCode}`)
    await waitForEnd(app, user.apiKey, id)
  }
  await until('every webhook arrived', () => hook.bodies.length >= ids.length)
  await new Promise(resolve => setTimeout(resolve, 100))
  t.equal(hook.bodies.length, ids.length, 'one webhook per job, however its ending raced')
  const rows = await app.services.db.job.findMany({ where: { id: { in: ids } } })
  for (const job of rows) {
    t.ok(job.status === 'done' || (job.status === 'cancelled' && job.error === 'cancelled'), `${job.status} ${job.error ?? ''}`)
    t.equal(job.refunded, job.status === 'cancelled', 'refunded exactly when cancelled')
  }
  const kept = rows.filter(j => !j.refunded).length
  t.equal((await usageOf(app, user.apiKey)).calls_today, kept, 'each cancelled job refunded once, each finished one charged')
})

t.test('endings racing in the kernel: exactly one lands', async t => {
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '1' } })
  const user = await signup(app)
  const running = await start(app, user.apiKey, SLOW)
  await until('the first job holds the slot', () => isClaimed(app, running))
  const queued = await start(app, user.apiKey, SLOW)
  const job = await app.services.db.job.findUniqueOrThrow({ where: { id: queued } })
  const finals: Msg[] = []
  app.services.events.subscribe(queued, e => { if (e.type !== 'progress') finals.push(e) })
  const results = await Promise.all([
    app.services.ending.endJob(job, { status: 'done' }),
    app.services.ending.endJob(job, CANCELLED),
    app.services.ending.endJob(job, INTERRUPTED),
  ])
  t.equal(results.filter(Boolean).length, 1, 'one ending wrote the outcome')
  t.equal(finals.length, 1, 'one final event')
  const usage = (await usageOf(app, user.apiKey)).calls_today
  t.equal(usage, results[0] ? 2 : 1, 'refunded once when an error ending won, not at all when done won')
  t.equal((await cancel(app, user.apiKey, running)).statusCode, 200)
})

t.test('a job ended outside its runner (another process\'s cancel) stops at the next heartbeat and keeps that ending', async t => {
  const app = await buildWithCounter(t, { env: { JOB_HEARTBEAT_MS: '50' } })
  const user = await signup(app)
  const id = await start(app, user.apiKey, SLOW)
  await until('the job is claimed', () => isClaimed(app, id))
  const job = await app.services.db.job.findUniqueOrThrow({ where: { id } })
  // What JobService.cancel does in a process that does not hold the run.
  t.ok(await app.services.ending.endJob(job, CANCELLED))
  await until('the runner let go of the job', () => !app.services.runner.isRunningHere(id))
  const s = await waitForEnd(app, user.apiKey, id)
  t.match(s, { status: 'cancelled', error: 'cancelled', refunded: true, stage: 'cancelled' })
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0, 'refunded once')
})

t.test('a heartbeat writes the job\'s count and the account\'s records_today together: when one fails neither is written, and the rows are counted later', async t => {
  // A worker killed between the two writes had left rows the reaper took as counted
  // (the job's records) that records_today never got (CI, test/cluster/worker-processes).
  // The runner whose quotas are made to fail must be this app's: in the distributed suite
  // its jobs would run on the worker built beside it.
  const app = await buildWithCounter(t, { env: { JOB_HEARTBEAT_MS: '50' }, distributed: false })
  const user = await signup(app)
  const { quotas, db } = app.services
  const statementsOf = quotas.addRecordsStatements.bind(quotas)
  let failing = true
  let failedFlushes = 0
  quotas.addRecordsStatements = (accountId: string, count: number) => {
    if (!failing || count <= 0) return statementsOf(accountId, count)
    failedFlushes++
    return [db.$executeRaw`UPDATE no_such_table SET records = 1`]
  }
  t.teardown(() => { quotas.addRecordsStatements = statementsOf })
  const id = await start(app, user.apiKey, { max_results: 60, delay_ms: 50 })
  await until('rows are stored and two heartbeats failed', async () => failedFlushes >= 2 && await db.resultRow.count({ where: { jobId: id } }) >= 3)
  const during = await db.job.findUniqueOrThrow({ where: { id } })
  t.equal(during.status, 'running')
  t.equal(during.records, 0, 'the job\'s count was not written without the account\'s')
  t.equal((await usageOf(app, user.apiKey)).records_today, 0)
  failing = false
  const ended = await waitForEnd(app, user.apiKey, id, 60_000)
  t.match(ended, { status: 'done', records: 60 })
  t.equal((await usageOf(app, user.apiKey)).records_today, 60, 'the rows of the failed heartbeats were counted at a later one')
})

t.test('the reaper ends a job, refunds it and counts its unflushed rows in one transaction: when the count or the refund fails nothing is written, and the next pass does all three', async t => {
  // Before, the ending, the refund and the account's count were three writes: a reaper
  // stopped between them (or a failed count) left an ended job never refunded or whose
  // rows were never counted.
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '1' } })
  const user = await signup(app)
  const { quotas, db, maintenance } = app.services
  const running = await start(app, user.apiKey, SLOW)
  await until('the first job holds the slot', () => isClaimed(app, running))
  const orphan = await start(app, user.apiKey, SLOW)
  const longAgo = new Date(Date.now() - 60_000)
  // A dead worker's job: two rows stored, one of them counted by its last heartbeat.
  await db.job.update({ where: { id: orphan }, data: { startedAt: longAgo, heartbeatAt: longAgo, stage: 'running', records: 1 } })
  for (const seq of [0, 1]) await db.resultRow.create({ data: { jobId: orphan, seq, data: JSON.stringify({ n: seq, label: 'row', text: `row ${seq}` }) } })
  await quotas.addRecords(user.id, 1)

  const statementsOf = quotas.addRecordsStatements.bind(quotas)
  let failing = true
  quotas.addRecordsStatements = (accountId, count, client) => failing && count > 0
    ? [(client ?? db).$executeRaw`UPDATE no_such_table SET records = 1`]
    : statementsOf(accountId, count, client)
  t.teardown(() => { quotas.addRecordsStatements = statementsOf })

  t.equal(await maintenance.reapStale(), 0, 'the pass ends nothing: the count failed')
  t.match(await db.job.findUniqueOrThrow({ where: { id: orphan } }), { status: 'running', records: 1, refunded: false }, 'the job was not ended without its rows counted')
  t.equal((await usageOf(app, user.apiKey)).records_today, 1)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 2, 'nothing refunded yet')

  // The refund is in the same transaction.
  failing = false
  const refundOf = quotas.refundStatements.bind(quotas)
  quotas.refundStatements = (_charge, client) => [(client ?? db).$executeRaw`UPDATE no_such_table SET calls = 1`]
  t.equal(await maintenance.reapStale(), 0, 'a failed refund ends nothing either')
  t.match(await db.job.findUniqueOrThrow({ where: { id: orphan } }), { status: 'running', refunded: false })
  t.match(await usageOf(app, user.apiKey), { records_today: 1, calls_today: 2 }, 'and counts nothing')
  quotas.refundStatements = refundOf

  t.equal(await maintenance.reapStale(), 1, 'the next pass reaps it')
  t.match(await db.job.findUniqueOrThrow({ where: { id: orphan } }), { status: 'error', records: 2, refunded: true })
  t.match(await usageOf(app, user.apiKey), { records_today: 2, calls_today: 1 }, 'both rows counted once, the call refunded')
  t.equal((await cancel(app, user.apiKey, running)).statusCode, 200)
})

t.test('the final flush waits for a heartbeat\'s flush still running: the rows of a heartbeat that fails late are counted at the end', async t => {
  // Two flushes at once had let the final one count its share while an earlier
  // heartbeat's share was still in flight; when that one then failed, its rows went
  // back to a count nobody flushed again (CI, the distributed suite).
  const app = await buildWithCounter(t, { env: { JOB_HEARTBEAT_MS: '50' }, distributed: false })
  const user = await signup(app)
  const { quotas, db } = app.services
  const statementsOf = quotas.addRecordsStatements.bind(quotas)
  const transactionOf = db.$transaction.bind(db)
  let lastCount = 0
  let lateFailure: Promise<void> | null = null
  quotas.addRecordsStatements = (accountId, count, client) => { lastCount = count; return statementsOf(accountId, count, client) }
  // The first flush that carries rows is held past the job's end, then fails.
  db.$transaction = ((arg: unknown, options?: unknown) => {
    if (Array.isArray(arg) && lastCount > 0 && !lateFailure) {
      lateFailure = new Promise(resolve => setTimeout(resolve, 600))
      return lateFailure.then(() => { throw new Error('the heartbeat\'s flush failed late') })
    }
    return (transactionOf as (a: unknown, o?: unknown) => Promise<unknown>)(arg, options)
  }) as typeof db.$transaction
  t.teardown(() => { quotas.addRecordsStatements = statementsOf; db.$transaction = transactionOf })
  const id = await start(app, user.apiKey, { max_results: 6, delay_ms: 30 })
  const ended = await waitForEnd(app, user.apiKey, id, 30_000)
  t.ok(lateFailure, 'a heartbeat\'s flush was held and failed')
  t.match(ended, { status: 'done', records: 6 })
  t.equal((await usageOf(app, user.apiKey)).records_today, 6, 'every row counted once')
})
