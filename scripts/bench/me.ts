// Benchmark (issue 17): requests per second of `GET /api/auth/me` against a
// bare fastify route answering the same JSON object. Three processes: the
// service started the way `npm start` starts it (processes.ts reads the start
// script), the bare server (bare-server.mjs, plain Node), and autocannon.
// Run: node --import tsx scripts/bench/me.ts
//   BENCH_SECONDS (8), BENCH_CONNECTIONS (10), BENCH_ROUNDS (2); LOG_LEVEL is the service's default unless set.
// Prints both rates and the ratio with its goal; exits non-zero only on
// request errors, never on the ratio.
import { compareRates, cpuPerRequest, signUp, startBare, startService } from './processes.ts'
import { goal, mean, runMain } from './harness.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
export const ME_GOAL = 0.6

async function main (): Promise<void> {
  const service = await startService()
  let bare: Awaited<ReturnType<typeof startBare>> | undefined
  try {
    const apiKey = await signUp(service.url)
    const headers = { 'x-api-key': apiKey }
    const probe = await fetch(`${service.url}/api/auth/me`, { headers })
    const text = await probe.text()
    if (probe.status !== 200) throw new Error(`me failed: ${probe.status} ${text}`)
    bare = await startBare(JSON.parse(text))
    const bareText = await (await fetch(`${bare.base}/bare`)).text()
    console.log(`body: me ${Buffer.byteLength(text)} bytes, bare ${Buffer.byteLength(bareText)} bytes; ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds (order alternates); service: npm start's command, LOG_LEVEL=${process.env.LOG_LEVEL ?? 'default'}`)
    const runs = await compareRates({ me: { url: `${service.url}/api/auth/me`, headers }, bare: { url: `${bare.base}/bare` } }, { connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS })
    const bad = runs.me.concat(runs.bare).reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0)
    if (bad > 0) { console.error(`${bad} failed requests`); process.exitCode = 1 }
    const me = mean(runs.me.map(r => r.rps))
    const bareRps = mean(runs.bare.map(r => r.rps))
    const ratio = me / bareRps
    console.log(`GET /api/auth/me: ${me.toFixed(0)} req/s (${runs.me.map(r => r.rps.toFixed(0)).join(', ')})`)
    console.log(`bare fastify:     ${bareRps.toFixed(0)} req/s (${runs.bare.map(r => r.rps.toFixed(0)).join(', ')})`)
    // The server's CPU per answer (all threads, /proc): what the code costs,
    // whatever share of the 2 cores the neighbours and autocannon left it.
    const meCpu = await cpuPerRequest(service.pid, `${service.url}/api/auth/me`, { connections: CONNECTIONS, seconds: SECONDS, headers })
    const bareCpu = await cpuPerRequest(bare.pid, `${bare.base}/bare`, { connections: CONNECTIONS, seconds: SECONDS })
    console.log(`server CPU per answer: me ${meCpu.cpuUs.toFixed(0)} µs, bare ${bareCpu.cpuUs.toFixed(0)} µs (bare / me ${(bareCpu.cpuUs / meCpu.cpuUs).toFixed(2)}, the rate ratio a CPU-bound server would reach)`)
    goal(`me / bare ${ratio.toFixed(2)} >= ${ME_GOAL}`, ratio >= ME_GOAL)
  } finally {
    await bare?.stop()
    await service.stop()
  }
}

runMain(main)
