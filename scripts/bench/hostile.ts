// Hostile pages vs the API's responsiveness (issue 11): the event-loop delay of
// the API process (perf_hooks.monitorEventLoopDelay) and the latency of
// GET /api/health over HTTP, at idle and while four hostile jobs run at once:
//   1. webemail on a 1 MiB page of "1 1 1 …" (the phone-scanner flood),
//   2. websearch scraping a 5 MiB readable page (Readability),
//   3. websearch scraping a page of 20,000 nested <div>s,
//   4. webemail on a 2 MiB page of e-mail-like text.
// The health client runs in a worker thread, so its own timing does not wait on
// the event loop it measures. Goal: loop delay p99 < 50 ms and health p99 < 100 ms
// during the attack. A last table compares a small page scanned inline with the
// same scan through the pool (the round trip), which decided that nothing runs inline.
//
// The four jobs run at once, BENCH_ATTACK_ROUNDS times one round after the other
// (default 3), all in one measured window: one round lasts 2–4 s, ≈ 100 health
// samples, whose p99 is simply their worst one; three give the p99 a few
// samples above it and measure the same attack longer.
//
// The media attacks (when ffmpeg is installed) run next, one at a time, each in
// its own measured window: video_frames on a 64×384 upload scaled to the widest
// width the schema allows (BENCH_MEDIA_WIDTH, default 3840) as PNG, and on a
// 100 MB upload of noise. For each: the ffmpeg child's peak RSS (VmHWM of the
// bench's own children, read from /proc every 10 ms; goal < 512 MB), the job's
// scratch peak (its upload not counted; goal ≤ the tier's per-job file cap) and GET /api/health's p99
// (goal < 100 ms).
//
// Run: node --import tsx scripts/bench/hostile.ts
//      BENCH_IDLE_SECONDS=5 BENCH_HEALTH_INTERVAL_MS=20 EXTRACT_WORKERS=2 BENCH_JOBS=1,2,3,4 BENCH_ATTACK_ROUNDS=3
//      BENCH_MEDIA=0 (skip the media attacks; `only`: nothing else) BENCH_MEDIA_WIDTH=3840
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { pageScanner } from '../../plugins/lib/page-scanner.ts'
import { createExtraction } from '../../core/workers/extraction.ts'
import { goal, jobResults, jobStatus, mb, median, percentile, printTable, proAccount, REPO, runMain, startBenchApp, startJob } from './harness.ts'
import { tierLimits } from '../../core/quotas/tiers.ts'
import { multipartBody } from '../../test/artifacts/multipart.ts'

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 5)
const HEALTH_INTERVAL_MS = Number(process.env.BENCH_HEALTH_INTERVAL_MS ?? 20)
const WORKERS = process.env.EXTRACT_WORKERS ?? '2'
const ATTACK_ROUNDS = Number(process.env.BENCH_ATTACK_ROUNDS ?? 3)
const MEDIA = process.env.BENCH_MEDIA !== '0'
const MEDIA_WIDTH = Number(process.env.BENCH_MEDIA_WIDTH ?? 3840)

// ---------------------------------------------------------------- hostile site

function hostilePages (): Record<string, string> {
  const paragraph = `<p>${'The committee met on Tuesday to review the budget and the plans for the coming year. '.repeat(12)}</p>\n`
  const emailish = Array.from({ length: 2 * 1024 * 1024 / 24 }, (_, i) => `u${i}.x@d${i % 97}.co `).join('')
  return {
    '/small/': '<html><body><p>Call +1 212 555 0123 or write to office@example.com.</p></body></html>',
    '/flood/': `<html><head><title>Flood</title></head><body><p>${'1 '.repeat(512 * 1024)}</p></body></html>`,
    // Just under the scraper's 5 MiB read limit.
    '/big': `<html><head><title>Big</title></head><body><article><h1>Big</h1>${paragraph.repeat(Math.floor((5 * 1024 * 1024 - 200) / paragraph.length))}</article></body></html>`,
    '/nested': `<html><head><title>Nested</title></head><body>${'<div>'.repeat(20_000)}deep${'</div>'.repeat(20_000)}</body></html>`,
    '/emails/': `<html><head><title>Addresses</title></head><body><p>${emailish}</p></body></html>`,
  }
}

