// Shared pieces of the job benchmarks (crawl, job-overhead, export, scrape,
// email-verify): a throwaway app on its own SQLite file and tools config,
// Pro accounts, a precise "job finished" signal, percentiles and a table
// printer. Nothing here is timed; each benchmark times its own work.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { buildApp, type BuildOptions } from '../../core/app.ts'

export const REPO = resolve(import.meta.dirname, '../..')
/** The test-only counter tool (test/fixtures/plugins/counter), loaded by absolute path. */
export const COUNTER_PLUGIN = join(REPO, 'test/fixtures/plugins/counter')

export interface ToolEntry { key: string, plugin: string | null, enabled: boolean, settings?: Record<string, unknown>, credentials?: Record<string, string> }

export interface BenchApp {
  app: FastifyInstance
  dir: string
  /** Resolves when the runner has recorded the job's outcome; the value is performance.now() at that moment. */
  finished (jobId: string): Promise<number>
  close (): Promise<void>
}

/**
 * A fresh app: temp DATA_DIR and SQLite file, a tools config holding only
 * `tools`, private targets allowed (every fixture is on 127.0.0.1), rate
 * limits out of the way. The runner's final `done`/`error` event is tapped so
 * the benchmarks see the end of a job without a polling interval in the figure.
 */
export async function startBenchApp (tools: ToolEntry[], env: Record<string, string> = {}, options: { dir?: string, keep?: boolean, network?: BuildOptions['network'] } = {}): Promise<BenchApp> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'bench-jobs-'))
  const toolsConfig = join(dir, 'tools.bench.config.json')
  writeFileSync(toolsConfig, JSON.stringify({ $comment: 'written by scripts/bench/harness.ts', tools, retired: [] }, null, 2))
  const app = await buildApp({
    env: {
      DATA_DIR: dir,
      DATABASE_URL: `file:${join(dir, 'app.db')}`,
      LOG_LEVEL: 'error',
      SECRET_KEY: 'bench-secret-key-0123456789',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PRO_PER_MINUTE: '1000000',
      ALLOW_PRIVATE_TARGETS: '1',
      TOOLS_CONFIG: toolsConfig,
      ...env,
    },
    // Host names resolved to the bench's local fixtures (a platform link served from 127.0.0.1).
    network: options.network,
  })
  // The runner emits exactly one done/error event per job after its final write.
  const ended = new Map<string, number>()
  const waiters = new Map<string, (t: number) => void>()
  const events = app.services.events
  const emit = events.emit.bind(events)
  events.emit = (jobId, event) => {
    if (event.type !== 'progress') {
      const t = performance.now()
      const waiter = waiters.get(jobId)
      if (waiter) { waiters.delete(jobId); waiter(t) } else ended.set(jobId, t)
    }
    emit(jobId, event)
  }
  return {
    app,
    dir,
    finished (jobId: string) {
      const t = ended.get(jobId)
      if (t !== undefined) { ended.delete(jobId); return Promise.resolve(t) }
      return new Promise(resolve => waiters.set(jobId, resolve))
    },
    async close () {
      await app.close()
      if (!options.keep) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A new account that has claimed Pro (1,000 rows per run, 500 calls per day). */
export async function proAccount (app: FastifyInstance): Promise<string> {
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`
  const signup = await app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email, password: 'bench password 123', name: 'Bench' } })
  if (signup.statusCode !== 200) throw new Error(`signup failed: ${signup.statusCode} ${signup.body}`)
  const apiKey = signup.json().user.api_key as string
  const claim = await app.inject({ method: 'POST', url: '/api/auth/claim-pro', headers: { 'x-api-key': apiKey } })
  if (claim.statusCode !== 200) throw new Error(`claim-pro failed: ${claim.statusCode} ${claim.body}`)
  return apiKey
}

export async function startJob (app: FastifyInstance, apiKey: string, tool: string, params: Record<string, unknown>): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': apiKey }, payload: { tool, params } })
  if (res.statusCode !== 202) throw new Error(`starting ${tool} failed: ${res.statusCode} ${res.body}`)
  return res.json().job_id as string
}

export async function jobStatus (app: FastifyInstance, apiKey: string, jobId: string): Promise<Record<string, any>> {
  const res = await app.inject({ method: 'GET', url: `/api/tool-run/${jobId}/status`, headers: { 'x-api-key': apiKey } })
  if (res.statusCode !== 200) throw new Error(`status failed: ${res.statusCode} ${res.body}`)
  return res.json()
}

export async function jobResults (app: FastifyInstance, apiKey: string, jobId: string, limit = 1000): Promise<Array<Record<string, any>>> {
  const res = await app.inject({ method: 'GET', url: `/api/tool-run/${jobId}/results?limit=${limit}`, headers: { 'x-api-key': apiKey } })
  if (res.statusCode !== 200) throw new Error(`results failed: ${res.statusCode} ${res.body}`)
  return res.json().results
}

/** Starts a job, waits for its outcome; fails unless it ended `done`. */
export async function runJobToDone (bench: BenchApp, apiKey: string, tool: string, params: Record<string, unknown>): Promise<{ jobId: string, ms: number, status: Record<string, any> }> {
  const t0 = performance.now()
  const jobId = await startJob(bench.app, apiKey, tool, params)
  const t1 = await bench.finished(jobId)
  const status = await jobStatus(bench.app, apiKey, jobId)
  if (status.status !== 'done') throw new Error(`${tool} job ${jobId} ended ${status.status}: ${status.error ?? ''}`)
  return { jobId, ms: t1 - t0, status }
}

// ---------------------------------------------------------------- numbers

export function percentile (sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[i]!
}

export const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50)
export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
export const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)

/** Prints rows as an aligned text table (first row is the header). */
export function printTable (title: string, rows: Array<Array<string | number>>): void {
  const cells = rows.map(r => r.map(c => String(c)))
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map(r => (r[i] ?? '').length)))
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  console.log(`\n${title}`)
  console.log(line(cells[0]!))
  console.log(widths.map(w => '-'.repeat(w)).join('  '))
  for (const r of cells.slice(1)) console.log(line(r))
}

/** Goal lines say met / missed; they never change the exit code. */
export function goal (text: string, met: boolean): void {
  console.log(`goal: ${text}: ${met ? 'met' : 'MISSED'}`)
}

// ---------------------------------------------------------------- memory

export { collectGarbage, startRssSampler } from './memory.mjs'

export function ratioText (x: number): string { return Number.isFinite(x) ? x.toFixed(2) : 'n/a' }

/** For scripts run directly: print the error and set a failing exit code. */
export function runMain (main: () => Promise<void>): void {
  main().then(() => { process.exit(process.exitCode ?? 0) }, (err) => {
    console.error(err)
    process.exit(1)
  })
}
