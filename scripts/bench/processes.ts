// The separate processes of the HTTP benchmarks (me.ts, poll.ts, export.ts):
// the service started the way `npm start` starts it, a bare fastify server
// answering a fixed body, and autocannon as the load generator. Each runs in
// its own process, so the load generator's CPU and heap are never counted
// against the server, and the server carries exactly what a user's does.
//
// The server command is package.json's `start` script read at run time, so
// the benchmarks follow however `npm start` runs the service (tsx today, the
// compiled dist/ once the build lands) without an edit here.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO } from './harness.ts'

export interface ServedProcess {
  /** http://127.0.0.1:<port> */
  base: string
  pid: number
  child: ChildProcess
  /** Resident set size of the process now (from /proc), bytes. */
  rss (): number
  stop (): Promise<void>
}

/** A port free right now (the server binds it a moment later; good enough on a bench machine). */
export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

/** RSS of another process, from /proc/<pid>/status (VmRSS, kB). 0 once it has gone. */
export function processRss (pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : 0
  } catch { return 0 }
}

/**
 * Samples another process's RSS every `intervalMs` (the peak it reached while
 * sampled; /proc's VmHWM would include the boot).
 */
export function sampleRss (pid: number, intervalMs = 20): { stop (): { peak: number, samples: number } } {
  let peak = 0
  let samples = 0
  const tick = () => { peak = Math.max(peak, processRss(pid)); samples++ }
  tick()
  const timer = setInterval(tick, intervalMs)
  return { stop () { clearInterval(timer); tick(); return { peak, samples } } }
}

/** `npm start`'s command as argv, with `node` replaced by this Node binary (npm would use the one on PATH). */
export function startCommand (): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  const script = pkg.scripts.start
  if (!script) throw new Error('package.json has no start script')
  // A plain command line (no shell operators) is expected; anything else is run through sh.
  if (/[|&;<>()$`"']/.test(script)) return ['/bin/sh', '-c', script]
  const argv = script.trim().split(/\s+/)
  if (argv[0] === 'node') argv[0] = process.execPath
  return argv
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
    await new Promise(r => setTimeout(r, 50))
  }
}

function stopper (child: ChildProcess, after?: () => void): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise(resolve => child.once('exit', resolve))
      child.kill('SIGTERM')
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await gone
      clearTimeout(force)
    }
    after?.()
  }
}

export interface ServiceOptions {
  /** Tools to enable (the harness's ToolEntry shape); default: the repository's tools.config.json. */
  tools?: Array<Record<string, unknown>>
  /** More environment (overrides the defaults below). */
  env?: Record<string, string>
  /** Use this DATA_DIR (kept); default: a temporary one, removed on stop. */
  dir?: string
}

/**
 * The service as `npm start` runs it, on a temporary DATA_DIR and SQLite file,
 * with the rate limits raised out of the way (a benchmark is one client
 * address). LOG_LEVEL is left at its default unless given: what a user gets.
 * Its stdout (the JSON log lines) goes to /dev/null, its stderr to ours.
 */
export async function startService (options: ServiceOptions = {}): Promise<ServedProcess & { dir: string }> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'bench-svc-'))
  const port = await freePort()
  const env: Record<string, string> = {
    ...process.env as Record<string, string>,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dir,
    DATABASE_URL: `file:${join(dir, 'app.db')}`,
    SECRET_KEY: 'bench-secret-key-0123456789',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_PRO_PER_MINUTE: '1000000',
    ...options.env,
  }
  if (options.tools) {
    const toolsConfig = join(dir, 'tools.bench.config.json')
    writeFileSync(toolsConfig, JSON.stringify({ $comment: 'written by scripts/bench/processes.ts', tools: options.tools, retired: [] }, null, 2))
    env.TOOLS_CONFIG = toolsConfig
  }
  const [cmd, ...args] = startCommand()
  const child = spawn(cmd!, args, { cwd: REPO, env, stdio: ['ignore', 'ignore', 'inherit'] })
  const base = `http://127.0.0.1:${port}`
  const stop = stopper(child, () => { if (!options.dir) rmSync(dir, { recursive: true, force: true }) })
  try {
    await waitForHttp(`${base}/api/health`, child, 'the service')
  } catch (err) {
    await stop()
    throw err
  }
  return { base, pid: child.pid!, child, dir, rss: () => processRss(child.pid!), stop }
}

/**
 * A bare fastify server (its own process, plain Node, no TypeScript loader)
 * whose GET /bare answers `body` as JSON: the same object, so it pays the same
 * serialisation of the same bytes as the route it is compared with.
 */
export async function startBare (body: unknown): Promise<ServedProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, [join(import.meta.dirname, 'bare-server.mjs')], {
    cwd: REPO,
    env: { ...process.env, BARE_PORT: String(port), BARE_BODY: JSON.stringify(body) },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const base = `http://127.0.0.1:${port}`
  const stop = stopper(child)
  try {
    await waitForHttp(`${base}/bare`, child, 'the bare server')
  } catch (err) {
    await stop()
    throw err
  }
  return { base, pid: child.pid!, child, rss: () => processRss(child.pid!), stop }
}

export interface LoadResult {
  requests: number
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
export async function compareRates<K extends string> (targets: Record<K, Target>, options: { connections: number, seconds: number, rounds: number, warmupSeconds?: number, log?: (line: string) => void }): Promise<Record<K, LoadResult[]>> {
  const names = Object.keys(targets) as K[]
  const log = options.log ?? ((line: string) => console.log(line))
  for (const name of names) await load(targets[name].url, { connections: options.connections, seconds: options.warmupSeconds ?? 2, headers: targets[name].headers })
  const runs = Object.fromEntries(names.map(n => [n, [] as LoadResult[]])) as Record<K, LoadResult[]>
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse()
    for (const name of order) {
      const r = await load(targets[name].url, { connections: options.connections, seconds: options.seconds, headers: targets[name].headers })
      runs[name].push(r)
      log(`round ${round + 1} ${name.padEnd(6)} ${options.connections} conn: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`)
    }
  }
  return runs
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