async function serveHostileSite (): Promise<{ base: string, close (): Promise<void> }> {
  const pages = hostilePages()
  const server = createServer((req, res) => {
    const body = pages[req.url ?? '']
    if (body === undefined) { res.writeHead(404).end(); return }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>(resolve => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

// ---------------------------------------------------------------- measuring

/** GET /api/health every `intervalMs` from a worker thread; latencies in ms. */
function startHealthProbe (url: string, intervalMs: number): { stop (): Promise<number[]> } {
  const worker = new Worker(`
    const { workerData, parentPort } = require('node:worker_threads')
    const latencies = []
    let stopped = false
    parentPort.on('message', () => { stopped = true })
    const tick = async () => {
      while (!stopped) {
        const t0 = performance.now()
        try { const res = await fetch(workerData.url); await res.arrayBuffer(); latencies.push(performance.now() - t0) } catch { latencies.push(-1) }
        await new Promise(r => setTimeout(r, workerData.intervalMs))
      }
      parentPort.postMessage(latencies)
    }
    tick()
  `, { eval: true, workerData: { url, intervalMs } })
  return {
    stop: () => new Promise<number[]>((resolve) => {
      worker.once('message', (latencies: number[]) => { void worker.terminate(); resolve(latencies) })
      worker.postMessage('stop')
    }),
  }
}

interface Window { loopP50: number, loopP99: number, loopMax: number, healthP50: number, healthP99: number, healthMax: number, healthFailed: number, samples: number, seconds: number }

async function measure (healthUrl: string, during: () => Promise<void>): Promise<Window> {
  const loop = monitorEventLoopDelay({ resolution: 10 })
  const probe = startHealthProbe(healthUrl, HEALTH_INTERVAL_MS)
  loop.enable()
  const t0 = performance.now()
  await during()
  const seconds = (performance.now() - t0) / 1000
  loop.disable()
  const latencies = await probe.stop()
  const ok = latencies.filter(l => l >= 0).sort((a, b) => a - b)
  return {
    loopP50: loop.percentile(50) / 1e6,
    loopP99: loop.percentile(99) / 1e6,
    loopMax: loop.max / 1e6,
    healthP50: percentile(ok, 50),
    healthP99: percentile(ok, 99),
    healthMax: ok[ok.length - 1] ?? NaN,
    healthFailed: latencies.length - ok.length,
    samples: latencies.length,
    seconds,
  }
}

const ms = (x: number) => Number.isFinite(x) ? x.toFixed(1) : 'n/a'

// ---------------------------------------------------------------- main

async function main (): Promise<void> {
  if (process.env.BENCH_MEDIA === 'only') return mediaAttacks()
  const site = await serveHostileSite()
  const bench = await startBenchApp([
    { key: 'webemail', plugin: 'webemail', enabled: true, settings: { concurrency: 4, page_timeout_ms: 60_000, default_phone_country: 'US' } },
    { key: 'websearch', plugin: 'websearch', enabled: true, settings: { concurrency: 2, max_text_chars: 100_000 } },
  ], { EXTRACT_WORKERS: WORKERS, LOG_LEVEL: 'error' })
  const { app } = bench
  await app.listen({ host: '127.0.0.1', port: 0 })
  const healthUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/health`
  const apiKey = await proAccount(app)

  // Warm-up outside the measured windows: crawlee loads on the first crawl (a synchronous
  // require of ≈ 100 MB of modules), the pool's workers start and load their modules.
  for (const [tool, params] of [['webemail', { website: `${site.base}/small/`, max_pages: 1 }], ['websearch', { urls: [`${site.base}/small/`] }]] as const) {
    await bench.finished(await startJob(app, apiKey, tool, params))
  }
  const scan = pageScanner(createExtraction(app.services.extraction, new AbortController().signal))
  await Promise.all([
    scan.contacts('<p>a@b.co +1 212 555 0123</p>', 'http://x/', { phones: true, socials: true }),
    scan.page('<article><p>warm</p></article>', 'http://x/'),
  ])

  const idle = await measure(healthUrl, () => new Promise(resolve => setTimeout(resolve, IDLE_SECONDS * 1000)))

  const jobs = [
    { name: 'webemail, 1 MiB phone flood', tool: 'webemail', params: { website: `${site.base}/flood/`, max_pages: 2 } },
    { name: 'websearch scrape, 5 MiB page', tool: 'websearch', params: { urls: [`${site.base}/big`] } },
    { name: 'websearch scrape, 20k nested divs', tool: 'websearch', params: { urls: [`${site.base}/nested`] } },
    { name: 'webemail, 2 MiB of e-mail-like text', tool: 'webemail', params: { website: `${site.base}/emails/`, max_pages: 2 } },
  ]
  // BENCH_JOBS=1,3 runs only those (1-based), to see which page costs what.
  const only = process.env.BENCH_JOBS?.split(',').map(Number)
  if (only) jobs.splice(0, jobs.length, ...jobs.filter((_, i) => only.includes(i + 1)))
  const outcomes: Array<{ name: string, jobId: string, seconds: number }> = []
  const attack = await measure(healthUrl, async () => {
    for (let round = 1; round <= ATTACK_ROUNDS; round++) {
      const t0 = performance.now()
      await Promise.all(jobs.map(async (job) => {
        const jobId = await startJob(app, apiKey, job.tool, job.params)
        const t1 = await bench.finished(jobId)
        outcomes.push({ name: ATTACK_ROUNDS > 1 ? `${job.name} (round ${round})` : job.name, jobId, seconds: (t1 - t0) / 1000 })
      }))
    }
  })

  printTable(`Event loop and GET /api/health (EXTRACT_WORKERS=${WORKERS}, health every ${HEALTH_INTERVAL_MS} ms from a worker thread)`, [
    ['window', 's', 'loop p50 ms', 'loop p99 ms', 'loop max ms', 'health n', 'health p50 ms', 'health p99 ms', 'health max ms', 'failed'],
    ...([['idle', idle], [ATTACK_ROUNDS > 1 ? `four hostile jobs × ${ATTACK_ROUNDS}` : 'four hostile jobs', attack]] as const).map(([name, w]) => [
      name, w.seconds.toFixed(1), ms(w.loopP50), ms(w.loopP99), ms(w.loopMax), w.samples, ms(w.healthP50), ms(w.healthP99), ms(w.healthMax), w.healthFailed,
    ]),
  ])

  const rows: Array<Array<string | number>> = [['job', 'status', 's', 'rows', 'row error / warning']]
  for (const outcome of outcomes) {
    const status = await jobStatus(app, apiKey, outcome.jobId)
    const results = await jobResults(app, apiKey, outcome.jobId)
    const note = results.map(r => r.error).find(Boolean) ?? status.warning ?? status.error ?? ''
    rows.push([outcome.name, status.status, outcome.seconds.toFixed(1), results.length, String(note).slice(0, 90)])
  }
  printTable('Hostile jobs', rows)

  // Inline vs pooled for an ordinary page (≈ 9 KB), to decide whether small inputs should skip the pool.
  const { pageContacts } = await import('../../plugins/lib/contacts.ts')
  const small = `<html><body><article>${'<p>Opening hours, directions and the team. Call +1 212 555 0123 or write to office@example.com.</p>'.repeat(80)}</article><a href="https://twitter.com/acme">x</a></body></html>`
  const options = { phones: true, socials: true, defaultCountry: 'US' }
  const inline: number[] = []
  const pooled: number[] = []
  for (let i = 0; i < 100; i++) {
    let t = performance.now(); await pageContacts(small, 'http://x/', options); inline.push(performance.now() - t)
    t = performance.now(); await scan.contacts(small, 'http://x/', options); pooled.push(performance.now() - t)
  }
  printTable(`A ${(small.length / 1024).toFixed(0)} KB page's contact scan, 100 times`, [
    ['where', 'median ms', 'p90 ms', 'event loop blocked'],
    ['inline (API thread)', ms(median(inline)), ms(percentile([...inline].sort((a, b) => a - b), 90)), 'the whole scan'],
    ['pool round trip', ms(median(pooled)), ms(percentile([...pooled].sort((a, b) => a - b), 90)), 'copying the page'],
  ])

  goal('loop delay p99 < 50 ms during the attack', attack.loopP99 < 50)
  goal('GET /api/health p99 < 100 ms during the attack', attack.healthP99 < 100 && attack.healthFailed === 0)
  await bench.close()
  await site.close()
  if (MEDIA && hasFfmpeg()) await mediaAttacks()
}

// ---------------------------------------------------------------- media attacks

function hasFfmpeg (): boolean {
  try { execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' }); return true } catch { return false }
}

/** The peak RSS (VmHWM, bytes) of this process's ffmpeg children, sampled every 10 ms; the wrapper programs exec into ffmpeg, so its pid is our child's. */
function startChildPeakSampler (): { stop (): number } {
  let peak = 0
  const sample = () => {
    for (const pid of readdirSync('/proc').filter(n => /^\d+$/.test(n))) {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8')
        if (!/^Name:\s+ffmpeg$/m.test(status) || !new RegExp(`^PPid:\\s+${process.pid}$`, 'm').test(status)) continue
        const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(status)
        if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024)
      } catch {}
    }
  }
  const timer = setInterval(sample, 10)
  return { stop () { clearInterval(timer); sample(); return peak } }
}

/** The largest total size the folder reached, sampled every 10 ms. */
function startFolderPeakSampler (folder: () => string | null): { stop (): number } {
  let peak = 0
  const size = (dir: string): number => {
    let total = 0
    for (const entry of (() => { try { return readdirSync(dir, { withFileTypes: true }) } catch { return [] } })()) {
      const path = join(dir, entry.name)
      try { total += entry.isDirectory() ? size(path) : statSync(path).size } catch {}
    }
    return total
  }
  const sample = () => { const dir = folder(); if (dir) peak = Math.max(peak, size(dir)) }
  const timer = setInterval(sample, 10)
  return { stop () { clearInterval(timer); return peak } }
}

async function mediaAttacks (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-media-'))
  const tall = join(dir, 'tall.mp4')
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=64x384:rate=5', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', tall])
  const tallBytes = readFileSync(tall)
  const noisy = join(dir, 'noisy.mp4')
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'nullsrc=size=640x360:rate=10:duration=10,geq=lum=random(1)*255:cb=128:cr=128', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-y', noisy])
  const noisyBytes = readFileSync(noisy)
  const bench = await startBenchApp([{ key: 'video_frames', plugin: join(REPO, 'plugins/video_frames'), enabled: true }], { LOG_LEVEL: 'error' })
  const { app } = bench
  await app.listen({ host: '127.0.0.1', port: 0 })
  const healthUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/health`
  const apiKey = await proAccount(app)
  const cap = tierLimits('pro').max_job_files_mb * 1024 * 1024
  const attacks = [
    { name: `${tallBytes.length} B 64×384 upload, PNG width ${MEDIA_WIDTH}`, params: { mode: 'interval', every_seconds: 0.2, max_frames: 10, format: 'png', width: MEDIA_WIDTH }, file: { name: 'tall.mp4', type: 'video/mp4', data: tallBytes } },
    { name: `${mb(noisyBytes.length)} MB 10 s noise video, 100 PNG frames at width ${MEDIA_WIDTH}`, params: { mode: 'interval', every_seconds: 0.1, max_frames: 100, format: 'png', width: MEDIA_WIDTH }, file: { name: 'noisy.mp4', type: 'video/mp4', data: noisyBytes } },
    {
      name: '100 MB noise upload',
      params: { max_frames: 50 },
      file: { name: 'noise.mp4', type: 'video/mp4', data: randomBytes(100 * 1024 * 1024) },
    },
  ]
  const rows: Array<Array<string | number>> = [['attack', 'answer', 'job', 'ffmpeg peak RSS MB', 'scratch peak MB', 'health p99 ms', 'health max ms', 'failed', 'message']]
  const verdicts: Array<{ rss: number, scratch: number, p99: number, failed: number }> = []
  for (const attack of attacks) {
    let jobId: string | null = null
    const rss = startChildPeakSampler()
    const scratch = startFolderPeakSampler(() => (jobId ? join(bench.dir, 'work', jobId, 'scratch') : null))
    let answer = 0
    let outcome = ''
    let message = ''
    const window = await measure(healthUrl, async () => {
      const { payload, headers } = multipartBody([['tool', 'video_frames'], ['params', JSON.stringify(attack.params)]], attack.file)
      const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { ...headers, 'x-api-key': apiKey }, payload })
      answer = res.statusCode
      if (res.statusCode !== 202) { message = res.json().detail ?? res.body; return }
      jobId = res.json().job_id as string
      await bench.finished(jobId)
    })
    const peak = rss.stop()
    const scratchPeak = scratch.stop()
    if (jobId) {
      const status = await jobStatus(app, apiKey, jobId)
      outcome = `${status.status}${status.refunded ? ', refunded' : ''}, ${(await jobResults(app, apiKey, jobId)).length} rows`
      message = status.error ?? status.warning ?? ''
    }
    rows.push([attack.name, answer, outcome, mb(peak), mb(scratchPeak), ms(window.healthP99), ms(window.healthMax), window.healthFailed, String(message).slice(0, 80)])
    verdicts.push({ rss: peak, scratch: scratchPeak, p99: window.healthP99, failed: window.healthFailed })
  }
  printTable(`Media attacks on video_frames (pro tier: per-job file cap ${mb(cap)} MB; health every ${HEALTH_INTERVAL_MS} ms)`, rows)
  goal('ffmpeg peak RSS < 512 MB in every media attack', verdicts.every(v => v.rss < 512 * 1024 * 1024))
  goal('scratch peak ≤ the tier\'s per-job file cap in every media attack', verdicts.every(v => v.scratch <= cap))
  goal('GET /api/health p99 < 100 ms during every media attack', verdicts.every(v => v.p99 < 100 && v.failed === 0))
  await bench.close()
  rmSync(dir, { recursive: true, force: true })
}

runMain(main)
