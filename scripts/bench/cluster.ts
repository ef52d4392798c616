// Benchmark (issue 15): the distributed mode (REDIS_URL, BullMQ).
// 1. Throughput: jobs/s of a light I/O-bound job (the test counter tool:
//    5 rows after a 500 ms pause, i.e. waiting, not computing) run by 1 and then
//    by 2 worker processes (`core/worker.ts`, WORKER_CONCURRENCY each), started
//    through an API app in this process that runs none. A batch of jobs is
//    started spread over Pro accounts (their running cap, 4, stays out of the
//    way) and timed from the first start to the last ending seen in the database.
// 2. The queue's cost: start-to-done p50 of a trivial job (max_results 1), one
//    at a time, in single-process mode (embedded queue) and through Redis with
//    a worker in this process (so the figure is the queue's, not a second
//    process's event delivery), the two modes taking turns in rounds of 20;
//    the difference is the overhead. The end is the runner's final event,
//    tapped in the process that runs the job (no polling).
// 3. The crowd: two API processes (`npm start`'s command) and two workers
//    (`npm run worker`'s: the compiled dist/, so `npm run build` first), 100
//    ten-second jobs, 1,000 status pollers (each on its own connection, every
//    `poll_seconds`) and 200 WebSocket watchers (on the API process that did
//    not start the job), spread over both: errors, p50/p99 latency.
// Needs redis-server (REDIS_SERVER_BIN). SQLite by default (one WAL file shared
// by the processes); BENCH_DATABASE_URL=postgresql://… (a database it may fill) for PostgreSQL.
// Run: node --import tsx scripts/bench/cluster.ts   (BENCH_JOBS, BENCH_OVERHEAD_JOBS, BENCH_WORKER_CONCURRENCY,
//      BENCH_POLLERS, BENCH_WATCHERS, BENCH_CROWD_JOBS; BENCH_ONLY=crowd for part 3 alone)
// Goals: 2 workers ≥ 1.7× one worker; queue overhead p50 < 10 ms; the crowd without an error.
// Exits non-zero on errors (a crowd error included).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent as HttpAgent, get as httpGet } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../core/app.ts'
import { buildServices, type ServiceHost } from '../../core/services.ts'
import { WebSocket } from 'ws'
import { startRedis } from '../../test/helpers/redis-server.ts'
import { COUNTER_PLUGIN, goal, percentile, printTable, proAccount, REPO, runMain, startJob, startBenchApp } from './harness.ts'
import { counterPluginForStart, signUp, startWorker } from './processes.ts'
import { npmScriptCommand, processCpuMs, scriptEnvironment, startServerProcess, type ServerProcess } from './server-process.ts'

const JOBS = Number(process.env.BENCH_JOBS ?? 160)
const OVERHEAD_JOBS = Number(process.env.BENCH_OVERHEAD_JOBS ?? 200)
const WORKER_CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? '4'
/** The light I/O-bound job: one pause (an upstream's answer), then its rows. */
const LIGHT_JOB = { max_results: 5, batch: 5, delay_ms: 500 }
/** Starts sent at once: the API must offer faster than two workers drain. */
const START_BURST = 8
const CALLS_PER_ACCOUNT = 400
/** Jobs of one overhead round, each mode in turn. */
const OVERHEAD_ROUND = 20
/** The crowd: status pollers and WebSocket watchers of CROWD_JOBS jobs, spread over two API processes. */
const POLLERS = Number(process.env.BENCH_POLLERS ?? 1000)
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 200)
const CROWD_JOBS = Number(process.env.BENCH_CROWD_JOBS ?? 100)
/** The crowd's job: a row every 500 ms for 10 s (a progress message each), so pollers and watchers overlap the runs. */
const CROWD_JOB = { max_results: 20, batch: 1, delay_ms: 500 }
/** A Pro account runs 4 jobs at once: so many accounts that every crowd job runs at once. */
const PRO_RUNNING = 4

