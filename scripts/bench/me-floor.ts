// Benchmark (issue 17): how close to the bare route can `GET /api/auth/me` get
// at all? The server's CPU per answer of the bare fastify route (me.ts's
// baseline), of the same route with the per-request layers every route of the
// service carries before doing anything of its own (bare-server.mjs,
// BARE_LAYERS: the access line, the hooks' shapes, @fastify/websocket, a
// response schema), and of the service's `me`. bare / (bare + layers) is the
// best ratio a service with an access log and those hooks could reach, whatever
// its own work costs; the rest of `me` (the key check, the rate limit, the
// usage read) must fit in what is left of the goal's budget.
// Run: node --import tsx scripts/bench/me-floor.ts   (npm run build first)
//   BENCH_SECONDS (3) per run, BENCH_ROUNDS (5), BENCH_CONNECTIONS (10); the median of the rounds.
import { cpuPerRequest, signUp, startBare, startService } from './processes.ts'
import { median, runMain } from './harness.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
/** me.ts's goal (importing me.ts would run it). */
const ME_GOAL = 0.6
const VARIANTS: Array<[string, string[]]> = [
  ['bare', []],
  ['+ access line', ['log']],
  ['+ hooks', ['log', 'hooks']],
  ['+ websocket, schema', ['log', 'hooks', 'ws', 'schema']],
]

async function main (): Promise<void> {
  const service = await startService()
  const servers: Array<Awaited<ReturnType<typeof startBare>>> = []
  try {
    const apiKey = await signUp(service.url)
    const headers = { 'x-api-key': apiKey }
    const me = `${service.url}/api/auth/me`
    const body = await (await fetch(me, { headers })).json()
    const targets: Array<{ name: string, pid: number, url: string, headers?: Record<string, string> }> = []
    for (const [name, layers] of VARIANTS) {
      const server = await startBare(body, layers)
      servers.push(server)
      targets.push({ name, pid: server.pid, url: `${server.base}/bare` })
    }
    targets.push({ name: 'service me', pid: service.pid, url: me, headers })
    for (const target of targets) await cpuPerRequest(target.pid, target.url, { connections: CONNECTIONS, seconds: 2, headers: target.headers })
    const cpu = new Map<string, number[]>(targets.map(t => [t.name, []]))
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of round % 2 ? [...targets].reverse() : targets) {
        const { cpuUs, result } = await cpuPerRequest(target.pid, target.url, { connections: CONNECTIONS, seconds: SECONDS, headers: target.headers })
        if (result.errors + result.timeouts + result.non2xx > 0) throw new Error(`${target.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`)
        cpu.get(target.name)!.push(cpuUs)
      }
    }
    const bare = median(cpu.get('bare')!)
    console.log(`server CPU per answer, median of ${ROUNDS} runs of ${SECONDS} s at ${CONNECTIONS} connections (bare / this: the rate ratio a CPU-bound server would reach)`)
    for (const [name, runs] of cpu) {
      const value = median(runs)
      console.log(`${name.padEnd(22)} ${value.toFixed(0).padStart(4)} µs  bare / this ${(bare / value).toFixed(2)}  (runs ${runs.map(r => r.toFixed(0)).join(' ')})`)
    }
    const floor = median(cpu.get(VARIANTS.at(-1)![0])!)
    const budget = bare / ME_GOAL
    console.log(`me's goal (${ME_GOAL}) allows ${budget.toFixed(0)} µs an answer; the layers alone take ${floor.toFixed(0)} µs, leaving ${(budget - floor).toFixed(0)} µs for the key check, the rate limit and the usage read (the service spends ${(median(cpu.get('service me')!) - floor).toFixed(0)} µs on them)`)
  } finally {
    for (const server of servers) await server.stop()
    await service.stop()
  }
}

runMain(main)
