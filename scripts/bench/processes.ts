// The other processes of the HTTP benchmarks (me.ts, poll.ts, export.ts, cluster.ts, mcp-tasks.ts),
// around the service that server-process.ts starts the way `npm start` does:
// a bare fastify server answering a fixed body (the baseline), autocannon as
// the load generator, and an RSS sampler of another process. Each runs in its
// own process, so the load generator's CPU and heap are never counted against
// the server, and the server carries exactly what a user's does.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO } from './harness.ts'
import { freePort, processCpuMs, processRss, startCommand, startServerProcess, type ServerProcess } from './server-process.ts'

/** The bare server's process. */
export interface ServedProcess {
  /** http://127.0.0.1:<port> */
  base: string
  pid: number
  /** Milliseconds from spawn to the first 200 (startup.ts's floor). */
  readyMs: number
  child: ChildProcess
  stop (): Promise<void>
}

/**
 * CPU microseconds the server process spends per answered request under
 * `load`: steadier than requests per second on a shared machine, where the
 * rate mostly says how much CPU the neighbours left (issue 17's me and poll).
 */
export async function cpuPerRequest (pid: number, url: string, options: Parameters<typeof load>[1]): Promise<{ result: LoadResult, cpuUs: number }> {
  const before = processCpuMs(pid)
  const result = await load(url, options)
  const cpuUs = (processCpuMs(pid) - before) * 1000 / Math.max(1, result.requests)
  return { result, cpuUs }
}

/**
 * Samples another process's RSS every `intervalMs` (the peak it reached while
 * sampled, 0 once it has gone; /proc's VmHWM would include the boot).
 */
export function sampleRss (pid: number, intervalMs = 20): { stop (): { peak: number, samples: number } } {
  let peak = 0
  let samples = 0
  const tick = () => { peak = Math.max(peak, processRss(pid) || 0); samples++ }
  tick()
  const timer = setInterval(tick, intervalMs)
  return { stop () { clearInterval(timer); tick(); return { peak, samples } } }
}

async function waitForHttp (url: string, child: ChildProcess, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let exited: number | null = null
  child.once('exit', (code) => { exited = code ?? 1 })
  for (;;) {
    if (exited !== null) throw new Error(`${what} exited with code ${exited} before answering`)
    try {
      const res = await fetch(url)
      await res.arrayBuffer()
      if (res.ok) return
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`${what} did not answer ${url} within ${timeoutMs} ms`)
    await new Promise(r => setTimeout(r, 10))
  }
}

function stopper (child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise(resolve => child.once('exit', resolve))
      child.kill('SIGTERM')
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await gone
      clearTimeout(force)
    }
  }
}

export interface ServiceOptions {
  /** Tools to enable (the harness's ToolEntry shape); default: the repository's tools.config.json. */
  tools?: Array<Record<string, unknown>>
  /** More environment (overrides the defaults of server-process.ts). */
  env?: Record<string, string>
  /** Use this DATA_DIR (kept); default: server-process.ts's temporary one. */
  dir?: string
  /** More Node flags (server-process.ts's nodeFlags), e.g. an `--import` run before the service. */
  nodeFlags?: string[]
}

/**
 * The service as `npm start` runs it (server-process.ts), with the rate limits
 * raised out of the way (a benchmark is one client address) and LOG_LEVEL at
 * the service's default (`info`, one access line a request) unless this
 * process's LOG_LEVEL says otherwise: what a user runs.
 */
export async function startService (options: ServiceOptions = {}): Promise<ServerProcess> {
  const env: Record<string, string> = { LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ...options.env }
  let toolsDir: string | undefined
  if (options.dir) Object.assign(env, { DATA_DIR: options.dir, DATABASE_URL: `file:${join(options.dir, 'app.db')}` })
  if (options.tools) {
    toolsDir = mkdtempSync(join(tmpdir(), 'bench-tools-'))
    env.TOOLS_CONFIG = join(toolsDir, 'tools.bench.config.json')
    writeFileSync(env.TOOLS_CONFIG, JSON.stringify({ $comment: 'written by scripts/bench/processes.ts', tools: options.tools, retired: [] }, null, 2))
  }
  const cleanup = () => { if (toolsDir) rmSync(toolsDir, { recursive: true, force: true }) }
  try {
    // A loaded machine can take long to start the service; the start time is startup.ts's figure, not these.
    const server = await startServerProcess({ env, nodeFlags: options.nodeFlags, readyTimeoutMs: 180_000 })
    const stop = server.stop
    return { ...server, stop: async () => { const code = await stop(); cleanup(); return code } }
  } catch (err) {
    cleanup()
    throw err
  }
}

/**
 * A bare fastify server (its own process, plain Node, no TypeScript loader)
 * whose GET /bare answers `body` as JSON: the same object, so it pays the same
 * serialisation of the same bytes as the route it is compared with. `layers`:
 * bare-server.mjs's BARE_LAYERS (me-floor.ts); none for the baseline.
 */
