// The server as a user runs it: `npm start`'s command, read from package.json,
// spawned as its own process from the repository root, on a throwaway DATA_DIR,
// with a free port of 127.0.0.1. Benchmarks that measure the service from the
// outside (startup.ts, me.ts, poll.ts) use this, so their figures are those of
// the production start (compiled JavaScript, no TypeScript loader) and their load
// generator never shares the server's event loop or memory.
//
//   const server = await startServerProcess({ env: { LOG_LEVEL: 'warn' } })
//   … fetch(`${server.url}/api/health`) …
//   await server.stop()
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export const REPO_ROOT = resolve(import.meta.dirname, '../..')

export interface ServerProcessOptions {
  /** Variables added to (and overriding) the defaults below: DATA_DIR, PORT, SECRET_KEY, LOG_LEVEL=warn, high rate limits, and those `npm start` sets (startEnvironment()). */
  env?: Record<string, string>
  /** Longest wait for `/api/health` to answer 200 (default 30 s). */
  readyTimeoutMs?: number
  /** Keep the temporary DATA_DIR after stop() (default: removed). */
  keepDataDir?: boolean
  /** Where the server's stdout/stderr go (default: collected; printed if it fails to start). */
  stdio?: 'inherit' | 'collect'
  /**
   * Extra Node flags put after `npm start`'s own, just before the script, so
   * they win over them; the words of BENCH_NODE_FLAGS come first, e.g.
   * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the server under a
   * benchmark's load, or `--max-semi-space-size=16` to try another value.
   */
  nodeFlags?: string[]
  /** The argv to run, its script last (default: `npm start`'s, startCommand()); compiled-start.test.ts runs its own build. */
  command?: string[]
}

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` */
  url: string
  port: number
  pid: number
  dataDir: string
  /** The argv that was run (from package.json's `start`). */
  command: string[]
  /** Milliseconds from spawn to the first 200 from `/api/health`. */
  readyMs: number
  child: ChildProcess
  /** The server process's resident set size now, in bytes (Linux /proc; NaN elsewhere). */
  rss (): number
  /**
   * CPU time the server has used so far, in ms (Linux /proc): `main` its main
   * thread, `total` all its threads. Less sensitive to a busy machine than wall time.
   */
  cpuMs (): { main: number, total: number }
  /** Output collected so far (stdio 'collect'). */
  output (): string
  /** SIGTERM, wait for the exit (SIGKILL after 10 s), remove the DATA_DIR. Resolves with the exit code. */
  stop (): Promise<number | null>
}

/** A leading `NAME=value` word of a package.json script: an environment variable the shell sets for the command. */
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/

/** The words of a package.json script (it holds no quoting or shell operators; refused if it ever does). */
function scriptWords (name: string, root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
  const script = pkg.scripts?.[name]
  if (!script) throw new Error(`package.json has no scripts.${name}`)
  if (/[|&;<>()$`"'\\]/.test(script)) throw new Error(`package.json's ${name} script is not a plain command: ${script}`)
  return script.trim().split(/\s+/)
}

/**
 * A command of package.json's scripts as an argv, split on spaces, without
 * its leading `NAME=value` words (scriptEnvironment), with `node` replaced by
 * this Node binary so the program runs on the same version.
 */
export function npmScriptCommand (name: string, root = REPO_ROOT): string[] {
  const argv = scriptWords(name, root)
  while (argv.length > 0 && ASSIGNMENT.test(argv[0]!)) argv.shift()
  if (argv[0] === 'node') argv[0] = process.execPath
  return argv
}

/**
 * The environment variables a package.json script sets before its command
 * (`MALLOC_ARENA_MAX=1 … node …`: the start's malloc settings, README "Production
 * build"); a process started from npmScriptCommand() gets them from here.
 */
export function scriptEnvironment (name: string, root = REPO_ROOT): Record<string, string> {
  const env: Record<string, string> = {}
  for (const word of scriptWords(name, root)) {
    const m = ASSIGNMENT.exec(word)
    if (!m) break
    env[m[1]!] = m[2]!
  }
  return env
}

