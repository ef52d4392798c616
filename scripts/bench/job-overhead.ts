// Benchmark (issue 3): what the kernel costs around a trivial job. The test
// counter tool with max_results 1 is started through inject (POST
// /api/tool-run), one job at a time, and timed from before the POST to the
// moment the runner records the outcome (its final `done` event, emitted after
// the last database write). 500 jobs after 20 warm-up jobs; p50/p90/p99/max.
// A final GET status per job (untimed) confirms each ended `done`.
// Run: node --import tsx scripts/bench/job-overhead.ts   (BENCH_JOBS, BENCH_WARMUP to tune)
// Goal: p50 under 20 ms. Exits non-zero only on errors, never on the goal.
import { COUNTER_PLUGIN, goal, jobStatus, percentile, printTable, proAccount, runMain, startBenchApp, startJob } from './harness.ts'

const JOBS = Number(process.env.BENCH_JOBS ?? 500)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20)
// Pro allows 500 calls per account per day: jobs are spread over accounts.
const CALLS_PER_ACCOUNT = 400

async function main (): Promise<void> {
  const bench = await startBenchApp([{ key: 'counter', plugin: COUNTER_PLUGIN, enabled: true }])
  try {
    const { app } = bench
    const keys: string[] = []
    for (let i = 0; i < Math.ceil((JOBS + WARMUP) / CALLS_PER_ACCOUNT); i++) keys.push(await proAccount(app))
    const keyFor = (n: number) => keys[Math.floor(n / CALLS_PER_ACCOUNT)]!

    const total: number[] = []
    const accepted: number[] = []
    let n = 0
    for (let i = 0; i < WARMUP + JOBS; i++, n++) {
      const key = keyFor(n)
      const t0 = performance.now()
      const jobId = await startJob(app, key, 'counter', { max_results: 1 })
      const t1 = performance.now()
      const t2 = await bench.finished(jobId)
      const status = await jobStatus(app, key, jobId)
      if (status.status !== 'done' || status.records !== 1) throw new Error(`job ${jobId} ended ${status.status} with ${status.records} records`)
      if (i >= WARMUP) { total.push(t2 - t0); accepted.push(t1 - t0) }
    }
    const sortedTotal = [...total].sort((a, b) => a - b)
    const sortedAccepted = [...accepted].sort((a, b) => a - b)
    const row = (name: string, xs: number[]) => [name, ...[50, 90, 99].map(p => percentile(xs, p).toFixed(2)), xs[xs.length - 1]!.toFixed(2)]
    printTable(`job overhead: counter tool, max_results 1, ${JOBS} jobs in sequence through inject (after ${WARMUP} warm-up jobs), SQLite`, [
      ['measure (ms)', 'p50', 'p90', 'p99', 'max'],
      row('start to done (POST .. outcome recorded)', sortedTotal),
      row('  of which POST /api/tool-run answered 202', sortedAccepted),
    ])
    goal(`p50 start-to-done under 20 ms (${percentile(sortedTotal, 50).toFixed(2)} ms)`, percentile(sortedTotal, 50) < 20)
  } finally {
    await bench.close()
  }
}

runMain(main)
