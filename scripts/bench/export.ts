// Benchmark (issues 3 and 17): exporting a 100,000-row job as CSV and as XLSX
// through the real HTTP route, with rows/s and the server's peak RSS.
//
// The server is its own process, started the way `npm start` starts it
// (processes.ts), and its RSS is read from /proc while the export streams to
// /dev/null in this process: the figure is the service's, not the client's.
//
// How the rows get there: the per-run cap (Pro: 1,000 rows) stops a kernel
// run far short of 100,000, so a counter job is run through the kernel with
// max_results 1,000 (real rows, real column list, job ends `done`), and
// 100,000 realistic rows replace them in result_rows, written by a child
// process through app.services.db before the service starts: a scraped
// business with long text (a page's extracted text, 1-3 kB), lists (e-mails,
// phones, tags), nested objects (address, socials, an opening-hours list), so
// the export carries what real jobs do, not counters. jobs.records and
// jobs.columns are set to match.
//
// Run: node --import tsx scripts/bench/export.ts   (BENCH_ROWS to tune; BENCH_EXPORT_DIR=<dir> keeps the rows there for reruns)
// Goal: the server's peak RSS under 200 MB for each format. Exits non-zero
// only on errors, never on the goal.
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { COUNTER_PLUGIN, goal, mb, printTable, proAccount, runJobToDone, runMain, startBenchApp } from './harness.ts'
import { benchDir, counterPluginForStart, sampleRss, startService } from './processes.ts'

export const EXPORT_RSS_GOAL_MB = 200

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const KERNEL_ROWS = 1000

const WORDS = 'the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there one all we their'.split(' ')

/** Deterministic pseudo-random text of about `length` characters (a page's extracted text). */
function prose (seed: number, length: number): string {
  let x = seed * 2654435761 >>> 0
  const out: string[] = []
  let size = 0
  while (size < length) {
    x = (x * 1103515245 + 12345) >>> 0
    const w = WORDS[x % WORDS.length]!
    out.push(size === 0 || x % 17 === 0 ? w[0]!.toUpperCase() + w.slice(1) : w)
    size += w.length + 1
    if (x % 23 === 0) out.push('\n')
  }
  return out.join(' ') + '.'
}

/** A realistic scraped-business row for n: long text, lists, nested objects, a formula-like name now and then. */
function businessRow (n: number): Record<string, unknown> {
  const domain = `business-${n}.example.com`
  return {
    name: n % 50 === 0 ? `=HYPERLINK("http://x/${n}")` : `Business ${n} & Sons, "Quality" Services`,
    website: `https://${domain}/`,
    emails: [`info@${domain}`, `sales@${domain}`, ...(n % 3 === 0 ? [`owner.${n}@mail.example.net`] : [])],
    phones: ['+1 415 555 0' + String(n % 1000).padStart(3, '0'), ...(n % 2 === 0 ? ['+44 20 7946 0' + String(n % 1000).padStart(3, '0')] : [])],
    address: { street: `${n} Market Street`, city: 'San Francisco', region: 'CA', postal_code: '94103', country: 'US' },
    socials: { facebook: `https://facebook.com/biz${n}`, instagram: `https://instagram.com/biz${n}`, ...(n % 4 === 0 ? { linkedin: `https://linkedin.com/company/biz${n}` } : {}) },
    rating: Math.round((3 + (n % 20) / 10) * 10) / 10,
    reviews: n % 997,
    tags: ['plumbing', 'heating', 'emergency', 'residential', 'commercial'].slice(0, 1 + (n % 5)),
    hours: ['Mon 08:00-18:00', 'Tue 08:00-18:00', 'Wed 08:00-18:00', 'Thu 08:00-18:00', 'Fri 08:00-16:00'],
    description: prose(n, 1000 + (n % 5) * 500),
    found_on: [`https://${domain}/contact`, `https://${domain}/about`],
    verified: n % 3 !== 0,
  }
}

const TOOLS = [{ key: 'counter', plugin: COUNTER_PLUGIN, enabled: true }]

/** Child process: fills dir's database with the job, prints { jobId, apiKey } as JSON on its last line. */
async function prepare (dir: string): Promise<void> {
  const bench = await startBenchApp(TOOLS, {}, { dir, keep: true })
  try {
    const { app } = bench
    const apiKey = await proAccount(app)
    const { jobId, status } = await runJobToDone(bench, apiKey, 'counter', { max_results: KERNEL_ROWS, batch: 100 })
    if (status.records !== KERNEL_ROWS) throw new Error(`counter job stored ${status.records} rows, expected ${KERNEL_ROWS}`)
    const db = app.services.db
    // The counter's rows make way for realistic ones (same job, done, real column list replaced).
    await db.resultRow.deleteMany({ where: { jobId } })
    const columns = new Set<string>()
    for (let start = 0; start < ROWS; start += 2000) {
      const data = []
      for (let seq = start; seq < Math.min(ROWS, start + 2000); seq++) {
        const row = businessRow(seq + 1)
        for (const k of Object.keys(row)) columns.add(k)
        data.push({ jobId, seq, data: JSON.stringify(row) })
      }
      await db.resultRow.createMany({ data })
    }
    await db.job.update({ where: { id: jobId }, data: { records: ROWS, columns: JSON.stringify([...columns]) } })
    const stored = await db.resultRow.count({ where: { jobId } })
    if (stored !== ROWS) throw new Error(`result_rows holds ${stored} rows, expected ${ROWS}`)
    console.log(JSON.stringify({ jobId, apiKey }))
  } finally {
    await bench.close()
  }
}

