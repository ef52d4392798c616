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
//    process's event delivery); the difference is the overhead.
// Needs redis-server (REDIS_SERVER_BIN). SQLite by default (one WAL file shared
// by the processes); BENCH_DATABASE_URL=postgresql://… (a database it may fill) for PostgreSQL.
// Run: node --import tsx scripts/bench/cluster.ts   (BENCH_JOBS, BENCH_OVERHEAD_JOBS, BENCH_WORKER_CONCURRENCY)
// Goals: 2 workers ≥ 1.7× one worker; queue overhead p50 < 10 ms. Exits non-zero only on errors.
// Not measured here (they need the cross-process events of issue 15 part B): pollers and WebSocket watchers.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../core/app.ts'
import { buildServices, type ServiceHost } from '../../core/services.ts'
import { COUNTER_PLUGIN, goal, percentile, printTable, proAccount, REPO, runMain, startJob, startBenchApp } from './harness.ts'

const JOBS = Number(process.env.BENCH_JOBS ?? 160)
const OVERHEAD_JOBS = Number(process.env.BENCH_OVERHEAD_JOBS ?? 200)
const WORKER_CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? '4'
/** The light I/O-bound job: one pause (an upstream's answer), then its rows. */
const LIGHT_JOB = { max_results: 5, batch: 5, delay_ms: 500 }
/** Starts sent at once: the API must offer faster than two workers drain. */
const START_BURST = 8
const CALLS_PER_ACCOUNT = 400

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer()
  s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)) })
})

async function startRedisServer (dir: string): Promise<{ url: string, stop: () => Promise<void> }> {
  const port = await freePort()
  const child = spawn(process.env.REDIS_SERVER_BIN ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' })
  for (let i = 0; ; i++) {
    const ok = await new Promise<boolean>(resolve => { const s = connect(port, '127.0.0.1'); s.once('connect', () => { s.end(); resolve(true) }); s.once('error', () => resolve(false)) })
    if (ok) break
    if (i > 200) throw new Error('redis-server did not start')
    await new Promise(r => setTimeout(r, 50))
  }
  return { url: `redis://127.0.0.1:${port}`, stop: async () => { child.kill('SIGKILL'); await once(child, 'exit') } }
}

function startWorker (env: Record<string, string>): { child: ChildProcess, ready: Promise<void>, stop: () => Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'core/worker.ts')], { cwd: REPO, env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] })
  const ready = new Promise<void>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d) => { out += d; if (out.includes('"worker started"')) resolve() })
    child.once('exit', code => reject(new Error(`worker exited (${code}) before it started`)))
  })
  return { child, ready, stop: async () => { if (child.exitCode === null) { child.kill('SIGTERM'); await once(child, 'exit') } } }
}

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

/** Start-to-done of trivial jobs one at a time; `ended` is tapped on the events of the process that runs them. */
async function overhead (app: FastifyInstance, runnerHost: { events: FastifyInstance['services']['events'] }, keys: string[], count: number): Promise<number[]> {
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
  const times: number[] = []
  for (let i = 0; i < count + 10; i++) {
    const t0 = performance.now()
    const id = await startJob(app, keys[i % keys.length]!, 'counter', { max_results: 1 })
    const t1 = early.get(id) ?? await new Promise<number>(resolve => waiters.set(id, resolve))
    if (i >= 10) times.push(t1 - t0)
  }
  return times.sort((a, b) => a - b)
}

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-'))
  const redis = await startRedisServer(dir)
  const cleanups: Array<() => Promise<void>> = [async () => { await redis.stop() }]
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

    // 1. Throughput, one worker then two (the first stays).
    const w1 = startWorker(env)
    cleanups.unshift(w1.stop)
    await w1.ready
    await throughput(api, keys, 20) // warm-up: tsx caches, the plugin's first load
    const one = await throughput(api, keys, JOBS)
    const w2 = startWorker(env)
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
    const viaRedis = await overhead(api, worker.services, keys, OVERHEAD_JOBS)
    // On the same database (its own accounts), so the difference is the queue's.
    const single = await startBenchApp([{ key: 'counter', plugin: COUNTER_PLUGIN, enabled: true }], process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {})
    cleanups.unshift(() => single.close())
    const singleKeys = [await proAccount(single.app)]
    const embedded = await overhead(single.app, single.app.services, singleKeys, OVERHEAD_JOBS)

    const ratio = two.perSecond / one.perSecond
    printTable(`cluster: ${JOBS} light jobs (counter: ${JSON.stringify(LIGHT_JOB)}), WORKER_CONCURRENCY ${WORKER_CONCURRENCY}, ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite (one WAL file)'}`, [
      ['workers', 'seconds', 'jobs/s'],
      ['1', one.seconds.toFixed(2), one.perSecond.toFixed(1)],
      ['2', two.seconds.toFixed(2), two.perSecond.toFixed(1)],
    ])
    const p = (xs: number[], q: number) => percentile(xs, q).toFixed(2)
    printTable(`queue overhead: trivial job (max_results 1) start to done, ${OVERHEAD_JOBS} in sequence`, [
      ['mode', 'p50 ms', 'p90 ms', 'p99 ms'],
      ['single process (embedded queue)', p(embedded, 50), p(embedded, 90), p(embedded, 99)],
      ['REDIS_URL, worker in the same process', p(viaRedis, 50), p(viaRedis, 90), p(viaRedis, 99)],
    ])
    const extra = percentile(viaRedis, 50) - percentile(embedded, 50)
    goal(`2 workers ≥ 1.7× one worker (${ratio.toFixed(2)}×)`, ratio >= 1.7)
    goal(`queue overhead p50 under 10 ms (${extra.toFixed(2)} ms over single-process)`, extra < 10)
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  }
}

runMain(main)
