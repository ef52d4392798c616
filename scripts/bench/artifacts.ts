// Benchmark (issue 13): peak RSS of job files moving through the real HTTP
// server, against the idle process: a 200 MB upload (multipart POST
// /api/tool-run, streamed to disk), a 200 MB artifact written by a tool from
// a stream (ctx.artifact), that artifact downloaded back (GET, streamed to
// nowhere), and a 200 MB video downloaded by yt-dlp and stored as an artifact
// (dl_fb download: true: yt-dlp's generic extractor on a local page, the file
// through the egress proxy, yt-dlp's stdout piped into ctx.artifact). The
// test-only `files` tool (test/fixtures/plugins/files) reads the upload and
// writes the generated file. The yt-dlp phase is skipped without yt-dlp.
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
import { execFileSync } from 'node:child_process'
import { REPO, collectGarbage, goal, mb, printTable, proAccount, runJobToDone, runMain, startBenchApp, startRssSampler } from './harness.ts'

const FILE_MB = Number(process.env.BENCH_FILE_MB ?? 200)
const BYTES = FILE_MB * 1024 * 1024
const GOAL_MB = 150
const TOOLS = [
  { key: 'files', plugin: join(REPO, 'test/fixtures/plugins/files'), enabled: true },
  { key: 'dl_fb', plugin: join(REPO, 'plugins/dl_fb'), enabled: true, settings: { timeout_ms: 1_800_000 } },
]

const hasYtdlp = (): boolean => {
  try { execFileSync('sh', ['-c', 'command -v yt-dlp'], { stdio: 'ignore' }); return true } catch { return false }
}

/**
 * The video's site: a page with og:video, and the video itself, `bytes` long,
 * generated as it is sent (the fixture holds no copy). The name is a platform's
 * (dl_fb takes Facebook links), resolved to 127.0.0.1 by the app's injected
 * resolver; the port keeps yt-dlp on its generic extractor.
 */
async function videoSite (bytes: number): Promise<{ page: string, host: string, close (): void }> {
  const chunk = Buffer.alloc(256 * 1024, 0x42)
  const server = http.createServer((req, res) => {
    if (req.url === '/page.html') {
      res.setHeader('content-type', 'text/html')
      res.end('<!doctype html><html><head><title>Big clip</title><meta property="og:title" content="Big clip"><meta property="og:video" content="/big.mp4"><meta property="og:video:type" content="video/mp4"></head><body><video src="/big.mp4"></video></body></html>')
      return
    }
    if (req.url === '/big.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes, 'accept-ranges': 'none' })
      if (req.method === 'HEAD') { res.end(); return }
      void pipeline(Readable.from((function * () { for (let left = bytes; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left) })()), res).catch(() => {})
      return
    }
    res.statusCode = 404
    res.end()
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return { page: `http://www.facebook.com:${port}/page.html`, host: 'www.facebook.com', close: () => { server.closeAllConnections(); server.close() } }
}

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
  const site = await videoSite(BYTES)
  // Upload requests of 200 MB outlast the default 30 s request timeout on a slow disk.
  const bench = await startBenchApp(TOOLS, { REQUEST_TIMEOUT_MS: '600000', JOB_TIMEOUT_SECONDS: '3600' }, {
    network: { lookup: async (name: string) => (name === site.host ? [{ address: '127.0.0.1', family: 4 }] : []) },
  })
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

    if (hasYtdlp()) {
      table.push(await phase('yt-dlp download stored as an artifact (dl_fb download: true, via the egress proxy)', async () => {
        const { jobId, status } = await runJobToDone(bench, apiKey, 'dl_fb', { url: site.page, download: true })
        if (status.status !== 'done') throw new Error(`dl_fb ended ${status.status}: ${status.error}`)
        const list = await (await fetch(`${base}/api/tool-run/${jobId}/artifacts`, { headers: { 'x-api-key': apiKey } })).json() as { files: Array<{ size: number }> }
        if (list.files[0]?.size !== BYTES) throw new Error(`stored ${list.files[0]?.size} bytes, not ${BYTES}`)
      }))
    } else {
      console.log('yt-dlp is not installed: the yt-dlp download phase is skipped')
    }

    printTable(`job files of ${FILE_MB} MB through HTTP (RSS over the idle process)`, table)
    const worst = Math.max(...table.slice(1).map(r => Number(r[6])))
    goal(`peak RSS over idle < ${GOAL_MB} MB for each phase (worst ${worst.toFixed(1)} MB)`, worst < GOAL_MB)
  } finally {
    await bench.close()
    site.close()
  }
}

runMain(main)
