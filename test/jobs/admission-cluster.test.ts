// The per-account admission across API processes (REDIS_URL): a burst of
// starts spread over two apps on one database passes the job caps exactly as
// one process would (the cap check, the charge and the insert of an account
// hold its lock in Redis), and one Idempotency-Key sent to both at once makes
// one job and one replay.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, usageOf } from '../helpers/jobs.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { tierLimits } from '../../core/quotas/tiers.ts'

async function twoApps (t: Parameters<typeof buildWithCounter>[0], redisUrl: string): Promise<[FastifyInstance, FastifyInstance]> {
  const a = await buildWithCounter(t, { env: { REDIS_URL: redisUrl } })
  const { dataDir, databaseUrl } = a.services.config
  return [a, await buildWithCounter(t, { dataDir, databaseUrl, env: { REDIS_URL: redisUrl } })]
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
