// The distributed mode with workers in this process (issue 15, part A): an API
// app on REDIS_URL offers jobs and runs none; workers built beside it on the same
// database run them; an account's running cap holds across two workers without
// starving another account; a Redis restart mid-run loses nothing. Workers as
// real processes (SIGKILL, SIGTERM): worker-processes.test.ts.
import t from 'tap'
import { signup } from '../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../helpers/jobs.ts'
import { inProcessWorker, startCluster, until } from './_cluster.ts'
import type { FastifyInstance } from 'fastify'

const jobIdOf = (res: { statusCode: number, body: string, json: () => any }): string => {
  if (res.statusCode !== 202) throw new Error(`start answered ${res.statusCode}: ${res.body}`)
  return res.json().job_id
}

/** The account's jobs a worker has claimed and that still run. */
const claimedRunning = (app: FastifyInstance, accountId: string) =>
  app.services.db.job.count({ where: { accountId, status: 'running', startedAt: { not: null } } })

const cancel = (app: FastifyInstance, key: string, id: string) => app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': key } })

t.test('jobs started on an API process wait in Redis and are run by a worker; the API runs none', async t => {
  const cluster = await startCluster(t)
  const { api } = cluster
  let ranHere = 0
  const execute = api.services.runner.execute.bind(api.services.runner)
  api.services.runner.execute = (...args) => { ranHere++; return execute(...args) }
  const user = await signup(api)
  const ids = [
    jobIdOf(await startJob(api, user.apiKey, { max_results: 5 })),
    jobIdOf(await startJob(api, user.apiKey, { max_results: 3, batch: 2 })),
    jobIdOf(await startJob(api, user.apiKey, { max_results: 3, outcome: 'upstream' })),
  ]
  t.equal((await api.inject({ url: `/api/tool-run/${ids[0]}/status`, headers: { 'x-api-key': user.apiKey } })).json().stage, 'queued', 'no worker yet: the job waits')

  await inProcessWorker(t, cluster)
  const ended = await Promise.all(ids.map(id => waitForEnd(api, user.apiKey, id, 60_000)))
  t.match(ended[0], { status: 'done', records: 5 })
  t.match(ended[1], { status: 'done', records: 3 })
  t.match(ended[2], { status: 'error', refunded: true })
  const page = (await api.inject({ url: `/api/tool-run/${ids[0]}/results`, headers: { 'x-api-key': user.apiKey } })).json()
  t.same(page.results.map((r: { n: number }) => r.n), [1, 2, 3, 4, 5], 'the rows the worker stored, read through the API')
  t.equal(ranHere, 0, 'the API process (RUN_JOBS unset) ran no job')
  t.match(await usageOf(api, user.apiKey), { calls_today: 2, records_today: 10, jobs_running: 0, jobs_queued: 0 })
})

t.test('the running cap of an account holds across two workers, and another account\'s first job is not starved', async t => {
  const cluster = await startCluster(t)
  const { api } = cluster
  const workers = [await inProcessWorker(t, cluster, { WORKER_CONCURRENCY: '4' }), await inProcessWorker(t, cluster, { WORKER_CONCURRENCY: '4' })]
  const a = await signup(api)
  const b = await signup(api)
  const aJobs: string[] = []
  // Sampled all along: never more than the registered cap of 2 of A's jobs running their tool at
  // once across both workers. (The database may show a third claim for a moment: a claim is
  // written, then counted, and undone when over the cap, before the tool runs. And a job cancelled
  // through the API has ended: its worker notices at its next heartbeat, the slot is free at once.)
  const cancelled = new Set<string>()
  let most = 0
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      most = Math.max(most, workers.reduce((n, w) => n + aJobs.filter(id => !cancelled.has(id) && w.services.runner.isRunningHere(id)).length, 0))
      await new Promise(r => setTimeout(r, 5))
    }
  })()
  for (let i = 0; i < 8; i++) aJobs.push(jobIdOf(await startJob(api, a.apiKey, { max_results: 1, delay_ms: 60_000 })))
  await until('two of A\'s jobs run', async () => (await claimedRunning(api, a.id)) === 2)
  // Eight slots across the two workers, six of A's jobs waiting at A's cap in front of B's.
  const bJob = jobIdOf(await startJob(api, b.apiKey, { max_results: 1, delay_ms: 60_000 }))
  await until('B\'s first job runs', async () => (await claimedRunning(api, b.id)) === 1)
  t.equal(await claimedRunning(api, a.id), 2, 'A still has two running')

  // A slot of A turns over: another of A's jobs takes it, and still no more than two.
  const first = (await api.services.db.job.findMany({ where: { accountId: a.id, startedAt: { not: null } }, select: { id: true } }))[0]!.id
  cancelled.add(first)
  t.equal((await cancel(api, a.apiKey, first)).statusCode, 200)
  await until('A runs two again', async () => (await api.services.db.job.count({ where: { accountId: a.id, startedAt: { not: null } } })) === 3 && (await claimedRunning(api, a.id)) === 2)
  sampling = false
  await sampler
  t.ok(most <= 2, `A never had more than 2 jobs running at once (most: ${most})`)
  t.equal(most, 2, 'and it did have two')
  t.match(await usageOf(api, a.apiKey), { jobs_running: 2, jobs_queued: 5 })
  for (const id of [...aJobs, bJob]) await cancel(api, id === bJob ? b.apiKey : a.apiKey, id)
})