/** The TypeScript worker under tsx (parts 1 and 2 load the counter tool from its .ts folder). */
const TSX_WORKER = [process.execPath, '--import', 'tsx', join(REPO, 'core/worker.ts')]

/** Starts `count` light jobs over the accounts and waits until the database shows them all ended; jobs/s over that span. */
async function throughput (app: FastifyInstance, keys: string[], count: number): Promise<{ seconds: number, perSecond: number }> {
  const t0 = performance.now()
  const ids: string[] = []
  for (let i = 0; i < count; i += START_BURST) {
    const burst = Array.from({ length: Math.min(START_BURST, count - i) }, (_, j) => startJob(app, keys[(i + j) % keys.length]!, 'counter', LIGHT_JOB))
    ids.push(...await Promise.all(burst))
  }
  for (;;) {
    const open = await app.services.db.job.count({ where: { id: { in: ids }, status: 'running' } })
    if (open === 0) break
    await new Promise(r => setTimeout(r, 20))
  }
  const seconds = (performance.now() - t0) / 1000
  const failed = await app.services.db.job.count({ where: { id: { in: ids }, status: { not: 'done' } } })
  if (failed) throw new Error(`${failed} jobs did not end done`)
  return { seconds, perSecond: count / seconds }
}

/**
 * Taps the final events of the process that runs the jobs: the moment the
 * runner emits a job's done/error (after its last write), as a promise per job.
 */
function endTap (runnerHost: { events: FastifyInstance['services']['events'] }): (jobId: string) => Promise<number> {
  const waiters = new Map<string, (t: number) => void>()
  const early = new Map<string, number>()
  const emit = runnerHost.events.emit.bind(runnerHost.events)
  runnerHost.events.emit = (jobId, event) => {
    if (event.type !== 'progress') {
      const t = performance.now()
      const w = waiters.get(jobId)
      if (w) { waiters.delete(jobId); w(t) } else early.set(jobId, t)
    }
    emit(jobId, event)
  }
  return (jobId) => {
    const t = early.get(jobId)
    if (t !== undefined) { early.delete(jobId); return Promise.resolve(t) }
    return new Promise<number>(resolve => waiters.set(jobId, resolve))
  }
}

interface OverheadSide { app: FastifyInstance, ended: (jobId: string) => Promise<number>, keys: string[], times: number[] }

/**
 * Start-to-done of trivial jobs one at a time, the two modes taking turns in
 * rounds of OVERHEAD_ROUND (so a neighbour's burst on a shared machine falls
 * on both, not on whichever ran second); the first round of each is warm-up.
 */
async function overhead (sides: OverheadSide[], count: number): Promise<void> {
  let i = 0
  for (let round = 0; round * OVERHEAD_ROUND < count + OVERHEAD_ROUND; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      for (let j = 0; j < OVERHEAD_ROUND; j++, i++) {
        const t0 = performance.now()
        const id = await startJob(side.app, side.keys[i % side.keys.length]!, 'counter', { max_results: 1 })
        const t1 = await side.ended(id)
        if (round > 0) side.times.push(t1 - t0)
      }
    }
  }
  for (const side of sides) side.times.sort((a, b) => a - b)
}

interface CrowdResult {
  jobs: number
  polls: number[]
  /** Polls that opened their connection (a poller's first to each API process, or after the server closed it), their handshakes (ms), and every poll's wait from connected to the answer's headers (ms). */
  pollsOnNewConnection: number
  connects: number[]
  answers: number[]
  pollErrors: number
  pollSeconds: number
  /** Final WebSocket message received minus the job's finished_at, ms. */
  finalLag: number[]
  /** Upgrade request to the first message, ms. */
  firstMessage: number[]
  progressMessages: number
  watchErrors: number
  /** CPU ms the two API processes used during the crowd, per answered poll (WebSocket work included). */
  apiCpuPerPoll: number
  workerCpuMs: number
  /** This process (the load generator: pollers and watchers): CPU ms during the crowd, and its event loop's delay p50/p99 ms. */
  benchCpuMs: number
  benchLoopDelay: [number, number]
  errorSamples: string[]
  seconds: number
}

