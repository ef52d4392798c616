// Workers as real processes (`npm run worker`'s command on a build of the
// source, test/helpers/service-build.ts) beside an API app that runs no job (issue 15, part A):
// they run what the API started; one SIGKILLed mid-job leaves a job that ends
// `interrupted` exactly once (one refund, one webhook, rows kept once, counters
// exact) while the others go on; a worker given METRICS_PORT serves its own
// metrics there, counting the jobs it ran, which the API's do not. SIGTERM:
// worker-drain.test.ts.
import t from 'tap'
import { signup } from '../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../helpers/jobs.ts'
import { parseExposition, scrape, valueOf, type Sample } from '../helpers/metrics.ts'
import { freePort } from '../../scripts/bench/server-process.ts'
import { prepareServiceBuild } from '../helpers/service-build.ts'
import { childWorker, hookCounter, jobIdOf, startCluster, storedSeqs, until } from './_cluster.ts'

// Each test boots worker processes: tens of seconds each on a loaded machine (and the first one may build the service).
t.setTimeout(600_000)
// The workers start from a build of the source: made (or awaited) while the first cluster boots.
prepareServiceBuild()

t.test('two worker processes run the jobs an API process started', async t => {
  const cluster = await startCluster(t)
  const { api } = cluster
  await childWorker(t, cluster)
  await childWorker(t, cluster)
  const user = await signup(api)
  const ids: string[] = []
  for (let i = 1; i <= 4; i++) ids.push(jobIdOf(await startJob(api, user.apiKey, { max_results: i, delay_ms: 20 })))
  const ends = await Promise.all(ids.map(id => waitForEnd(api, user.apiKey, id, 120_000)))
  t.same(ends.map(e => [e.status, e.records]), [['done', 1], ['done', 2], ['done', 3], ['done', 4]])
  t.equal(ids.filter(id => api.services.runner.isRunningHere(id)).length, 0, 'the API process ran none of them')
  t.match(await usageOf(api, user.apiKey), { calls_today: 4, records_today: 10 })
})

