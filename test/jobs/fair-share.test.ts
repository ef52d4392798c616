// Issue 11, part 7: per-tier caps on running and queued jobs, and slots shared
// out across accounts. Slow jobs are counter jobs that sleep until their signal
// fires (a cancel here); nothing depends on how fast anything runs.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { freshDatabaseUrl, signup, tempDir } from '../helpers/build.ts'
import { buildWithCounter, startJob, usageOf } from '../helpers/jobs.ts'
import { connect, listeningApp } from '../agent/_agent.ts'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { manualClock } from '../../core/clock.ts'
import { AppError } from '../../core/errors.ts'
import type { AccountCaller } from '../../core/auth/guards.ts'
import type { StartRequest } from '../../core/jobs/job-service.ts'

/** A job that runs until it is cancelled (or the app closes). */
const SLOW = { max_results: 1, delay_ms: 60_000 }

async function startSlow (app: FastifyInstance, key: string): Promise<string> {
  const res = await startJob(app, key, SLOW)
  if (res.statusCode !== 202) throw new Error(`start answered ${res.statusCode}: ${res.body}`)
  return res.json().job_id
}

const cancel = (app: FastifyInstance, key: string, id: string) => app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': key } })

/** The account's jobs a worker has claimed (running or ended), oldest claim first. */
const claimed = (app: FastifyInstance, accountId: string) =>
  app.services.db.job.findMany({ where: { accountId, startedAt: { not: null } }, orderBy: { startedAt: 'asc' }, select: { id: true } }).then(rows => rows.map(r => r.id))

/** Polls until the condition holds; the deadline only turns a hang into a readable failure. */
async function until (what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

const isClaimed = (app: FastifyInstance, id: string) => app.services.db.job.findUnique({ where: { id } }).then(j => j?.startedAt != null)

t.test('one account\'s 50 queued jobs: another account\'s first job is the next one claimed after one of them ends', async t => {
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '2' } })
  const a = await signup(app)
  const b = await signup(app)
  t.equal((await app.inject({ method: 'POST', url: '/api/auth/claim-pro', headers: { 'x-api-key': a.apiKey } })).statusCode, 200, 'A is Pro: room for 50')
  const aJobs: string[] = []
  for (let i = 0; i < 50; i++) aJobs.push(await startSlow(app, a.apiKey))
  await until('both slots hold A\'s jobs', async () => (await claimed(app, a.id)).length === 2)
  t.same(await claimed(app, a.id), aJobs.slice(0, 2), 'A\'s own jobs run in the order they came')

  const bJob = await startSlow(app, b.apiKey)
  t.notOk(await isClaimed(app, bJob), 'B waits: every slot is taken')
  t.match(await usageOf(app, a.apiKey), { jobs_running: 2, jobs_queued: 48 })
  t.match(await usageOf(app, b.apiKey), { jobs_running: 0, jobs_queued: 1 })

  t.equal((await cancel(app, a.apiKey, aJobs[0]!)).statusCode, 200, 'one slot turns over')
  await until('B\'s job is claimed', () => isClaimed(app, bJob))
  t.same(await claimed(app, a.id), aJobs.slice(0, 2), 'the freed slot went to B, not to A\'s backlog')
  t.match(await usageOf(app, b.apiKey), { jobs_running: 1, jobs_queued: 0 })

  // The next turnover goes back to A, in A's order.
  t.equal((await cancel(app, b.apiKey, bJob)).statusCode, 200)
  await until('A\'s third job is claimed', async () => (await claimed(app, a.id)).length === 3)
  t.same(await claimed(app, a.id), aJobs.slice(0, 3))
})

t.test('the running cap holds with slots free; another account starts at once', async t => {
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '4' } })
  const a = await signup(app)
  const b = await signup(app)
  const aJobs: string[] = []
  for (let i = 0; i < 5; i++) aJobs.push(await startSlow(app, a.apiKey))
  const bJob = await startSlow(app, b.apiKey)
  // B's claim comes after A's jobs were offered their slots: had A been allowed a third, it would have it by now.
  await until('B\'s job is claimed', () => isClaimed(app, bJob))
  await until('A\'s two are claimed', async () => (await claimed(app, a.id)).length === 2)
  t.same(await claimed(app, a.id), aJobs.slice(0, 2), 'registered: at most 2 running, the other 3 wait')
  t.match(await usageOf(app, a.apiKey), { jobs_running: 2, jobs_queued: 3 })
  const me = (await app.inject({ url: '/api/auth/me', headers: { 'x-api-key': a.apiKey } })).json()
  t.match(me.limits, { max_running_jobs: 2, max_queued_jobs: 20 })
})