/** Where one poll's time went: whether it opened its connection, and the ms to connect and to the answer's headers. */
interface PollTiming { opened: boolean, connectMs: number, answerMs: number }

/**
 * One GET with its own keep-alive agent (each poller is its own client, with
 * its own connection); `timing` gets where the time went: a new connection's
 * handshake, then the wait for the answer (which includes the time the
 * connection waited in the server's accept queue: the request is written as
 * soon as the kernel completes the handshake, before the server accepts).
 */
function getJson (agent: HttpAgent, url: string, apiKey: string, timing?: (t: PollTiming) => void): Promise<{ status: number, body: any }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    let opened = false
    let connected = t0
    const req = httpGet(url, { agent, headers: { 'x-api-key': apiKey } }, (res) => {
      const headers = performance.now()
      timing?.({ opened, connectMs: connected - t0, answerMs: headers - connected })
      let data = ''
      res.setEncoding('utf8')
      res.on('data', (c) => { data += c })
      res.on('end', () => { try { resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }) } catch (err) { reject(err) } })
      res.on('error', reject)
    })
    req.on('socket', (socket) => {
      if (!socket.connecting) return
      opened = true
      socket.once('connect', () => { connected = performance.now() })
    })
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')))
    req.on('error', reject)
  })
}

/**
 * Two API processes (`npm start`'s command) and two workers (`npm run
 * worker`'s), all on the bench's Redis and database. CROWD_JOBS jobs are
 * started, alternately on each API process; then POLLERS clients poll their
 * job's status every `poll_seconds` (what the start tells them), each on its own
 * connection, alternating processes, until their job ends; WATCHERS WebSockets
 * follow a job on the process that did not start it (so every message crosses
 * Redis) to the final message. Errors: a status that is not 200, a socket that
 * fails or closes without the final message, a final message that disagrees
 * with the stored outcome.
 */
