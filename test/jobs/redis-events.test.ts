// Job events across processes (REDIS_URL): two apps on one database and one
// Redis stand for two API processes. A job started and run on A is followed
// from B, over the WebSocket (progress, then the one final message) and by a
// sync wait (what the MCP job tools and POST /api/website-email/find use);
// a Redis restart mid-run: the subscriber subscribes again and events resume;
// a job that ends while Redis is away still sends its final message.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, waitForEnd } from '../helpers/jobs.ts'
import { startRedis, type RedisServer } from '../helpers/redis-server.ts'
import { openSocket } from '../helpers/socket.ts'
import { requireAccount } from '../../core/auth/guards.ts'

/** Two API processes: one database, one Redis. */
async function twoApps (t: Parameters<typeof buildWithCounter>[0], redis: RedisServer): Promise<[FastifyInstance, FastifyInstance]> {
  // One cluster (one queue prefix) in which A runs the jobs and B runs none: otherwise B's
  // maintenance pass, which offers every queued row again, could hand A's new job to B.
  const prefix = `t${randomBytes(6).toString('hex')}`
  const a = await buildWithCounter(t, { env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, RUN_JOBS: '1' } })
  const { dataDir, databaseUrl } = a.services.config
  const b = await buildWithCounter(t, { dataDir, databaseUrl, env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, RUN_JOBS: '0' } })
  return [a, b]
}

/**
 * A counter job started on A, followed over a WebSocket on B (its listeners
 * attached before it opens: socket.ts).
 */
async function followedOnB (t: Parameters<typeof buildWithCounter>[0], params: Record<string, unknown>) {
  const redis = await startRedis(t)
  const [a, b] = await twoApps(t, redis)
  const user = await signup(a)
  const { job_id: id } = (await startJob(a, user.apiKey, params)).json()
  const { messages, closed } = await openSocket(b, `/api/tool-run/${id}/ws`, { headers: { 'x-api-key': user.apiKey } })
  return { redis, a, b, user, id, messages, closed }
}

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

t.test('a job run on A is followed over a WebSocket on B: progress, then one final message', async t => {
  // Rows 400 ms apart: the job must still be running on A when B's first row arrives (80 ms
  // apart it had ended by then on a loaded machine, and "A runs it" failed).
  const { a, b, user, id, messages, closed } = await followedOnB(t, { max_results: 6, delay_ms: 400 })
  // A row counted: B's first message may be the stored status of a job A has not claimed yet.
  await until('the first progress message with a row', () => messages.some(m => m.type === 'progress' && m.records >= 1))
  t.ok(a.services.runner.isRunningHere(id), 'A runs it')
  t.notOk(b.services.runner.isRunningHere(id), 'B does not')
  t.equal(await closed, 1000)
  const progress = messages.filter(m => m.type === 'progress')
  t.ok(progress.length >= 2, `progress from A reached B (${progress.length} messages)`)
  const records = progress.map(m => m.records)
  t.same(records, [...records].sort((x, y) => x - y), 'records never go down')
  t.ok(records[records.length - 1] > records[0], 'and they moved while B watched')
  t.match(messages[messages.length - 1], { type: 'done', job: { job_id: id, status: 'done', records: 6 } })
  t.equal(messages.filter(m => m.type !== 'progress').length, 1, 'exactly one final message')

  const failing = (await startJob(a, user.apiKey, { max_results: 6, delay_ms: 50, outcome: 'blocked' })).json().job_id
  const second = await openSocket(b, `/api/tool-run/${failing}/ws`, { headers: { 'x-api-key': user.apiKey } })
  await second.closed
  t.match(second.messages[second.messages.length - 1], { type: 'error', job: { status: 'error', blocked: true, refunded: true } }, 'an error ending too')
})

t.test('a sync wait on B (the MCP job tools, the synchronous alias) hears progress and the end of a job run on A', async t => {
  const redis = await startRedis(t)
  const [a, b] = await twoApps(t, redis)
  const user = await signup(a)
  const caller = requireAccount(await b.services.keys.resolve(user.apiKey), { scoped: true })
  // 2 s of rows: B's wait is listening before the job ends, even on a loaded machine.
  const { job_id: id } = (await startJob(a, user.apiKey, { max_results: 5, delay_ms: 400 })).json()
  const progress: number[] = []
  const final = await b.services.jobs.waitFor(caller, id, 15_000, (records) => { progress.push(records) })
  t.match(final, { job_id: id, status: 'done', records: 5 })
  t.ok(progress.length >= 1, `progress events from A reached the wait on B (${progress.length})`)
})

t.test('Redis restarts mid-run: B subscribes again, progress resumes, the final message arrives', async t => {
  // 8 s of rows: some are left after the restart and both reconnections, even on a loaded machine.
  const { redis, a, b, id, messages, closed } = await followedOnB(t, { max_results: 40, delay_ms: 200 })
  await until('progress before the restart', () => messages.some(m => m.type === 'progress' && m.records >= 2))
  await redis.restart()
  t.ok((await Promise.all([a, b].map(app => app.services.redis!.ready(5000)))).every(Boolean), 'both reconnected')
  const heardBeforeBack = messages.length
  const recordsAtRestart = Math.max(...messages.filter(m => m.type === 'progress').map(m => m.records))
  t.equal(await closed, 1000)
  const after = messages.slice(heardBeforeBack).filter(m => m.type === 'progress' && m.records > recordsAtRestart)
  t.ok(after.length >= 1, `progress resumed after the restart (${after.length} messages)`)
  t.match(messages[messages.length - 1], { type: 'done', job: { job_id: id, status: 'done', records: 40 } })
})

t.test('the job ends while Redis is away: B\'s WebSocket still gets the final message once Redis is back', async t => {
  const { redis, a, user, id, messages, closed } = await followedOnB(t, { max_results: 8, delay_ms: 100 })
  await until('the first progress message', () => messages.some(m => m.type === 'progress'))
  await redis.stop()
  t.match(await waitForEnd(a, user.apiKey, id), { status: 'done' }, 'the job ended on A meanwhile')
  t.notOk(messages.some(m => m.type === 'done'), 'B has not heard of it yet')
  await redis.start()
  t.equal(await closed, 1000)
  t.match(messages[messages.length - 1], { type: 'done', job: { job_id: id, status: 'done', records: 8 } })
  t.equal(messages.filter(m => m.type !== 'progress').length, 1, 'one final message')
})