t.test('every slot taken by one account\'s jobs: its backlog does not hold back another account\'s first job', async t => {
  const cluster = await startCluster(t)
  const { api } = cluster
  await inProcessWorker(t, cluster, { WORKER_CONCURRENCY: '2' })
  const a = await signup(api)
  const b = await signup(api)
  t.equal((await api.inject({ method: 'POST', url: '/api/auth/claim-pro', headers: { 'x-api-key': a.apiKey } })).statusCode, 200, 'A is Pro: a cap of 4, above the worker\'s 2 slots')
  const aJobs: string[] = []
  for (let i = 0; i < 12; i++) aJobs.push(jobIdOf(await startJob(api, a.apiKey, { max_results: 1, delay_ms: 60_000 })))
  await until('both slots hold A\'s jobs', async () => (await claimedRunning(api, a.id)) === 2)
  const bJob = jobIdOf(await startJob(api, b.apiKey, { max_results: 1, delay_ms: 60_000 }))
  const running = await api.services.db.job.findMany({ where: { accountId: a.id, startedAt: { not: null } }, select: { id: true } })
  t.equal((await cancel(api, a.apiKey, running[0]!.id)).statusCode, 200, 'one slot turns over')
  await until('B\'s job is claimed', async () => (await claimedRunning(api, b.id)) === 1)
  t.equal(await api.services.db.job.count({ where: { accountId: a.id, startedAt: { not: null } } }), 2, 'the freed slot went to B, not to A\'s backlog')
  for (const id of aJobs) await cancel(api, a.apiKey, id)
  await cancel(api, b.apiKey, bJob)
})

t.test('Redis restarts mid-run: running and waiting jobs go on, a start made while it is down runs, nothing is lost', async t => {
  const cluster = await startCluster(t)
  const { api, redis } = cluster
  await inProcessWorker(t, cluster, { WORKER_CONCURRENCY: '1' })
  const user = await signup(api)
  const slow = jobIdOf(await startJob(api, user.apiKey, { max_results: 20, delay_ms: 100 }))
  const waiting = [
    jobIdOf(await startJob(api, user.apiKey, { max_results: 2 })),
    jobIdOf(await startJob(api, user.apiKey, { max_results: 3 })),
  ]
  await until('the slow job is under way', async () => ((await api.services.db.job.findUnique({ where: { id: slow } }))?.records ?? 0) >= 2)
  // The test server keeps nothing on disk: it comes back empty, as after a crash without persistence.
  await redis.stop()
  const whileDown = jobIdOf(await startJob(api, user.apiKey, { max_results: 4 }))
  await new Promise(r => setTimeout(r, 300))
  await redis.start()
  const ends = await Promise.all([slow, ...waiting, whileDown].map(id => waitForEnd(api, user.apiKey, id, 60_000)))
  t.same(ends.map(e => [e.status, e.records]), [['done', 20], ['done', 2], ['done', 3], ['done', 4]], 'every job ended done with all its rows')
  for (const [i, id] of [slow, ...waiting, whileDown].entries()) {
    t.equal(await api.services.db.resultRow.count({ where: { jobId: id } }), ends[i]!.records, 'no row stored twice')
  }
  t.match(await usageOf(api, user.apiKey), { calls_today: 4, records_today: 29 })
})
