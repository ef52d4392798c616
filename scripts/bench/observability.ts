// Benchmark (issue 29): the price of observability on the two hot paths,
// `GET /api/auth/me` and the status poll of a running job. Seven services
// started the way `npm start` starts them, side by side in the same run: the
// baseline with `METRICS=0` and no tracing, one with metrics (the default), one
// with metrics and tracing (`OTEL_EXPORTER_OTLP_ENDPOINT` at a stand-in OTLP
// receiver in this process that answers 200 and counts the spans' bytes, every
// trace recorded), the same driven by a caller whose `traceparent` says "not
// sampled" (an unsampled span and its context: what a request dropped after its
// span is made costs; no goal), tracing one trace in ten (`OTEL_TRACES_SAMPLER`:
// a dropped request gets no span at all), and tracing with status polls traced
// too (`OTEL_TRACE_STATUS_POLLS=1`, no goal; by default a status poll gets no
// span); beside them the floor of tracing: the tracing service with a tracer
// whose spans cost nothing registered before its SDK (noop-tracer.mjs), what any
// tracer that follows a request in its context pays here (no goal). Each route
// is driven on the seven in turn (order alternating each round),
// and each figure is its ratio to the baseline's in the same round set; the
// server's CPU per answer over the same runs is printed beside it (steadier on
// a shared machine, where the rate mostly says what the neighbours left).
// The services share CPU 0 and the load generators CPU 1 (pinServers; BENCH_PIN=0 leaves them
// to the scheduler), and a ratio is the median over the rounds of each round's ratio, its runs
// seconds apart: unpinned, three rounds of 8 s gave one configuration 0.70 and 0.86 in one run.
// Run: node --import tsx scripts/bench/observability.ts    (npm run build first: it measures dist/)
//   BENCH_SECONDS (3), BENCH_CONNECTIONS (10, me), BENCH_POLLERS (50, status), BENCH_ROUNDS (8)
// Goals: metrics on ≥ 0.95 of the baseline's req/s, tracing on ≥ 0.85 (every trace, and one in ten), for both
// routes. Exits non-zero only on failed requests or a failed setup, never on a goal.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO, goal, mean, printTable, runMain } from './harness.ts'
import { compareRates, counterPluginForStart, medianRoundRatio, pinServers, signUp, startRunningCounter, startService, type Target } from './processes.ts'
import type { ServerProcess } from './server-process.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const POLLERS = Number(process.env.BENCH_POLLERS ?? 50)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8)
export const METRICS_GOAL = 0.95
export const TRACING_GOAL = 0.85

type Variant = 'off' | 'metrics' | 'floor' | 'tracing' | 'unsampled' | 'sampled' | 'polls'
const VARIANTS: Variant[] = ['off', 'metrics', 'floor', 'tracing', 'unsampled', 'sampled', 'polls']

/**
 * A stand-in OTLP HTTP receiver (protobuf): answers every export 200 with an empty response, counts the
 * exports and their bytes, and separately those sent under `/floor` (the floor's SDK must send none).
 */
async function startReceiver (): Promise<{ url: string, exports: () => { requests: number, bytes: number, floor: number }, close (): Promise<void> }> {
  let requests = 0
  let bytes = 0
  let floor = 0
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => { bytes += chunk.length })
    req.on('end', () => {
      if (req.url === '/v1/traces') requests++
      if (req.url === '/floor/v1/traces') floor++
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => ({ requests, bytes, floor }),
    close: () => new Promise(resolve => server.close(() => resolve())),
  }
}

/** A caller's traceparent that says "not sampled" (flags 00). */
const UNSAMPLED = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00'

const load = () => loadavg().map(x => x.toFixed(1)).join(' / ')

