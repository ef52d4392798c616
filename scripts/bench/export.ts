// Benchmark (issue 3): exporting a 100,000-row job as CSV and as XLSX through
// the real HTTP route (app.listen on 127.0.0.1, fetch, body streamed to
// /dev/null), with rows/s and the process's peak RSS.
//
// How the rows get there: the per-run cap (Pro: 1,000 rows) stops a kernel
// run far short of 100,000, so a counter job is run through the kernel with
// max_results 1,000 (real rows, real column list, job ends `done`), and the
// remaining 99,000 rows are inserted directly into result_rows for that
// finished job through app.services.db (rows shaped exactly like the counter's,
// seq continuing), then jobs.records is set to 100,000.
//
// Memory: RSS is sampled every 50 ms by a worker thread (so samples keep
// coming while the event loop is busy); the baseline is the RSS after a full
// GC just before each export. Server and client share this process, so the
// peak includes the fetch client's buffers.
// Run: node --import tsx scripts/bench/export.ts   (BENCH_ROWS to tune)
// Goal: peak RSS under 300 MB. Exits non-zero only on errors, never on the goal.
import { createWriteStream, mkdtempSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { AddressInfo } from 'node:net'
import { COUNTER_PLUGIN, collectGarbage, goal, mb, printTable, proAccount, runJobToDone, runMain, startBenchApp, startRssSampler } from './harness.ts'

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const KERNEL_ROWS = 1000

/** The counter tool's row for n (test/fixtures/plugins/counter), so inserted rows look like pushed ones. */
function counterRow (n: number, label: string): Record<string, unknown> {
  return { n, label, text: n % 3 === 0 ? `says "hi", then\nnewline, é ✓` : `row ${n}`, ...(n % 2 === 0 ? { nested: { even: true, tags: ['a', 'b'] } } : {}), ...(n === 4 ? { extra: 'late column' } : {}) }
}

const TOOLS = [{ key: 'counter', plugin: COUNTER_PLUGIN, enabled: true }]

/** Child process: fills dir's database with the job, prints { jobId, apiKey } as JSON on its last line. */
async function prepare (dir: string): Promise<void> {
  const bench = await startBenchApp(TOOLS, {}, { dir, keep: true })
  try {
    const { app } = bench
    const apiKey = await proAccount(app)
    const label = 'export bench row label'
    const { jobId, status } = await runJobToDone(bench, apiKey, 'counter', { max_results: KERNEL_ROWS, batch: 100, label })
    if (status.records !== KERNEL_ROWS) throw new Error(`counter job stored ${status.records} rows, expected ${KERNEL_ROWS}`)
    const db = app.services.db
    for (let start = KERNEL_ROWS; start < ROWS; start += 5000) {
      const data = []
      for (let seq = start; seq < Math.min(ROWS, start + 5000); seq++) data.push({ jobId, seq, data: JSON.stringify(counterRow(seq + 1, label)) })
      await db.resultRow.createMany({ data })
    }
    await db.job.update({ where: { id: jobId }, data: { records: ROWS } })
    const stored = await db.resultRow.count({ where: { jobId } })
    if (stored !== ROWS) throw new Error(`result_rows holds ${stored} rows, expected ${ROWS}`)
    console.log(JSON.stringify({ jobId, apiKey }))
  } finally {
    await bench.close()
  }
}

async function main (): Promise<void> {
  // The rows are written by a child process, so the insert's heap does not inflate this process's RSS.
  const dir = mkdtempSync(join(tmpdir(), 'bench-export-'))
  const tPrepare = performance.now()
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--prepare', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (child.status !== 0) throw new Error(`preparing the rows failed (exit ${child.status})`)
  const { jobId, apiKey } = JSON.parse(child.stdout.trim().split('\n').pop()!) as { jobId: string, apiKey: string }
  console.log(`rows: ${KERNEL_ROWS} pushed by the counter tool through the kernel, ${ROWS - KERNEL_ROWS} inserted into result_rows via app.services.db, in a child process (${((performance.now() - tPrepare) / 1000).toFixed(1)} s)`)

  const bench = await startBenchApp(TOOLS, {}, { dir })
  try {
    const { app } = bench
    await app.listen({ host: '127.0.0.1', port: 0 })
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    const table: Array<Array<string | number>> = [['format', 'rows', 'MB out', 'seconds', 'rows/s', 'baseline RSS MB', 'peak RSS MB', 'peak - baseline MB', 'samples']]
    const peaks: number[] = []
    // A small export first, so both routes and exceljs are loaded before the baseline is read.
    for (const format of ['csv', 'xlsx'] as const) {
      const warm = await fetch(`${base}/api/tool-run/${jobId}/results.${format}?fields=n`, { headers: { 'x-api-key': apiKey } })
      await warm.arrayBuffer()
    }
    for (const format of ['csv', 'xlsx'] as const) {
      collectGarbage()
      await new Promise(r => setTimeout(r, 200))
      collectGarbage()
      const baseline = process.memoryUsage.rss()
      const sampler = startRssSampler(50)
      const t0 = performance.now()
      const res = await fetch(`${base}/api/tool-run/${jobId}/results.${format}`, { headers: { 'x-api-key': apiKey } })
      if (res.status !== 200 || !res.body) throw new Error(`${format} export answered ${res.status}: ${await res.text()}`)
      let bytes = 0
      const count = new Transform({ transform (chunk, _enc, cb) { bytes += chunk.length; cb(null, chunk) } })
      await pipeline(Readable.fromWeb(res.body as never), count, createWriteStream('/dev/null'))
      const seconds = (performance.now() - t0) / 1000
      const { peak, samples } = await sampler.stop()
      peaks.push(peak)
      if (bytes < ROWS * 5) throw new Error(`${format} export is only ${bytes} bytes`)
      table.push([format, ROWS, mb(bytes), seconds.toFixed(2), Math.round(ROWS / seconds), mb(baseline), mb(peak), mb(peak - baseline), samples])
    }
    printTable(`export: ${ROWS} counter rows (5 columns) through GET /api/tool-run/:id/results.<fmt>, real listen + fetch to /dev/null`, table)
    goal(`peak RSS under 300 MB (csv ${mb(peaks[0]!)} MB, xlsx ${mb(peaks[1]!)} MB)`, Math.max(...peaks) < 300 * 1024 * 1024)
  } finally {
    await bench.close()
  }
}

const prepareAt = process.argv.indexOf('--prepare')
runMain(prepareAt > 0 ? () => prepare(process.argv[prepareAt + 1]!) : main)
