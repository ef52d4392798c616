// Benchmark: start to ready and idle memory of the server as `npm start` runs
// it (server-process.ts: package.json's start command, its own process).
// Run: node --import tsx scripts/bench/startup.ts   (BENCH_ROUNDS=5, BENCH_IDLE_MS=2000)
//
// Each round: a first start on a fresh DATA_DIR (so it migrates a new SQLite
// database): spawn → first 200 from GET /api/health (start to ready) → one
// POST /api/auth/signup → BENCH_IDLE_MS of quiet → the server's RSS (idle RSS
// after start and one signup) → SIGTERM. Then a second start on the same
// DATA_DIR, as a user's usual start is (the database exists, nothing to
// migrate): start to ready and CPU. The same is measured for a bare fastify
// process (one route, no database) as the floor. The load generator is this
// process; the servers are child processes. Goals: start to ready < 1 s,
// idle RSS < 120 MB (medians). Exits non-zero only on errors.
import { goal, median, printTable, runMain } from './harness.ts'
import { startBare } from './processes.ts'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { processCpuMs, processRss, startCommand, startEnvironment, startServerProcess } from './server-process.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 2000)
const READY_GOAL_MS = 1000
const RSS_GOAL_MB = 120

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))
const toMb = (bytes: number) => bytes / 1024 / 1024

interface Round { readyMs: number, rssReadyMb: number, rssIdleMb: number, cpuMainMs: number, cpuTotalMs: number }

/** A first start on a fresh database (migrates; signup, idle RSS), then a second start on the same database (ready and CPU only). */
async function serviceRound (round: number): Promise<{ first: Round, second: Round }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'startup-bench-'))
  const env = { DATA_DIR: dataDir, DATABASE_URL: `file:${join(dataDir, 'app.db')}` }
  try {
    const server = await startServerProcess({ env })
    let first: Round
    try {
      const rssReadyMb = toMb(server.rss())
      const cpu = server.cpuMs()
      const signup = await fetch(`${server.url}/api/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `startup-${round}@example.com`, password: 'bench password 123', name: 'Bench' }),
      })
      const body = await signup.text()
      if (signup.status !== 200) throw new Error(`signup answered ${signup.status}: ${body}`)
      await sleep(IDLE_MS)
      first = { readyMs: server.readyMs, rssReadyMb, rssIdleMb: toMb(server.rss()), cpuMainMs: cpu.main, cpuTotalMs: cpu.total }
    } finally {
      await server.stop()
    }
    const again = await startServerProcess({ env })
    try {
      const cpu = again.cpuMs()
      const rssReadyMb = toMb(again.rss())
      return { first, second: { readyMs: again.readyMs, rssReadyMb, rssIdleMb: NaN, cpuMainMs: cpu.main, cpuTotalMs: cpu.total } }
    } finally {
      await again.stop()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** The floor: the bare fastify process of the HTTP benchmarks (processes.ts, one JSON route, no database), measured the same way. */
async function bareRound (): Promise<Round> {
  const bare = await startBare({ status: 'ok' })
  try {
    const rssReadyMb = toMb(processRss(bare.pid))
    const cpuMainMs = processCpuMs(bare.pid, true)
    const cpuTotalMs = processCpuMs(bare.pid)
    await sleep(IDLE_MS)
    return { readyMs: bare.readyMs, rssReadyMb, rssIdleMb: toMb(processRss(bare.pid)), cpuMainMs, cpuTotalMs }
  } finally {
    await bare.stop()
  }
}

async function main (): Promise<void> {
  const command = [...Object.entries(startEnvironment()).map(([name, value]) => `${name}=${value}`), ...startCommand().map(a => a === process.execPath ? 'node' : a)].join(' ')
  console.log(`server: \`${command}\` (package.json's start); each round a first start on a fresh DATA_DIR, then a second start on it; ${ROUNDS} rounds, ${IDLE_MS} ms idle before the RSS reading; Node ${process.version}`)
  const first: Round[] = []
  const second: Round[] = []
  const bare: Round[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const service = await serviceRound(round)
    first.push(service.first)
    second.push(service.second)
    bare.push(await bareRound())
    console.log(`round ${round + 1}: first start ready ${service.first.readyMs.toFixed(0)} ms, idle RSS ${service.first.rssIdleMb.toFixed(1)} MB; second start ready ${service.second.readyMs.toFixed(0)} ms; bare fastify ready ${bare.at(-1)!.readyMs.toFixed(0)} ms, ${bare.at(-1)!.rssIdleMb.toFixed(1)} MB`)
  }
  const fixed = (value: number, digits: number) => Number.isNaN(value) ? '-' : value.toFixed(digits)
  const row = (name: string, rounds: Round[]) => {
    const ready = rounds.map(r => r.readyMs)
    return [name, median(ready).toFixed(0), Math.min(...ready).toFixed(0), Math.max(...ready).toFixed(0), median(rounds.map(r => r.cpuMainMs)).toFixed(0), median(rounds.map(r => r.cpuTotalMs)).toFixed(0), median(rounds.map(r => r.rssReadyMb)).toFixed(1), fixed(median(rounds.map(r => r.rssIdleMb)), 1), fixed(Math.max(...rounds.map(r => r.rssIdleMb)), 1)]
  }
  // CPU at ready: the main thread's and all threads' (compilers, GC helpers), read from /proc; a busy machine inflates wall time far more.
  printTable('start to ready and idle memory (medians over the rounds)', [
    ['process', 'ready ms', 'min', 'max', 'CPU main ms', 'CPU all ms', 'RSS at ready MB', 'idle RSS MB', 'max idle MB'],
    row('service, first start (migrates)', first),
    row('service, second start', second),
    row('bare fastify', bare),
  ])
  const readyOf = (rounds: Round[]) => median(rounds.map(r => r.readyMs))
  console.log(`ready time, service / bare fastify: first start ${(readyOf(first) / readyOf(bare)).toFixed(1)}×, second start ${(readyOf(second) / readyOf(bare)).toFixed(1)}× (a busy machine stretches all three)`)
  goal(`start to ready < ${READY_GOAL_MS} ms (median: first start ${readyOf(first).toFixed(0)} ms, second start ${readyOf(second).toFixed(0)} ms)`, readyOf(first) < READY_GOAL_MS && readyOf(second) < READY_GOAL_MS)
  goal(`idle RSS after start and one signup < ${RSS_GOAL_MB} MB (median ${median(first.map(r => r.rssIdleMb)).toFixed(1)} MB)`, median(first.map(r => r.rssIdleMb)) < RSS_GOAL_MB)
}

runMain(main)
