// The per-account admission across API processes (REDIS_URL): a burst of
// starts spread over two apps on one database passes the job caps exactly as
// one process would (the cap check, the charge and the insert of an account
// hold its lock in Redis), and one Idempotency-Key sent to both at once makes
// one job and one replay; a batch start (startMany) whose account is admitted
// elsewhere waits without keeping its other accounts' admissions.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, usageOf } from '../helpers/jobs.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { tierLimits } from '../../core/quotas/tiers.ts'
import { RedisConnections } from '../../core/redis/redis-connections.ts'
import { RedisSharedState } from '../../core/shared-state/redis-shared-state.ts'
import { MemorySharedState } from '../../core/shared-state/memory-shared-state.ts'
import pino from 'pino'

async function twoApps (t: Parameters<typeof buildWithCounter>[0], redisUrl: string): Promise<[FastifyInstance, FastifyInstance]> {
  // The burst's jobs run for a minute: closing an app at the test's end hands them back at once
  // instead of giving them the default 10 s grace (once per app, in turn: 20 s of the file's 26).
  const env = { REDIS_URL: redisUrl, WORKER_SHUTDOWN_GRACE_MS: '0' }
  const a = await buildWithCounter(t, { env })
  const { dataDir, databaseUrl } = a.services.config
  return [a, await buildWithCounter(t, { dataDir, databaseUrl, env })]
}

t.test('a burst over two API processes meets the job caps exactly; refused starts cost nothing', async t => {
  const redis = await startRedis(t)
  const [a, b] = await twoApps(t, redis.url)
  const user = await signup(a)
  const limits = tierLimits('registered')
  const cap = limits.max_running_jobs + limits.max_queued_jobs
  const burst = cap + 6
  const answers = await Promise.all(Array.from({ length: burst }, (_, i) =>
    startJob(i % 2 ? b : a, user.apiKey, { max_results: 1, delay_ms: 60_000 })))
  const codes = answers.map(r => r.statusCode)
  t.equal(codes.filter(c => c === 202).length, cap, `${cap} started`)
  t.equal(codes.filter(c => c === 429).length, burst - cap, 'the rest refused by the caps')
  t.equal(await a.services.db.job.count({ where: { accountId: user.id } }), cap, 'no job row past the caps')
  t.equal((await usageOf(a, user.apiKey)).calls_today, cap, 'only the started ones were charged')
})

t.test('one Idempotency-Key sent to both processes at once: one job, one replay', async t => {
  const redis = await startRedis(t)
  const [a, b] = await twoApps(t, redis.url)
  const user = await signup(a)
  const headers = { 'idempotency-key': 'burst-1' }
  const [first, second] = await Promise.all([a, b].map(app => startJob(app, user.apiKey, { max_results: 1 }, 'counter', headers)))
  t.same([first!.statusCode, second!.statusCode].sort(), [200, 202], 'one start, one replay')
  t.equal(first!.json().job_id, second!.json().job_id, 'of the same job')
  t.equal([first, second].filter(r => r!.headers['idempotent-replayed'] === 'true').length, 1)
  t.equal((await usageOf(a, user.apiKey)).calls_today, 1, 'charged once')
})

t.test('a start waits while another process holds the account\'s admission lock', async t => {
  const redis = await startRedis(t)
  const [a] = await twoApps(t, redis.url)
  const user = await signup(a)
  const connections = new RedisConnections(redis.url, pino({ level: 'silent' }))
  t.teardown(() => connections.close())
  const elsewhere = new RedisSharedState(connections, new MemorySharedState())
  t.ok(await connections.ready(5000))
  const release = await elsewhere.lock(`admit:${user.id}`, { ttlMs: 30_000, waitMs: 1000 })
  let answered = false
  const start = startJob(a, user.apiKey, { max_results: 1 }).then(res => { answered = true; return res })
  await new Promise(resolve => setTimeout(resolve, 300))
  t.notOk(answered, 'no answer while the other process admits a start of this account')
  await release()
  t.equal((await start).statusCode, 202, 'admitted once the lock is released')
  const other = await signup(a)
  const held = await elsewhere.lock(`admit:${user.id}`, { ttlMs: 30_000, waitMs: 1000 })
  t.equal((await startJob(a, other.apiKey, { max_results: 1 })).statusCode, 202, 'another account is not held up')
  await held()
})

t.test('a batch start while another process holds one of its accounts\' admissions: it lets go of the others, waits, then starts all', async t => {
  const redis = await startRedis(t)
  const [a] = await twoApps(t, redis.url)
  const users = [await signup(a), await signup(a)]
  const [held, free] = users.map(u => u.id).sort()
  const connections = new RedisConnections(redis.url, pino({ level: 'silent' }))
  t.teardown(() => connections.close())
  const elsewhere = new RedisSharedState(connections, new MemorySharedState())
  t.ok(await connections.ready(5000))
  const releaseHeld = await elsewhere.lock(`admit:${held}`, { ttlMs: 30_000, waitMs: 1000 })
  const callers = await Promise.all(users.map(async u => {
    const account = await a.services.db.account.findUniqueOrThrow({ where: { id: u.id } })
    return { account, tier: 'registered' as const, principal: { kind: 'personal' as const, account, tier: 'registered' as const, keyId: 'test' } }
  }))
  let answered = false
  const batch = a.services.jobs.startMany(callers.map(caller => ({ caller, tool: 'counter', params: { max_results: 1 } }))).then(outcomes => { answered = true; return outcomes })
  // While it waits for the held one, the batch keeps no other admission: another process takes the other account's meanwhile.
  const releaseFree = await elsewhere.lock(`admit:${free}`, { ttlMs: 30_000, waitMs: 5000 })
  t.notOk(answered, 'no answer while an account of the batch is being admitted elsewhere')
  await releaseFree()
  await releaseHeld()
  const outcomes = await batch
  t.equal(outcomes.length, 2)
  for (const [i, outcome] of outcomes.entries()) {
    t.match(outcome, { status: 'running' }, 'each start admitted once the lock is released')
    t.equal((await a.services.db.job.findUniqueOrThrow({ where: { id: (outcome as { job_id: string }).job_id } })).accountId, users[i]!.id)
  }
})