/** `npm start`'s command as an argv (package.json's `scripts.start`, without its environment: startEnvironment()). */
export function startCommand (root = REPO_ROOT): string[] {
  return npmScriptCommand('start', root)
}

/** The environment variables `npm start` sets for its command (scriptEnvironment('start')). */
export function startEnvironment (root = REPO_ROOT): Record<string, string> {
  return scriptEnvironment('start', root)
}

/** A port of 127.0.0.1 that was free a moment ago (the server binds it right after). */
export function freePort (): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolvePort(port))
    })
  })
}

/**
 * CPU time a process has used so far, in ms: utime + stime of /proc/<pid>/stat
 * (all its threads), or of its main thread's /proc/<pid>/task/<pid>/stat
 * (USER_HZ is 100 on Linux). NaN once it has gone, or off Linux.
 */
export function processCpuMs (pid: number, mainThreadOnly = false): number {
  try {
    const fields = readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return NaN
  }
}

/** A process's resident set size now, in bytes (VmRSS of /proc/<pid>/status). NaN once it has gone, or off Linux. */
export function processRss (pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    if (kb) return Number(kb) * 1024
  } catch { /* not Linux, or the process is gone */ }
  return NaN
}

/** Starts the server the `npm start` way and resolves once `/api/health` answers 200. */
export async function startServerProcess (options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const command = [...(options.command ?? startCommand())]
  const nodeFlags = [...(process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean), ...(options.nodeFlags ?? [])]
  command.splice(command.length - 1, 0, ...nodeFlags)
  const dataDir = mkdtempSync(join(tmpdir(), 'server-process-'))
  const port = await freePort()
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: `file:${join(dataDir, 'app.db')}`,
    SECRET_KEY: 'bench-secret-key-0123456789',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_PRO_PER_MINUTE: '1000000',
    // What `npm start` sets before its command (its malloc settings): the same process a user runs.
    ...startEnvironment(),
    ...options.env,
  }
  // A TypeScript loader inherited from the caller (`node --import tsx bench.ts`)
  // must not reach the server: it would not be the production start.
  delete env.NODE_OPTIONS
  const collect = (options.stdio ?? 'collect') === 'collect'
  let output = ''
  const started = performance.now()
  const child = spawn(command[0]!, command.slice(1), { cwd: REPO_ROOT, env, stdio: collect ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
  if (collect) {
    const keep = (chunk: Buffer) => { output = (output + chunk.toString()).slice(-64 * 1024) }
    child.stdout!.on('data', keep)
    child.stderr!.on('data', keep)
  }
  const exited = new Promise<number | null>(resolveExit => child.once('exit', (code) => resolveExit(code)))
  let gone = false
  void exited.then(() => { gone = true })
  const url = `http://127.0.0.1:${port}`
  const removeDir = () => { if (!options.keepDataDir) rmSync(dataDir, { recursive: true, force: true }) }
  const stop = async () => {
    if (!gone) {
      child.kill('SIGTERM')
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(kill)
    }
    removeDir()
    return exited
  }

  const deadline = started + (options.readyTimeoutMs ?? 30_000)
  let readyMs = NaN
  while (true) {
    if (gone) {
      removeDir()
      throw new Error(`the server exited with code ${await exited} before answering /api/health (${command.join(' ')}):\n${output}`)
    }
    try {
      const res = await fetch(`${url}/api/health`)
      await res.arrayBuffer()
      if (res.status === 200) { readyMs = performance.now() - started; break }
    } catch { /* not listening yet */ }
    if (performance.now() > deadline) {
      await stop()
      throw new Error(`the server did not answer /api/health within ${options.readyTimeoutMs ?? 30_000} ms (${command.join(' ')}):\n${output}`)
    }
    await new Promise(r => setTimeout(r, 10))
  }
  return {
    url, port, pid: child.pid!, dataDir, command, readyMs, child,
    rss: () => processRss(child.pid!),
    cpuMs: () => ({ main: processCpuMs(child.pid!, true), total: processCpuMs(child.pid!) }),
    output: () => output,
    stop,
  }
}