async function crowdPhase (baseEnv: Record<string, string>, dir: string): Promise<CrowdResult> {
  const counter = await counterPluginForStart()
  const toolsConfig = join(dir, 'tools.crowd.config.json')
  writeFileSync(toolsConfig, JSON.stringify({ tools: [{ key: 'counter', plugin: counter, enabled: true }], retired: [] }))
  const env: Record<string, string> = {
    ...baseEnv,
    TOOLS_CONFIG: toolsConfig,
    // Every crowd job at once across the two workers (they wait, they do not compute).
    WORKER_CONCURRENCY: String(Math.ceil(CROWD_JOBS / 2) + 4),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  }
  const stops: Array<() => Promise<unknown>> = []
  try {
    const apis: ServerProcess[] = []
    for (let i = 0; i < 2; i++) {
      const server = await startServerProcess({ env, readyTimeoutMs: 180_000 })
      stops.unshift(server.stop)
      apis.push(server)
    }
    const workers: Array<{ pid: number }> = []
    for (let i = 0; i < 2; i++) {
      // `npm run worker`'s command: the compiled worker, as an operator runs it.
      const w = startWorker(npmScriptCommand('worker'), { ...scriptEnvironment('worker'), ...env })
      stops.unshift(w.stop)
      await w.ready
      workers.push(w)
    }
    const keys: string[] = []
    for (let i = 0; i < Math.ceil(CROWD_JOBS / PRO_RUNNING); i++) keys.push(await signUp(apis[i % 2]!.url, true))
    const t0 = performance.now()
    const jobs: Array<{ id: string, key: string, started: number, pollSeconds: number }> = []
    for (let i = 0; i < CROWD_JOBS; i++) {
      const key = keys[Math.floor(i / PRO_RUNNING)]!
      const res = await fetch(`${apis[i % 2]!.url}/api/tool-run`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ tool: 'counter', params: CROWD_JOB }) })
      const body = await res.json() as { job_id: string, poll_seconds: number }
      if (res.status !== 202) throw new Error(`crowd start failed: ${res.status} ${JSON.stringify(body)}`)
      jobs.push({ id: body.job_id, key, started: i % 2, pollSeconds: body.poll_seconds })
    }
    const result: CrowdResult = { jobs: CROWD_JOBS, polls: [], pollsOnNewConnection: 0, connects: [], answers: [], pollErrors: 0, pollSeconds: jobs[0]!.pollSeconds, finalLag: [], firstMessage: [], progressMessages: 0, watchErrors: 0, apiCpuPerPoll: 0, workerCpuMs: 0, benchCpuMs: 0, benchLoopDelay: [0, 0], errorSamples: [], seconds: 0 }
    const apiCpu = () => apis.reduce((sum, a) => sum + a.cpuMs().total, 0)
    const cpuBefore = apiCpu()
    const workerCpu = () => workers.reduce((sum, w) => sum + processCpuMs(w.pid), 0)
    const workerCpuBefore = workerCpu()
    const benchCpuBefore = process.cpuUsage()
    const benchLoop = monitorEventLoopDelay({ resolution: 10 })
    benchLoop.enable()
    const failed = (kind: 'poll' | 'watch', what: string) => {
      if (kind === 'poll') result.pollErrors++; else result.watchErrors++
      if (result.errorSamples.length < 10) result.errorSamples.push(`${kind}: ${what}`)
    }
    const outcomes = new Map<string, string>()

    const watcher = (n: number) => new Promise<void>((resolve) => {
      const job = jobs[n % jobs.length]!
      const api = apis[1 - job.started]!
      const t = performance.now()
      let first = true
      let final = false
      const ws = new WebSocket(`ws://127.0.0.1:${api.port}/api/tool-run/${job.id}/ws`, { headers: { 'x-api-key': job.key } })
      ws.on('message', (data) => {
        const now = Date.now()
        if (first) { first = false; result.firstMessage.push(performance.now() - t) }
        const message = JSON.parse(String(data)) as { type: string, job?: { status: string, finished_at: string | null } }
        if (message.type === 'progress') { result.progressMessages++; return }
        if ((message.type === 'done' || message.type === 'error') && message.job) {
          final = true
          if (message.job.status !== 'done') failed('watch', `job ${job.id} ended ${message.job.status}`)
          result.finalLag.push(now - Date.parse(message.job.finished_at!))
          outcomes.set(job.id, message.job.status)
          return
        }
        failed('watch', `unexpected message ${String(data).slice(0, 200)}`)
      })
      ws.on('error', (err) => failed('watch', err.message))
      ws.on('close', (code) => { if (!final) failed('watch', `closed ${code} before the final message`); resolve() })
    })

    const poller = async (n: number) => {
      const job = jobs[n % jobs.length]!
      const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 })
      const interval = job.pollSeconds * 1000
      // Spread over one interval, as clients that started at different moments.
      await new Promise(r => setTimeout(r, Math.random() * interval))
      try {
        for (let k = 0; ; k++) {
          const api = apis[(n + k) % 2]!
          const t = performance.now()
          let status: string | undefined
          try {
            const res = await getJson(agent, `${api.url}/api/tool-run/${job.id}/status`, job.key, (timing) => {
              if (timing.opened) { result.pollsOnNewConnection++; result.connects.push(timing.connectMs) }
              result.answers.push(timing.answerMs)
            })
            result.polls.push(performance.now() - t)
            if (res.status !== 200) failed('poll', `${res.status} ${JSON.stringify(res.body).slice(0, 200)}`)
            else status = res.body.status
          } catch (err) {
            failed('poll', (err as Error).message)
          }
          if (status && status !== 'running') {
            if (status !== 'done') failed('poll', `job ${job.id} ended ${status}`)
            return
          }
          await new Promise(r => setTimeout(r, interval))
        }
      } finally {
        agent.destroy()
      }
    }

    await Promise.all([
      ...Array.from({ length: WATCHERS }, (_, n) => watcher(n)),
      ...Array.from({ length: POLLERS }, (_, n) => poller(n)),
    ])
    result.seconds = (performance.now() - t0) / 1000
    result.apiCpuPerPoll = (apiCpu() - cpuBefore) / Math.max(1, result.polls.length)
    result.workerCpuMs = workerCpu() - workerCpuBefore
    const benchCpu = process.cpuUsage(benchCpuBefore)
    result.benchCpuMs = (benchCpu.user + benchCpu.system) / 1000
    benchLoop.disable()
    result.benchLoopDelay = [benchLoop.percentile(50) / 1e6, benchLoop.percentile(99) / 1e6]
    result.polls.sort((a, b) => a - b)
    result.connects.sort((a, b) => a - b)
    result.answers.sort((a, b) => a - b)
    result.finalLag.sort((a, b) => a - b)
    result.firstMessage.sort((a, b) => a - b)
    return result
  } finally {
    for (const stop of stops) await stop().catch(() => {})
  }
}