t.test('a worker process with METRICS_PORT serves its own metrics without a key: the job it ran ends there, not in the API process', async t => {
  const cluster = await startCluster(t)
  const { api } = cluster
  const port = await freePort()
  const worker = await childWorker(t, cluster, { METRICS_PORT: String(port), HOST: '127.0.0.1' })
  const url = `http://127.0.0.1:${port}/metrics`
  const scrapeWorker = async (): Promise<Sample[]> => {
    const res = await fetch(url)
    if (res.status !== 200) throw new Error(`the worker's GET /metrics answered ${res.status}`)
    return parseExposition(await res.text())
  }
  // The port answers once the worker has booted (its listener starts first in ServiceHost.start).
  await until(`the worker serves its metrics ${worker.stderr()}`, () => fetch(url).then(res => res.ok, () => false), 120_000)
  const plain = await fetch(url)
  t.equal(plain.status, 200, 'no key asked')
  t.match(plain.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  t.equal((await fetch(`http://127.0.0.1:${port}/api/health`)).status, 404, 'only GET /metrics on that port')

  const user = await signup(api)
  const workerBefore = await scrapeWorker()
  const apiBefore = await scrape(api)
  const id = jobIdOf(await startJob(api, user.apiKey, { max_results: 2 }))
  t.match(await waitForEnd(api, user.apiKey, id, 120_000), { status: 'done', records: 2 })
  const done = { tool: 'counter', outcome: 'done' }
  // The worker counts the ending just after writing it: the API may read the outcome a moment before.
  let workerAfter: Sample[] = []
  await until('the worker counted the ending', async () => {
    workerAfter = await scrapeWorker()
    return valueOf(workerAfter, 'jobs_ended_total', done) > valueOf(workerBefore, 'jobs_ended_total', done)
  }, 10_000)
  const apiAfter = await scrape(api)
  const inWorker = (name: string, labels: Record<string, string> = {}) => valueOf(workerAfter, name, labels) - valueOf(workerBefore, name, labels)
  const inApi = (name: string, labels: Record<string, string> = {}) => valueOf(apiAfter, name, labels) - valueOf(apiBefore, name, labels)

  t.equal(inWorker('jobs_started_total', { tool: 'counter' }), 1, 'worker: the run began there')
  t.equal(inWorker('jobs_ended_total', done), 1, 'worker: the job ended there, done')
  t.equal(inWorker('jobs_ended_total'), 1, 'worker: no other ending')
  t.equal(inWorker('job_duration_seconds_count', done), 1, 'worker: its duration observed')
  t.equal(inWorker('job_queue_wait_seconds_count', { tool: 'counter' }), 1, 'worker: its queue wait observed')
  t.equal(inWorker('rows_written_total', { tool: 'counter' }), 2, 'worker: its two rows')
  t.equal(valueOf(workerAfter, 'http_requests_total'), 0, 'worker: no API request (a scrape of its own port is not one)')

  t.equal(inApi('jobs_started_total'), 0, 'API: no run began there')
  t.equal(inApi('jobs_ended_total'), 0, 'API: no job ended there')
  t.equal(inApi('job_duration_seconds_count'), 0, 'API: no duration')
  t.equal(inApi('rows_written_total'), 0, 'API: no rows written')
  t.equal(inApi('http_requests_total', { method: 'POST', route: '/api/tool-run', status: '202' }), 1, 'API: it answered the start request')
})

t.test('a worker killed with SIGKILL mid-job: the job ends interrupted once, refunded, its rows kept once; the other worker goes on', async t => {
  const cluster = await startCluster(t)
  const { api } = cluster
  const hooks = await hookCounter(t)
  const doomed = await childWorker(t, cluster, { WORKER_CONCURRENCY: '1' })
  const user = await signup(api)
  const slow = jobIdOf(await api.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'counter', params: { max_results: 200, delay_ms: 100 }, webhook: { url: hooks.url } } }))
  await until('the job has rows', async () => (await storedSeqs(api, slow)).length >= 3, 120_000)
  // The survivor starts now, so the job was surely the doomed worker's.
  const survivor = await childWorker(t, cluster, { WORKER_CONCURRENCY: '1' })
  doomed.child.kill('SIGKILL')
  t.equal(await doomed.exited, null, 'killed by the signal')

  const ended = await waitForEnd(api, user.apiKey, slow, 60_000)
  t.match(ended, { status: 'error', refunded: true, error: /interrupted/ })
  const seqs = await storedSeqs(api, slow)
  t.same(seqs, seqs.map((_, i) => i), 'each row stored once, in order, none missing')
  t.equal(ended.records, seqs.length, 'records recounted from the rows')

  // The survivor still works (and BullMQ's own redelivery of the dead worker's offer, whenever it comes, finds the job claimed).
  const next = jobIdOf(await startJob(api, user.apiKey, { max_results: 3 }))
  t.match(await waitForEnd(api, user.apiKey, next, 120_000), { status: 'done', records: 3 })
  await until('the webhook arrived', () => hooks.deliveries(slow).length > 0, 10_000)
  // Every process reaps (the API and the survivor, every 200 ms): give them time to disagree.
  await new Promise(r => setTimeout(r, 1000))
  t.equal(hooks.deliveries(slow).length, 1, 'one webhook for the ending')
  t.match(hooks.deliveries(slow)[0], { event: 'job.error', job: { status: 'error', refunded: true } })
  t.match(await usageOf(api, user.apiKey), { calls_today: 1, records_today: seqs.length + 3, jobs_running: 0 }, 'one refund; every stored row counted once')
  t.equal(survivor.child.exitCode, null, 'the survivor is alive')
})

t.test('npm run worker without REDIS_URL stops at boot with exit code 78, naming the variable', async t => {
  const { spawnSync } = await import('node:child_process')
  const { tempDir } = await import('../helpers/build.ts')
  const { serviceBuild, serviceCommand, serviceEnvironment } = await import('../helpers/service-build.ts')
  const dir = tempDir(t)
  const build = await serviceBuild()
  const worker = serviceCommand(build, 'worker')
  const run = spawnSync(worker.command[0]!, worker.command.slice(1), {
    env: serviceEnvironment(build, worker, { DATA_DIR: dir, SECRET_KEY: 'worker-test-secret-0123456789', REDIS_URL: '', LOG_LEVEL: 'silent' }),
    encoding: 'utf8',
    timeout: 120_000,
  })
  t.equal(run.status, 78)
  t.match(run.stderr, /REDIS_URL/)
})