t.test('past running + queued caps: 429 with Retry-After naming the cap, nothing charged', async t => {
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '1' } })
  const a = await signup(app)
  const tokenRes = await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: { 'x-api-key': a.apiKey }, payload: { name: 'ci', tools: ['counter'] } })
  const scoped = tokenRes.json().token as string
  const jobs: string[] = []
  for (let i = 0; i < 21; i++) jobs.push(await startSlow(app, a.apiKey))
  const keyed = await startJob(app, a.apiKey, SLOW, 'counter', { 'idempotency-key': 'last-one' })
  t.equal(keyed.statusCode, 202, 'the 22nd unfinished job (2 running + 20 queued) is accepted')
  jobs.push(keyed.json().job_id)
  const before = await usageOf(app, a.apiKey)
  t.match(before, { calls_today: 22, jobs_running: 1, jobs_queued: 21 })

  for (const key of [a.apiKey, scoped]) {
    const refused = await startJob(app, key, SLOW)
    t.equal(refused.statusCode, 429)
    t.match(refused.json().detail, /at most 20 queued jobs on the registered plan/)
    t.match(refused.json().detail, /at most 2 running/)
    t.same(Object.keys(refused.json()), ['detail'])
    t.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After')
  }
  t.same(await usageOf(app, a.apiKey), before, 'the refused starts were not charged')

  const replay = await startJob(app, a.apiKey, SLOW, 'counter', { 'idempotency-key': 'last-one' })
  t.equal(replay.statusCode, 200, 'an idempotent replay is not a new job: not refused')
  t.equal(replay.json().job_id, keyed.json().job_id)

  t.equal((await cancel(app, a.apiKey, jobs[5]!)).statusCode, 200)
  t.equal((await startJob(app, a.apiKey, SLOW)).statusCode, 202, 'a cancelled job frees its place')
  t.equal((await startJob(app, a.apiKey, SLOW)).statusCode, 429)

  t.equal((await app.inject({ method: 'POST', url: '/api/auth/claim-pro', headers: { 'x-api-key': a.apiKey } })).statusCode, 200)
  t.equal((await startJob(app, a.apiKey, SLOW)).statusCode, 202, 'Pro holds more')
})

t.test('a batch start (startMany): each account meets its caps and its quota as its starts one at a time would, in the batch\'s order', async t => {
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '1' }, clock: manualClock('2026-11-30T12:00:00Z') })
  const { db, jobs } = app.services
  const [a, b, c] = [await signup(app), await signup(app), await signup(app)]
  const callerOf = async (id: string): Promise<AccountCaller> => {
    const account = await db.account.findUniqueOrThrow({ where: { id } })
    return { account, tier: 'registered', principal: { kind: 'personal', account, tier: 'registered', keyId: 'batch' } }
  }
  const [ca, cb, cc] = [await callerOf(a.id), await callerOf(b.id), await callerOf(c.id)]
  // b can afford 3 more calls today (registered: 50).
  await db.usageCounter.create({ data: { accountId: b.id, period: 'd:2026-11-30', calls: 47, records: 0 } })
  // One batch, the accounts mixed: 25 of a's (its caps hold 2 running + 20 queued), 5 of b's, and c's key used twice with one body, once with another, and bad params.
  const requests: StartRequest[] = []
  for (let i = 0; i < 25; i++) {
    requests.push({ caller: ca, tool: 'counter', params: SLOW })
    if (i < 5) requests.push({ caller: cb, tool: 'counter', params: { ...SLOW, max_results: i + 1 } })
  }
  requests.push({ caller: cc, tool: 'counter', params: SLOW, idempotencyKey: 'k' }, { caller: cc, tool: 'counter', params: SLOW, idempotencyKey: 'k' }, { caller: cc, tool: 'counter', params: { max_results: 2 }, idempotencyKey: 'k' }, { caller: cc, tool: 'counter', params: { max_results: 'many' } })
  const outcomes = await jobs.startMany(requests)
  const of = (caller: AccountCaller) => outcomes.filter((_, i) => requests[i]!.caller === caller)
  const refusal = (o: unknown) => (o instanceof AppError ? `${o.statusCode} ${o.message}` : 'started')

  const ofA = of(ca)
  t.same(ofA.map(o => !(o instanceof AppError)), [...Array(22).fill(true), false, false, false], 'a: the first 22 start, in order')
  for (const o of ofA.slice(22)) t.match(refusal(o), /^429 Job cap reached: at most 20 queued jobs on the registered plan, behind at most 2 running; this account has 0 running and 22 waiting/)
  const ofB = of(cb)
  t.same(ofB.map(o => !(o instanceof AppError)), [true, true, true, false, false], 'b: the first 3 start, the rest are over its quota')
  for (const o of ofB.slice(3)) t.match(refusal(o), /^429 Daily quota of 50 calls/)
  const started = ofB.slice(0, 3).map(o => (o as { job_id: string }).job_id)
  t.same((await db.job.findMany({ where: { id: { in: started } }, orderBy: { createdAt: 'asc' } })).map(j => JSON.parse(j.input).max_results).sort(), [1, 2, 3], 'b\'s first three requests are its jobs')
  const [first, replay, conflict, invalid] = of(cc) as Array<{ job_id: string, replayed: boolean } & AppError>
  t.match(first, { replayed: false })
  t.match(replay, { job_id: first!.job_id, replayed: true }, 'a key used twice in one batch replays its first start')
  t.match(refusal(conflict), /^409 This Idempotency-Key was already used with a different request body/)
  t.match(refusal(invalid), /^400 .*max_results/)

  const usageA = await usageOf(app, a.apiKey)
  t.same([usageA.calls_today, usageA.jobs_running + usageA.jobs_queued], [22, 22], 'a: 22 charged, 22 unfinished')
  t.match(await usageOf(app, b.apiKey), { calls_today: 50 })
  t.match(await usageOf(app, c.apiKey), { calls_today: 1 })
  const job = await db.job.findUniqueOrThrow({ where: { id: first!.job_id } })
  t.match(job, { accountId: c.id, tool: 'counter', status: 'running', tier: 'registered', retentionHours: 6, maxRecords: 200, resultsPath: 'tool-run', monitorId: null, agentName: '', records: 0, charged: true, refunded: false })
  t.equal(job.createdAt.toISOString(), '2026-11-30T12:00:00.000Z', 'the batch\'s rows carry its time')
  const view = await app.inject({ method: 'GET', url: `/api/tool-run/${first!.job_id}/status`, headers: { 'x-api-key': c.apiKey } })
  t.match(view.json(), { job_id: first!.job_id, tool: 'counter' }, 'a batch\'s job reads as any other')
})

