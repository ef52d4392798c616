// Benchmark: start to ready and idle memory of the server as `npm start` runs
// it (server-process.ts: package.json's start command, its own process, a fresh
// DATA_DIR, so every round migrates a new SQLite database as a first start does).
// Run: node --import tsx scripts/bench/startup.ts   (BENCH_ROUNDS=5, BENCH_IDLE_MS=2000)
//
// Each round: spawn → first 200 from GET /api/health (start to ready) → one
// POST /api/auth/signup → BENCH_IDLE_MS of quiet → the server's RSS (idle RSS
// after start and one signup) → SIGTERM. The same is measured for a bare
// fastify process (one route, no database) as the floor. The load generator is
// this process; the servers are child processes. Goals: start to ready < 1 s,
// idle RSS < 120 MB (medians). Exits non-zero only on errors.
import { goal, median, printTable, runMain } from './harness.ts'
import { startBare } from './processes.ts'
import { processCpuMs, processRss, startCommand, startServerProcess } from './server-process.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 2000)
const READY_GOAL_MS = 1000
const RSS_GOAL_MB = 120

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))
const toMb = (bytes: number) => bytes / 1024 / 1024

interface Round { readyMs: number, rssReadyMb: number, rssIdleMb: number, cpuMainMs: number, cpuTotalMs: number }

async function serviceRound (round: number): Promise<Round> {
  const server = await startServerProcess()
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
    return { readyMs: server.readyMs, rssReadyMb, rssIdleMb: toMb(server.rss()), cpuMainMs: cpu.main, cpuTotalMs: cpu.total }
  } finally {
    await server.stop()
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
  const command = startCommand().map(a => a === process.execPath ? 'node' : a).join(' ')
  console.log(`server: \`${command}\` (package.json's start), fresh DATA_DIR each round; ${ROUNDS} rounds, ${IDLE_MS} ms idle before the RSS reading; Node ${process.version}`)
  const service: Round[] = []
  const bare: Round[] = []
  for (let round = 0; round < ROUNDS; round++) {
    service.push(await serviceRound(round))
    bare.push(await bareRound())
    const s = service.at(-1)!
    console.log(`round ${round + 1}: service ready ${s.readyMs.toFixed(0)} ms, idle RSS ${s.rssIdleMb.toFixed(1)} MB; bare fastify ready ${bare.at(-1)!.readyMs.toFixed(0)} ms, ${bare.at(-1)!.rssIdleMb.toFixed(1)} MB`)
  }
  const row = (name: string, rounds: Round[]) => {
    const ready = rounds.map(r => r.readyMs)
    return [name, median(ready).toFixed(0), Math.min(...ready).toFixed(0), Math.max(...ready).toFixed(0), median(rounds.map(r => r.cpuMainMs)).toFixed(0), median(rounds.map(r => r.cpuTotalMs)).toFixed(0), median(rounds.map(r => r.rssReadyMb)).toFixed(1), median(rounds.map(r => r.rssIdleMb)).toFixed(1), Math.max(...rounds.map(r => r.rssIdleMb)).toFixed(1)]
  }
  // CPU at ready: the main thread's and all threads' (compilers, GC helpers), read from /proc; a busy machine inflates wall time far more.
  printTable('start to ready and idle memory (medians over the rounds)', [
    ['process', 'ready ms', 'min', 'max', 'CPU main ms', 'CPU all ms', 'RSS at ready MB', 'idle RSS MB', 'max idle MB'],
    row('service (npm start)', service),
    row('bare fastify', bare),
  ])
  console.log(`ready time, service / bare fastify: ${(median(service.map(r => r.readyMs)) / median(bare.map(r => r.readyMs))).toFixed(1)}× (a busy machine stretches both)`)
  goal(`start to ready < ${READY_GOAL_MS} ms (median ${median(service.map(r => r.readyMs)).toFixed(0)} ms)`, median(service.map(r => r.readyMs)) < READY_GOAL_MS)
  goal(`idle RSS after start and one signup < ${RSS_GOAL_MB} MB (median ${median(service.map(r => r.rssIdleMb)).toFixed(1)} MB)`, median(service.map(r => r.rssIdleMb)) < RSS_GOAL_MB)
}

runMain(main)
