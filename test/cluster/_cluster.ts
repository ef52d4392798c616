// Pieces of a cluster for the distributed-mode tests: one database (PostgreSQL
// under TEST_DATABASE_URL, else one SQLite file in WAL mode that every process
// opens), one throwaway redis-server, an API app that only offers jobs
// (REDIS_URL set, RUN_JOBS unset), and workers: in this process
// (buildServices with RUN_JOBS=1) or real child processes (`npm run worker`'s
// command, on this run's build of the source: test/helpers/service-build.ts).
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { build, freshDatabaseUrl, tempDir } from '../helpers/build.ts'
import { TEST_TOOLS_CONFIG } from '../helpers/jobs.ts'
import { startRedis, type RedisServer } from '../helpers/redis-server.ts'
import { serviceBuild, serviceCommand, serviceEnvironment } from '../helpers/service-build.ts'
import { buildServices, type ServiceHost } from '../../core/services.ts'

interface Teardown { teardown (fn: () => unknown): void }

export interface Cluster {
  redis: RedisServer
  /** What every process of this cluster is started with. */
  env: Record<string, string>
  api: FastifyInstance
}

/**
 * Short timings: a dead worker is noticed after three 1 s heartbeats (shorter
 * would reap live jobs on a loaded machine, where a worker's first job stalls
 * its event loop while tsx compiles the tool); queued rows are re-offered and
 * dead workers looked for every 200 ms.
 */
export async function startCluster (t: Teardown, extraEnv: Record<string, string> = {}): Promise<Cluster> {
  const redis = await startRedis(t)
  const dataDir = tempDir(t)
  const databaseUrl = await freshDatabaseUrl(t, dataDir)
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    SECRET_KEY: 'cluster-test-secret-0123456789',
    TOOLS_CONFIG: TEST_TOOLS_CONFIG,
    LOG_LEVEL: 'silent',
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: `c${randomBytes(4).toString('hex')}`,
    JOB_HEARTBEAT_MS: '1000',
    JOB_SWEEP_INTERVAL_MS: '200',
    EXTRACT_WORKERS: '1',
    // Webhook fixtures listen on loopback.
    ALLOW_PRIVATE_TARGETS: '1',
    WEBHOOK_RETRY_BASE_MS: '20',
    // A test's slow jobs are abandoned at its end: closing hands them back at once (the drain test sets its own).
    WORKER_SHUTDOWN_GRACE_MS: '0',
    ...extraEnv,
  }
  const api = await build(t, { dataDir, databaseUrl, env, distributed: false })
  return { redis, env, api }
}

/** A worker in this process, on the cluster's database and Redis. */
export async function inProcessWorker (t: Teardown, cluster: Cluster, env: Record<string, string> = {}): Promise<ServiceHost> {
  const host = await buildServices({ env: { ...cluster.env, RUN_JOBS: '1', ...env } })
  await host.start()
  t.teardown(() => host.close())
  return host
}

export interface ChildWorker {
  child: ChildProcess
  /** What it wrote to stderr (a failed boot says why). */
  stderr: () => string
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>
}

/**
 * A real `npm run worker` process: package.json's command and Node flags on this
 * run's compiled build of the source (built on first use), the cluster's tools
 * config as the build holds it; killed in teardown if still alive.
 */
export async function childWorker (t: Teardown, cluster: Cluster, env: Record<string, string> = {}): Promise<ChildWorker> {
  const build = await serviceBuild()
  const worker = serviceCommand(build, 'worker')
  const child = spawn(worker.command[0]!, worker.command.slice(1), {
    env: serviceEnvironment(build, worker, { ...cluster.env, ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', d => { stderr += d })
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  // A test process that ends without its teardown (a timeout) must not leave workers behind.
  const killOnExit = () => { child.kill('SIGKILL') }
  process.once('exit', killOnExit)
  void exited.then(() => process.off('exit', killOnExit))
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await exited
    }
  })
  return { child, stderr: () => stderr, exited }
}

/** Polls until the condition holds; the deadline only turns a hang into a readable failure. */
export async function until (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise(r => setTimeout(r, 25))
  }
}

/** The job id of a start that must have been accepted. */
export const jobIdOf = (res: { statusCode: number, body: string, json: () => any }): string => {
  if (res.statusCode !== 202) throw new Error(`start answered ${res.statusCode}: ${res.body}`)
  return res.json().job_id
}

/** The row numbers stored for a job, in order: each exactly once. */
export const storedSeqs = async (api: FastifyInstance, id: string) =>
  (await api.services.db.resultRow.findMany({ where: { jobId: id }, orderBy: { seq: 'asc' }, select: { seq: true } })).map(r => r.seq)

/** A webhook target that counts deliveries per job. */
export async function hookCounter (t: { teardown (fn: () => unknown): void }): Promise<{ url: string, deliveries: (jobId: string) => Array<{ event: string, job: any }> }> {
  const received: Array<{ event: string, job: any }> = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', c => { body += c })
    req.on('end', () => { received.push(JSON.parse(body)); res.end('ok') })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, deliveries: (jobId) => received.filter(r => r.job.job_id === jobId) }
}