t.test('a burst of concurrent starts cannot pass the cap together', async t => {
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '1' } })
  const a = await signup(app)
  const answers = await Promise.all(Array.from({ length: 26 }, () => startJob(app, a.apiKey, SLOW)))
  const codes = answers.map(r => r.statusCode)
  t.equal(codes.filter(c => c === 202).length, 22, '2 running + 20 queued accepted')
  t.equal(codes.filter(c => c === 429).length, 4, 'the rest refused')
  t.match(await usageOf(app, a.apiKey), { calls_today: 22, jobs_running: 1, jobs_queued: 21 })
})

t.test('the agent endpoint meets the same cap: isError naming it, nothing charged', async t => {
  const { app, base, user } = await listeningApp(t, { env: { JOB_CONCURRENCY: '1' } })
  for (let i = 0; i < 22; i++) await startSlow(app, user.apiKey)
  const client = await connect(t, base, user.apiKey)
  const refused = await client.callTool({ name: 'count_rows', arguments: { limit: 1, wait_seconds: 0 } }) as CallToolResult
  t.ok(refused.isError)
  t.match(refused.content.map(c => (c.type === 'text' ? c.text : '')).join(''), /at most 20 queued jobs on the registered plan.*Retry after \d+ s/)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 22)
})

// In the distributed rerun (TEST_REDIS_URL) a restart is a new API process and a new worker on a
// queue of their own: the resumed order is then the BullMQ line's, tested in test/cluster/.
t.test('jobs resumed at start go through the same scheduler', { skip: process.env.TEST_REDIS_URL ? 'the embedded scheduler\'s restart; the distributed one is in test/cluster/' : false }, async t => {
  const dataDir = tempDir(t)
  const databaseUrl = await freshDatabaseUrl(t, dataDir)
  const env = { JOB_CONCURRENCY: '1' }
  const first = await buildWithCounter(t, { dataDir, databaseUrl, env })
  const a = await signup(first)
  const b = await signup(first)
  const aJobs: string[] = []
  for (let i = 0; i < 4; i++) aJobs.push(await startSlow(first, a.apiKey))
  const bJob = await startSlow(first, b.apiKey)
  await until('A\'s first job runs', () => isClaimed(first, aJobs[0]!))
  await first.close() // the running job goes back to the queue; all five wait for the next start

  const second = await buildWithCounter(t, { dataDir, databaseUrl, env })
  await until('A\'s first job runs again', () => isClaimed(second, aJobs[0]!))
  t.notOk(await isClaimed(second, bJob), 'one slot, taken by the oldest job')
  t.equal((await cancel(second, a.apiKey, aJobs[0]!)).statusCode, 200)
  await until('B\'s job is claimed', () => isClaimed(second, bJob))
  t.same(await claimed(second, a.id), [aJobs[0]], 'B came before the rest of A\'s backlog')
})
