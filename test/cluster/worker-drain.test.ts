// SIGTERM drains a worker process (issue 15, part A): it takes no new job; a
// running job finishes within WORKER_SHUTDOWN_GRACE_MS, or past it is handed
// back (rows dropped, not an ending) and another worker runs it from the start.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { signup } from '../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../helpers/jobs.ts'
import { prepareServiceBuild } from '../helpers/service-build.ts'
import { childWorker, hookCounter, jobIdOf, startCluster, storedSeqs, until } from './_cluster.ts'

// Each test boots worker processes: tens of seconds each on a loaded machine (and the first one may build the service).
t.setTimeout(600_000)
// The workers start from a build of the source: made (or awaited) while the first cluster boots.
prepareServiceBuild()

const jobRow = (api: FastifyInstance, id: string) => api.services.db.job.findUniqueOrThrow({ where: { id } })

t.test('SIGTERM drains a worker: a running job finishes within the grace period, and the worker takes no new job', async t => {
  const cluster = await startCluster(t)
  const { api } = cluster
  const worker = await childWorker(t, cluster, { WORKER_CONCURRENCY: '1', WORKER_SHUTDOWN_GRACE_MS: '60000' })
  const user = await signup(api)
  const running = jobIdOf(await startJob(api, user.apiKey, { max_results: 10, delay_ms: 150 }))
  await until('the job runs', async () => (await jobRow(api, running)).records >= 1, 120_000)
  worker.child.kill('SIGTERM')
  const later = jobIdOf(await startJob(api, user.apiKey, { max_results: 1 }))
  t.equal(await worker.exited, 0, 'the worker exited cleanly once its job was done')
  t.match(await jobRow(api, running), { status: 'done', records: 10 }, 'the running job finished')
  t.match(await jobRow(api, later), { status: 'running', startedAt: null }, 'the draining worker took no new job')
  await childWorker(t, cluster)
  t.match(await waitForEnd(api, user.apiKey, later, 120_000), { status: 'done' }, 'the next worker runs it')
})

t.test('SIGTERM past the grace period: the running job is handed back and another worker runs it from the start', async t => {
  const cluster = await startCluster(t)
  const { api } = cluster
  const hooks = await hookCounter(t)
  const first = await childWorker(t, cluster, { WORKER_CONCURRENCY: '1', WORKER_SHUTDOWN_GRACE_MS: '200' })
  const user = await signup(api)
  const long = jobIdOf(await api.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'counter', params: { max_results: 30, delay_ms: 100 }, webhook: { url: hooks.url } } }))
  await until('the job has rows', async () => (await jobRow(api, long)).records >= 2, 120_000)
  await childWorker(t, cluster, { WORKER_CONCURRENCY: '1' })
  first.child.kill('SIGTERM')
  t.equal(await first.exited, 0, 'the first worker exited cleanly')
  const ended = await waitForEnd(api, user.apiKey, long, 120_000)
  t.match(ended, { status: 'done', records: 30, refunded: false })
  t.same(await storedSeqs(api, long), Array.from({ length: 30 }, (_, i) => i), 'the rerun\'s rows only, each once')
  await until('the webhook arrived', () => hooks.deliveries(long).length > 0, 10_000)
  await new Promise(r => setTimeout(r, 500))
  t.equal(hooks.deliveries(long).length, 1, 'the hand-back is not an ending: one webhook, for the rerun')
  t.match(await usageOf(api, user.apiKey), { calls_today: 1 })
})