export async function startBare (body: unknown, layers: string[] = []): Promise<ServedProcess> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, [join(import.meta.dirname, 'bare-server.mjs')], {
    cwd: REPO,
    env: { ...process.env, BARE_PORT: String(port), BARE_BODY: JSON.stringify(body), BARE_LAYERS: layers.join(',') },
    // stdout is read and dropped (a pipe, as the service's): the `log` layer writes there.
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  child.stdout!.resume()
  const base = `http://127.0.0.1:${port}`
  const stop = stopper(child)
  try {
    await waitForHttp(`${base}/bare`, child, 'the bare server')
  } catch (err) {
    await stop()
    throw err
  }
  return { base, pid: child.pid!, readyMs: performance.now() - started, child, stop }
}

export interface LoadResult {
  requests: number
  /** The server's CPU per answered request in µs over this run (compareRates with `pids`), else NaN. */
  cpuUs?: number
  /** mean requests per second */
  rps: number
  p50: number
  p99: number
  max: number
  errors: number
  timeouts: number
  non2xx: number
}

/**
 * autocannon in its own process (its CLI with --json): `connections` keep-alive
 * connections for `seconds`, one request in flight each.
 */
export function load (url: string, options: { connections: number, seconds: number, headers?: Record<string, string>, timeoutSeconds?: number }): Promise<LoadResult> {
  const args = [join(REPO, 'node_modules/autocannon/autocannon.js'), '--json', '--no-progress',
    '-c', String(options.connections), '-d', String(options.seconds), '-t', String(options.timeoutSeconds ?? 10)]
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`)
  args.push(url)
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => { out += d })
    child.stderr.on('data', (d: Buffer) => { err += d })
    child.on('error', reject)
    child.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? ''
      let r: any
      try { r = JSON.parse(line) } catch { return reject(new Error(`autocannon exited ${code} without a result: ${err.slice(-500)}`)) }
      resolve({
        requests: r.requests.total,
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        max: r.latency.max,
        errors: r.errors,
        timeouts: r.timeouts,
        non2xx: r.non2xx,
      })
    })
  })
}

/** A fresh temporary directory for one benchmark's service. */
export function benchDir (prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export interface Target { url: string, headers?: Record<string, string> }

/**
 * Drives each target with the same load, `rounds` times, the order
 * alternating each round (so neither always runs first on a warmer or
 * quieter machine), after a short warm-up of each. Returns each target's runs.
 */
export async function compareRates<K extends string> (targets: Record<K, Target>, options: { connections: number, seconds: number, rounds: number, warmupSeconds?: number, log?: (line: string) => void, pids?: Record<K, number> }): Promise<Record<K, LoadResult[]>> {
  const names = Object.keys(targets) as K[]
  const log = options.log ?? ((line: string) => console.log(line))
  for (const name of names) await load(targets[name].url, { connections: options.connections, seconds: options.warmupSeconds ?? 2, headers: targets[name].headers })
  const runs = Object.fromEntries(names.map(n => [n, [] as LoadResult[]])) as Record<K, LoadResult[]>
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse()
    for (const name of order) {
      const pid = options.pids?.[name]
      const cpuBefore = pid === undefined ? NaN : processCpuMs(pid)
      const r = await load(targets[name].url, { connections: options.connections, seconds: options.seconds, headers: targets[name].headers })
      if (pid !== undefined) r.cpuUs = (processCpuMs(pid) - cpuBefore) * 1000 / Math.max(1, r.requests)
      runs[name].push(r)
      log(`round ${round + 1} ${name.padEnd(6)} ${options.connections} conn: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx${r.cpuUs === undefined ? '' : `, server CPU ${r.cpuUs.toFixed(0)} µs/answer`}`)
    }
  }
  return runs
}

/**
 * Puts the servers on CPU 0 (every thread) and this process, with the load
 * generators it spawns from now on (they inherit it), on CPU 1, with util-linux's
 * `taskset`. Unpinned on a shared two-core machine, a server's CPU per answer
 * moved by up to 2× from one run to the next as the scheduler moved it and the
 * load generator between the cores (scripts/bench/README.md, observability.ts);
 * pinned, every variant runs on the same core beside the same neighbour.
 * Returns false (nothing pinned) with fewer than two CPUs or no taskset.
 */
export function pinServers (pids: number[]): boolean {
  if (availableParallelism() < 2) return false
  try {
    for (const pid of pids) execFileSync('taskset', ['-a', '-p', '-c', '0', String(pid)], { stdio: 'ignore' })
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** The median of `runs[name][i].rps / runs[base][i].rps` over the rounds: each round's ratio is of runs a few seconds apart. */
export function medianRoundRatio<K extends string> (runs: Record<K, LoadResult[]>, name: K, base: K, of: (r: LoadResult) => number = r => r.rps): number {
  const ratios = runs[name].map((r, i) => of(r) / of(runs[base][i]!)).sort((a, b) => a - b)
  const mid = ratios.length >> 1
  return ratios.length % 2 ? ratios[mid]! : (ratios[mid - 1]! + ratios[mid]!) / 2
}

/** Signs up a fresh account on a running service; its personal key. */
export async function signUp (base: string, pro = false): Promise<string> {
  const email = `bench-${Math.random().toString(16).slice(2, 10)}@example.com`
  const res = await fetch(`${base}/api/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'bench password 123', name: 'Bench' }) })
  if (res.status !== 200) throw new Error(`signup failed: ${res.status} ${await res.text()}`)
  const apiKey = ((await res.json()) as { user: { api_key: string } }).user.api_key
  if (pro) {
    const claim = await fetch(`${base}/api/auth/claim-pro`, { method: 'POST', headers: { 'x-api-key': apiKey } })
    if (claim.status !== 200) throw new Error(`claim-pro failed: ${claim.status} ${await claim.text()}`)
  }
  return apiKey
}