async function main (): Promise<void> {
  // The rows are written by a child process, before the service starts.
  // BENCH_EXPORT_DIR keeps them for the next run (writing 100,000 rows takes minutes on a busy machine).
  const kept = process.env.BENCH_EXPORT_DIR
  const dir = kept ?? benchDir('bench-export-')
  const saved = join(dir, 'export-job.json')
  if (!existsSync(saved)) {
    const tPrepare = performance.now()
    mkdirSync(dir, { recursive: true })
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--prepare', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    if (child.status !== 0) throw new Error(`preparing the rows failed (exit ${child.status})`)
    writeFileSync(saved, child.stdout.trim().split('\n').pop()!)
    console.log(`rows: ${ROWS} realistic business rows (long text, lists, nested objects) in a finished counter job, written in a child process (${((performance.now() - tPrepare) / 1000).toFixed(1)} s)`)
  } else {
    console.log(`rows: reusing ${saved}`)
  }
  const { jobId, apiKey } = JSON.parse(readFileSync(saved, 'utf8')) as { jobId: string, apiKey: string }

  const service = await startService({ dir, tools: [{ key: 'counter', plugin: await counterPluginForStart(), enabled: true }] })
  try {
    const base = service.url
    const headers = { 'x-api-key': apiKey }
    const idle = service.rss()
    const table: Array<Array<string | number>> = [['format', 'rows', 'MB out', 'seconds', 'rows/s', 'server RSS before MB', 'server peak RSS MB', 'peak - before MB', 'samples']]
    const peaks: number[] = []
    let sample = 0
    for (let n = 1; n <= 1000; n++) sample += JSON.stringify(businessRow(n)).length
    const rowKb = (sample / 1000 / 1024).toFixed(1)
    // A small export first, so both routes are loaded before the baseline is read.
    for (const format of ['csv', 'xlsx'] as const) {
      const warm = await fetch(`${base}/api/tool-run/${jobId}/results.${format}?fields=name`, { headers })
      await warm.arrayBuffer()
    }
    for (const format of ['csv', 'xlsx'] as const) {
      await new Promise(r => setTimeout(r, 500))
      const before = service.rss()
      const sampler = sampleRss(service.pid, 20)
      const t0 = performance.now()
      const res = await fetch(`${base}/api/tool-run/${jobId}/results.${format}`, { headers })
      if (res.status !== 200 || !res.body) throw new Error(`${format} export answered ${res.status}: ${await res.text()}`)
      let bytes = 0
      const count = new Transform({ transform (chunk, _enc, cb) { bytes += chunk.length; cb(null, chunk) } })
      await pipeline(Readable.fromWeb(res.body as never), count, createWriteStream('/dev/null'))
      const seconds = (performance.now() - t0) / 1000
      const { peak, samples } = sampler.stop()
      peaks.push(peak)
      if (bytes < ROWS * 100) throw new Error(`${format} export is only ${bytes} bytes`)
      table.push([format, ROWS, mb(bytes), seconds.toFixed(2), Math.round(ROWS / seconds), mb(before), mb(peak), mb(peak - before), samples])
    }
    printTable(`export: ${ROWS} business rows (${rowKb} kB of JSON each on average) through GET /api/tool-run/:id/results.<fmt>; server started as npm start does (idle after start and the job: ${mb(idle)} MB), fetch to /dev/null from this process`, table)
    goal(`server peak RSS under ${EXPORT_RSS_GOAL_MB} MB, csv ${mb(peaks[0]!)} MB`, peaks[0]! < EXPORT_RSS_GOAL_MB * 1024 * 1024)
    goal(`server peak RSS under ${EXPORT_RSS_GOAL_MB} MB, xlsx ${mb(peaks[1]!)} MB`, peaks[1]! < EXPORT_RSS_GOAL_MB * 1024 * 1024)
  } finally {
    await service.stop()
    if (!kept) rmSync(dir, { recursive: true, force: true })
  }
}

const prepareAt = process.argv.indexOf('--prepare')
runMain(prepareAt > 0 ? () => prepare(process.argv[prepareAt + 1]!) : main)