function printCrowd (crowd: CrowdResult): void {
  const p = (xs: number[], q: number) => xs.length ? percentile(xs, q).toFixed(1) : '-'
  printTable(`crowd: ${crowd.jobs} jobs (counter ${JSON.stringify(CROWD_JOB)}) run by 2 workers; ${POLLERS} status pollers (every ${crowd.pollSeconds} s, own connection each) and ${WATCHERS} WebSocket watchers (on the API process that did not start the job), 2 API processes; ${crowd.seconds.toFixed(1)} s`, [
    ['what', 'count', 'errors', 'p50 ms', 'p99 ms', 'max ms'],
    ['status poll', String(crowd.polls.length), String(crowd.pollErrors), p(crowd.polls, 50), p(crowd.polls, 99), p(crowd.polls, 100)],
    ['  of which: TCP handshake (new connections)', String(crowd.connects.length), '', p(crowd.connects, 50), p(crowd.connects, 99), p(crowd.connects, 100)],
    ['  of which: connected to answer (accept queue included)', String(crowd.answers.length), '', p(crowd.answers, 50), p(crowd.answers, 99), p(crowd.answers, 100)],
    ['WebSocket: upgrade to first message', String(crowd.firstMessage.length), String(crowd.watchErrors), p(crowd.firstMessage, 50), p(crowd.firstMessage, 99), p(crowd.firstMessage, 100)],
    ['WebSocket: finished_at to final message', String(crowd.finalLag.length), '', p(crowd.finalLag, 50), p(crowd.finalLag, 99), p(crowd.finalLag, 100)],
  ])
  console.log(`WebSocket progress messages received: ${crowd.progressMessages}; API processes' CPU per answered poll ${crowd.apiCpuPerPoll.toFixed(2)} ms (WebSocket work included); workers' CPU ${crowd.workerCpuMs.toFixed(0)} ms; this process (pollers and watchers) CPU ${crowd.benchCpuMs.toFixed(0)} ms, event-loop delay p50 ${crowd.benchLoopDelay[0].toFixed(1)} ms, p99 ${crowd.benchLoopDelay[1].toFixed(1)} ms`)
  for (const sample of crowd.errorSamples) console.log(`  error: ${sample}`)
}

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-'))
  const redisTeardown: Array<() => unknown> = []
  const redis = await startRedis({ teardown: fn => { redisTeardown.unshift(fn) } })
  const cleanups: Array<() => Promise<void>> = [async () => { for (const fn of redisTeardown) await fn() }]
  try {
    const toolsConfig = join(dir, 'tools.bench.config.json')
    writeFileSync(toolsConfig, JSON.stringify({ tools: [{ key: 'counter', plugin: COUNTER_PLUGIN, enabled: true }], retired: [] }))
    const env: Record<string, string> = {
      DATA_DIR: dir,
      DATABASE_URL: process.env.BENCH_DATABASE_URL ?? `file:${join(dir, 'app.db')}`,
      SECRET_KEY: 'bench-secret-key-0123456789',
      LOG_LEVEL: 'error',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PRO_PER_MINUTE: '1000000',
      TOOLS_CONFIG: toolsConfig,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `bench${randomBytes(3).toString('hex')}`,
      WORKER_CONCURRENCY,
      WORKER_SHUTDOWN_GRACE_MS: '0',
      EXTRACT_WORKERS: '1',
    }
    const api = await buildApp({ env })
    cleanups.unshift(() => api.close())
    const accounts = Math.max(8, Math.ceil((2 * JOBS + OVERHEAD_JOBS + 10) / CALLS_PER_ACCOUNT) + 1)
    const keys: string[] = []
    for (let i = 0; i < accounts; i++) keys.push(await proAccount(api))

    if (process.env.BENCH_ONLY === 'crowd') {
      await api.close()
      const crowd = await crowdPhase(env, dir)
      printCrowd(crowd)
      return
    }
    // 1. Throughput, one worker then two (the first stays).
    const w1 = startWorker(TSX_WORKER, env)
    cleanups.unshift(w1.stop)
    await w1.ready
    await throughput(api, keys, 20) // warm-up: tsx caches, the plugin's first load
    const one = await throughput(api, keys, JOBS)
    const w2 = startWorker(TSX_WORKER, env)
    cleanups.unshift(w2.stop)
    await w2.ready
    await throughput(api, keys, 20)
    const two = await throughput(api, keys, JOBS)
    await w1.stop()
    await w2.stop()

    // 2. Queue overhead: the same API with a worker in this process, against a single-process app.
    const worker: ServiceHost = await buildServices({ env: { ...env, RUN_JOBS: '1' } })
    await worker.start()
    cleanups.unshift(() => worker.close())
    // On the same database (its own accounts), so the difference is the queue's.
    const single = await startBenchApp([{ key: 'counter', plugin: COUNTER_PLUGIN, enabled: true }], process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {})
    cleanups.unshift(() => single.close())
    const viaRedis: OverheadSide = { app: api, ended: endTap(worker.services), keys, times: [] }
    const embedded: OverheadSide = { app: single.app, ended: endTap(single.app.services), keys: [await proAccount(single.app)], times: [] }
    await overhead([embedded, viaRedis], OVERHEAD_JOBS)
    await worker.close()
    await single.close()
    await api.close()

    // 3. Pollers and watchers: two API processes and two workers, as operators run them.
    const crowd = await crowdPhase(env, dir)

    const ratio = two.perSecond / one.perSecond
    printTable(`cluster: ${JOBS} light jobs (counter: ${JSON.stringify(LIGHT_JOB)}), WORKER_CONCURRENCY ${WORKER_CONCURRENCY}, ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite (one WAL file)'}`, [
      ['workers', 'seconds', 'jobs/s'],
      ['1', one.seconds.toFixed(2), one.perSecond.toFixed(1)],
      ['2', two.seconds.toFixed(2), two.perSecond.toFixed(1)],
    ])
    const p = (xs: number[], q: number) => percentile(xs, q).toFixed(2)
    printTable(`queue overhead: trivial job (max_results 1) start to done, ${OVERHEAD_JOBS} in sequence`, [
      ['mode', 'p50 ms', 'p90 ms', 'p99 ms'],
      ['single process (embedded queue)', p(embedded.times, 50), p(embedded.times, 90), p(embedded.times, 99)],
      ['REDIS_URL, worker in the same process', p(viaRedis.times, 50), p(viaRedis.times, 90), p(viaRedis.times, 99)],
    ])
    printCrowd(crowd)
    const extra = percentile(viaRedis.times, 50) - percentile(embedded.times, 50)
    goal(`2 workers ≥ 1.7× one worker (${ratio.toFixed(2)}×)`, ratio >= 1.7)
    goal(`queue overhead p50 under 10 ms (${extra.toFixed(2)} ms over single-process)`, extra < 10)
    goal(`${POLLERS} pollers and ${WATCHERS} WebSocket watchers over two API processes: 0 errors (${crowd.pollErrors + crowd.watchErrors})`, crowd.pollErrors + crowd.watchErrors === 0)
    if (crowd.pollErrors + crowd.watchErrors > 0) process.exitCode = 1
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  }
}

runMain(main)