async function main (): Promise<void> {
  const config = JSON.parse(readFileSync(join(REPO, 'tools.config.json'), 'utf8')) as { tools: Array<Record<string, unknown>> }
  const tools = [...config.tools, { key: 'counter', plugin: await counterPluginForStart(), enabled: true }]
  const receiver = await startReceiver()
  const env: Record<Variant, Record<string, string>> = {
    off: { METRICS: '0' },
    metrics: {},
    // Tracing on, but with noop-tracer.mjs's free spans in place of the SDK's (nodeFlags below): the floor of any tracer.
    floor: { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/floor`, OTEL_SERVICE_NAME: 'bench' },
    tracing: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'bench' },
    // The default sampler, every request from a caller whose traceparent says "not sampled" (UNSAMPLED below):
    // an unsampled span and its context, what a request costs that is dropped after its span is made (no goal).
    unsampled: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'bench' },
    // One trace in ten (OTEL_TRACES_SAMPLER, what an operator can choose): a dropped request gets no span, no context.
    sampled: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'bench', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
    // Status polls traced too (OTEL_TRACE_STATUS_POLLS=1; the default leaves them out): no goal, the price of choosing it.
    polls: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'bench', OTEL_TRACE_STATUS_POLLS: '1' },
  }
  const services: Partial<Record<Variant, ServerProcess>> = {}
  try {
    const nodeFlags = (v: Variant) => v === 'floor' ? ['--import', join(import.meta.dirname, 'noop-tracer.mjs')] : undefined
    for (const v of VARIANTS) services[v] = await startService({ tools, env: env[v], nodeFlags: nodeFlags(v) })
    const me = {} as Record<Variant, Target>
    const status = {} as Record<Variant, Target>
    const jobs: Array<{ base: string, jobId: string, headers: Record<string, string> }> = []
    for (const v of VARIANTS) {
      const base = services[v]!.url
      const headers = { 'x-api-key': await signUp(base) }
      const sent = v === 'unsampled' ? { ...headers, traceparent: UNSAMPLED } : headers
      me[v] = { url: `${base}/api/auth/me`, headers: sent }
      const job = await startRunningCounter(base, headers)
      status[v] = { url: job.statusUrl, headers: sent }
      jobs.push({ base, jobId: job.jobId, headers })
    }
    const pinned = process.env.BENCH_PIN !== '0' && pinServers(VARIANTS.map(v => services[v]!.pid))
    const loadBefore = load()
    console.log(`Node ${process.version}; ${pinned ? 'services on CPU 0, load generators on CPU 1' : 'not pinned'}; load average before: ${loadBefore} (1 / 5 / 15 min); ${SECONDS} s per run, ${ROUNDS} rounds (order alternates); me ${CONNECTIONS} connections, status ${POLLERS} pollers; LOG_LEVEL=${process.env.LOG_LEVEL ?? 'default'}`)

    const table: Array<Array<string | number>> = [['route', 'variant', 'req/s (mean)', 'runs', 'ratio to off (median of rounds)', 'CPU µs/answer', 'CPU ratio (off / it, median)', 'p99 ms']]
    const ratios: Array<{ route: string, variant: Variant, ratio: number }> = []
    let failed = 0
    for (const [route, targets, connections] of [['me', me, CONNECTIONS], ['status', status, POLLERS]] as const) {
      const pids = Object.fromEntries(VARIANTS.map(v => [v, services[v]!.pid])) as Record<Variant, number>
      const runs = await compareRates(targets, { connections, seconds: SECONDS, rounds: ROUNDS, pids })
      for (const v of VARIANTS) {
        const rps = mean(runs[v].map(r => r.rps))
        const ratio = medianRoundRatio(runs, v, 'off')
        const cpuRatio = medianRoundRatio(runs, 'off', v, r => r.cpuUs!)
        failed += runs[v].reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0)
        table.push([route, v, rps.toFixed(0), runs[v].map(r => r.rps.toFixed(0)).join(', '), ratio.toFixed(3), mean(runs[v].map(r => r.cpuUs!)).toFixed(0), cpuRatio.toFixed(3), Math.max(...runs[v].map(r => r.p99))])
        if (v === 'metrics' || v === 'floor' || v === 'tracing' || v === 'sampled') ratios.push({ route, variant: v, ratio })
      }
    }
    const spans = receiver.exports()
    printTable('observability overhead: the same routes with METRICS=0 (off), metrics on, tracing on with free spans in place of the SDK\'s (floor), metrics and tracing on (status polls untraced, the default), tracing on with every caller unsampled (unsampled), tracing one request in ten (sampled), and tracing with status polls traced (polls)', table)
    console.log(`load average after: ${load()}; OTLP exports received: ${spans.requests} (${(spans.bytes / 1024).toFixed(0)} KiB)`)
    if (failed > 0) { console.error(`${failed} failed requests`); process.exitCode = 1 }
    if (spans.requests === 0) { console.error('the tracing service sent no spans: tracing was not on'); process.exitCode = 1 }
    if (spans.floor > 0) { console.error('the floor sent spans: its free tracer was not the one registered'); process.exitCode = 1 }
    const floors = Object.fromEntries(ratios.filter(r => r.variant === 'floor').map(r => [r.route, r.ratio]))
    for (const { route, variant, ratio } of ratios) {
      if (variant === 'floor') continue
      if (variant === 'tracing') console.log(`${route}: the floor of any tracer that follows a request in its context (free spans, no goal) ${floors[route]!.toFixed(3)}`)
      const min = variant === 'metrics' ? METRICS_GOAL : TRACING_GOAL
      goal(`${route} with ${variant === 'sampled' ? 'tracing one in ten' : variant} on / off ${ratio.toFixed(3)} >= ${min}`, ratio >= min)
    }
    for (const job of jobs) await fetch(`${job.base}/api/tool-run/${job.jobId}`, { method: 'DELETE', headers: job.headers })
  } finally {
    for (const v of VARIANTS) await services[v]?.stop()
    await receiver.close()
  }
}

runMain(main)
