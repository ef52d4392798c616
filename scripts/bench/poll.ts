// Benchmark (issue 17): `GET /api/tool-run/<id>/status`, the call a client
// makes most (a poll every few seconds per job), under 500 and 1,000
// concurrent pollers, against a bare fastify route answering the same JSON
// object. Three processes: the service started the way `npm start` starts it
// (processes.ts reads the start script), the bare server (bare-server.mjs)
// and autocannon; each poller is one keep-alive connection with one request
// in flight. The polled job is a counter job that is still running (its
// stage and records come from the runner's live overlay), as when a client
// waits for it; it is cancelled at the end.
// Run: node --import tsx scripts/bench/poll.ts
//   BENCH_SECONDS (10), BENCH_POLLERS (500,1000), BENCH_ROUNDS (1)
// Goals: at 1,000 pollers, ≥ 0.5 of the bare route's rate, p99 < 100 ms, no
// errors or timeouts. Exits non-zero only when the setup fails, never on a goal.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO, goal, mean, printTable, runMain } from './harness.ts'
import { compareRates, counterPluginForStart, signUp, startBare, startRunningCounter, startService } from './processes.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const POLLERS = (process.env.BENCH_POLLERS ?? '500,1000').split(',').map(Number)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1)
export const POLL_RATIO_GOAL = 0.5
export const POLL_P99_GOAL_MS = 100

async function main (): Promise<void> {
  // The repository's tools plus the test-only counter, so the service loads what a user's does.
  const config = JSON.parse(readFileSync(join(REPO, 'tools.config.json'), 'utf8')) as { tools: Array<Record<string, unknown>> }
  const service = await startService({ tools: [...config.tools, { key: 'counter', plugin: await counterPluginForStart(), enabled: true }] })
  let bare: Awaited<ReturnType<typeof startBare>> | undefined
  try {
    const apiKey = await signUp(service.url)
    const headers = { 'x-api-key': apiKey }
    const { jobId, statusUrl, body: text } = await startRunningCounter(service.url, headers)
    bare = await startBare(JSON.parse(text))
    console.log(`body: status ${Buffer.byteLength(text)} bytes (job ${JSON.parse(text).status}, stage '${JSON.parse(text).stage}'); ${SECONDS} s per run, ${ROUNDS} round(s) per poller count (order alternates); service: npm start's command, LOG_LEVEL=${process.env.LOG_LEVEL ?? 'default'}`)

    const table: Array<Array<string | number>> = [['pollers', 'status req/s', 'bare req/s', 'ratio', 'status p50 ms', 'status p99 ms', 'status max ms', 'bare p99 ms', 'errors+timeouts']]
    let last: { ratio: number, p99: number, failed: number } | undefined
    for (const pollers of POLLERS) {
      const runs = await compareRates({ status: { url: statusUrl, headers }, bare: { url: `${bare.base}/bare` } }, { connections: pollers, seconds: SECONDS, rounds: ROUNDS })
      const rps = mean(runs.status.map(r => r.rps))
      const bareRps = mean(runs.bare.map(r => r.rps))
      const p99 = Math.max(...runs.status.map(r => r.p99))
      const failed = runs.status.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0)
      table.push([pollers, rps.toFixed(0), bareRps.toFixed(0), (rps / bareRps).toFixed(2), Math.max(...runs.status.map(r => r.p50)), p99, Math.max(...runs.status.map(r => r.max)), Math.max(...runs.bare.map(r => r.p99)), failed])
      last = { ratio: rps / bareRps, p99, failed }
    }
    printTable(`GET /api/tool-run/<id>/status of a running job vs a bare fastify route with the same body`, table)
    if (last) {
      const at = POLLERS[POLLERS.length - 1]
      goal(`status / bare at ${at} pollers ${last.ratio.toFixed(2)} >= ${POLL_RATIO_GOAL}`, last.ratio >= POLL_RATIO_GOAL)
      goal(`status p99 at ${at} pollers ${last.p99} ms < ${POLL_P99_GOAL_MS} ms`, last.p99 < POLL_P99_GOAL_MS)
      goal(`status errors and timeouts at ${at} pollers: ${last.failed} = 0`, last.failed === 0)
    }
    await fetch(`${service.url}/api/tool-run/${jobId}`, { method: 'DELETE', headers })
  } finally {
    await bare?.stop()
    await service.stop()
  }
}

runMain(main)
