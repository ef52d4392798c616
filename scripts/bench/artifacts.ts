// Benchmark (issue 13): peak RSS of job files moving through the real HTTP
// server, against the idle process: a 200 MB upload (multipart POST
// /api/tool-run, streamed to disk), a 200 MB artifact written by a tool from
// a stream (ctx.artifact), and that artifact downloaded back (GET, streamed
// to nowhere). The test-only `files` tool (test/fixtures/plugins/files) reads
// the upload and writes the generated file.
//
// Memory: RSS sampled every 50 ms by a worker thread; the baseline is the RSS
// after a full GC just before each phase. Client and server share the process,
// so the figure includes the client's buffers.
// Run: node --import tsx scripts/bench/artifacts.ts   (BENCH_FILE_MB to tune)
// Goal: each peak under 150 MB over the baseline. Exits non-zero only on errors.
import http from 'node:http'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { Writable } from 'node:stream'
import type { AddressInfo } from 'node:net'
import { REPO, collectGarbage, goal, mb, printTable, proAccount, runJobToDone, runMain, startBenchApp, startRssSampler } from './harness.ts'

const FILE_MB = Number(process.env.BENCH_FILE_MB ?? 200)
const BYTES = FILE_MB * 1024 * 1024
const GOAL_MB = 150
const TOOLS = [{ key: 'files', plugin: join(REPO, 'test/fixtures/plugins/files'), enabled: true }]

/** A multipart body with a `bytes`-long file, generated as it is sent. */
function multipart (bytes: number): { body: Readable, type: string } {
  const boundary = '----bench-artifacts'
  async function * parts (): AsyncGenerator<Buffer> {
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="tool"\r\n\r\nfiles\r\n`)
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="params"\r\n\r\n{"files":0}\r\n`)
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`)
    const chunk = Buffer.alloc(64 * 1024, 7)
    for (let left = bytes; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left)
    yield Buffer.from(`\r\n--${boundary}--\r\n`)
  }
  return { body: Readable.from(parts()), type: `multipart/form-data; boundary=${boundary}` }
}

function upload (base: string, apiKey: string): Promise<{ status: number, body: string }> {
  const { body, type } = multipart(BYTES)
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/api/tool-run`, { method: 'POST', headers: { 'content-type': type, 'x-api-key': apiKey } }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (c: string) => { text += c }).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    body.pipe(req)
  })
}

const nowhere = () => new Writable({ write (_chunk, _enc, cb) { cb() } })

async function phase (name: string, work: () => Promise<void>): Promise<Array<string | number>> {
  collectGarbage()
  const baseline = process.memoryUsage.rss()
  const sampler = startRssSampler(50)
  const t0 = performance.now()
  await work()
  const seconds = (performance.now() - t0) / 1000
  const { peak, samples } = await sampler.stop()
  return [name, FILE_MB, seconds.toFixed(1), (FILE_MB / seconds).toFixed(0), mb(baseline), mb(peak), mb(Math.max(0, peak - baseline)), samples]
}

async function main (): Promise<void> {
  // Upload requests of 200 MB outlast the default 30 s request timeout on a slow disk.
  const bench = await startBenchApp(TOOLS, { REQUEST_TIMEOUT_MS: '600000' })
  try {
    const { app } = bench
    const apiKey = await proAccount(app)
    await app.listen({ host: '127.0.0.1', port: 0 })
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    // Warm-up: every route and the tool loaded before the first baseline.
    await runJobToDone(bench, apiKey, 'files', { files: 1, size: 1024 })
    const table: Array<Array<string | number>> = [['phase', 'MB', 'seconds', 'MB/s', 'baseline RSS MB', 'peak RSS MB', 'peak - baseline MB', 'samples']]

    table.push(await phase('upload (multipart tool-run, job run to done)', async () => {
      const res = await upload(base, apiKey)
      if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${res.body}`)
      const { job_id: jobId } = JSON.parse(res.body) as { job_id: string }
      await bench.finished(jobId)
    }))

    let url = ''
    table.push(await phase('artifact write (ctx.artifact from a stream)', async () => {
      const { jobId, status } = await runJobToDone(bench, apiKey, 'files', { files: 1, size: BYTES, body: 'stream', name: 'big.mp4', content_type: 'video/mp4' })
      if (status.status !== 'done') throw new Error(`artifact job ended ${status.status}: ${status.error}`)
      const list = await (await fetch(`${base}/api/tool-run/${jobId}/artifacts`, { headers: { 'x-api-key': apiKey } })).json() as { files: Array<{ url: string }> }
      url = list.files[0]!.url
    }))

    table.push(await phase('artifact download (GET, streamed)', async () => {
      const res = await fetch(`${base}${url}`, { headers: { 'x-api-key': apiKey } })
      if (res.status !== 200 || !res.body) throw new Error(`download answered ${res.status}`)
      await pipeline(Readable.fromWeb(res.body as never), nowhere())
    }))

    printTable(`job files of ${FILE_MB} MB through HTTP (RSS over the idle process)`, table)
    const worst = Math.max(...table.slice(1).map(r => Number(r[6])))
    goal(`peak RSS over idle < ${GOAL_MB} MB for each phase (worst ${worst.toFixed(1)} MB)`, worst < GOAL_MB)
  } finally {
    await bench.close()
  }
}

runMain(main)