/**
 * The test-only counter tool as the service's start can load it: its
 * TypeScript folder when `npm start` runs TypeScript, else a compiled copy
 * under dist/test/fixtures/plugins/counter (the build compiles core/ and
 * plugins/ only; the copy sits at the same depth, so its relative imports
 * reach dist/core/). Written on each call, from the current source.
 */
export async function counterPluginForStart (): Promise<string> {
  const source = join(REPO, 'test/fixtures/plugins/counter')
  const command = startCommand()
  const script = command.find(a => /\.(ts|js)$/.test(a)) ?? ''
  if (!script.startsWith('dist/')) return source
  const { transform } = await import('esbuild')
  const target = join(REPO, 'dist/test/fixtures/plugins/counter')
  mkdirSync(target, { recursive: true })
  for (const file of readdirSync(source).filter(f => f.endsWith('.ts'))) {
    const code = readFileSync(join(source, file), 'utf8').replace(/(from\s+'|import\(')(\.{1,2}\/[^']+)\.ts'/g, '$1$2.js\'')
    const out = await transform(code, { loader: 'ts', format: 'esm', target: 'node20' })
    writeFileSync(join(target, file.replace(/\.ts$/, '.js')), out.code)
  }
  return target
}

/**
 * Starts a counter job that runs for the whole benchmark (one row a minute) on
 * a service started with the counter tool (counterPluginForStart), and waits
 * until its worker has it (its status no longer 'queued'): the status a client
 * polls while it waits. Returns the job's id, its status URL and that status's body.
 */
export async function startRunningCounter (base: string, headers: Record<string, string>): Promise<{ jobId: string, statusUrl: string, body: string }> {
  const start = await fetch(`${base}/api/tool-run`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'counter', params: { max_results: 100, delay_ms: 60_000 } }) })
  if (start.status !== 202) throw new Error(`starting the job failed: ${start.status} ${await start.text()}`)
  const { job_id: jobId, status_url: statusPath } = await start.json() as { job_id: string, status_url: string }
  const statusUrl = `${base}${statusPath}`
  let probe = await fetch(statusUrl, { headers })
  let text = await probe.text()
  for (let i = 0; i < 100 && probe.status === 200 && JSON.parse(text).stage === 'queued'; i++) {
    await new Promise(r => setTimeout(r, 50))
    probe = await fetch(statusUrl, { headers })
    text = await probe.text()
  }
  if (probe.status !== 200) throw new Error(`status failed: ${probe.status} ${text}`)
  return { jobId, statusUrl, body: text }
}

/**
 * A worker process (`argv`: the TypeScript worker under tsx, or `npm run
 * worker`'s compiled one), no TypeScript loader inherited from this process;
 * `ready` resolves once it logged that it started.
 */
export function startWorker (argv: string[], env: Record<string, string>): { pid: number, ready: Promise<void>, stop: () => Promise<void> } {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env, LOG_LEVEL: 'info' }
  delete childEnv.NODE_OPTIONS
  const child = spawn(argv[0]!, argv.slice(1), { cwd: REPO, env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] })
  const ready = new Promise<void>((resolve, reject) => {
    // Read until the start line, then only drained: scanning a growing log on every chunk cost this process CPU the crowd's pollers need.
    let out = ''
    let started = false
    child.stdout!.on('data', (d) => {
      if (started) return
      out += d
      if (out.includes('"worker started"')) { started = true; out = ''; resolve() }
    })
    child.once('exit', code => reject(new Error(`worker exited (${code}) before it started`)))
  })
  return { pid: child.pid!, ready, stop: async () => { if (child.exitCode === null && child.signalCode === null) { child.kill('SIGTERM'); await once(child, 'exit') } } }
}
