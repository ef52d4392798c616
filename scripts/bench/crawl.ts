// Benchmark (issue 3): pages/s of a full `webemail` job against a bare Crawlee
// CheerioCrawler over the same 500-page local site, same concurrency, same run.
//
// - Site: scripts/bench/fixtures/bench-site.ts (node:http on 127.0.0.1, 500
//   generated pages with links, some addresses and phones, social footers).
// - webemail: buildApp + inject, ALLOW_PRIVATE_TARGETS=1, a temp tools config
//   enabling only webemail with settings { concurrency: N }, input
//   { website: <site>/, max_pages: 500 }. max_pages is clamped to the plan's
//   per-run ceiling (registered: 200), so the account signs up and claims Pro
//   (POST /api/auth/claim-pro: 1,000). Timed from before POST /api/tool-run
//   to the runner's final event; pages = the row's pages_scanned.
// - bare: CheerioCrawler with its own in-memory Configuration
//   (persistStorage: false, a fresh MemoryStorage per run), the same crawler
//   options webemail passes (maxConcurrency N, maxRequestsPerCrawl 500, one
//   retry, same timeouts, no minConcurrency), a handler that collects same-host
//   links with cheerio and enqueues them. Timed around construction + run().
// Rounds alternate the order (bare first, then webemail first, …); the
// figures are medians, each run with this process's CPU time per page (all
// threads) and the load average, the measure that survives a shared machine.
// A profile section then times the per-page work webemail adds (the plugin
// library's scanners over the same 500 pages, in this process) and a webemail
// run with phones and socials off. BENCH_TIMELINE=1 adds one more run of each
// with crawl-timeline.ts's probes: where each crawler's slot time goes.
// Run: node --import tsx scripts/bench/crawl.ts   (BENCH_CONCURRENCY, BENCH_ROUNDS, BENCH_PAGES, BENCH_TIMELINE to tune)
// Goal: webemail >= 1.2 × bare (issue 17; extraction in worker threads can beat a single-threaded crawler). Exits non-zero only on errors, never on the goal.
import { CheerioCrawler, Configuration, Log, LogLevel, MemoryStorage } from 'crawlee'
import { load } from 'cheerio'
import { loadavg } from 'node:os'
import * as extract from '../../plugins/lib/scanners.ts'
import { startBenchSite } from './fixtures/bench-site.ts'
import { installCrawlTimeline } from './crawl-timeline.ts'
import { goal, jobResults, median, printTable, proAccount, ratioText, runJobToDone, runMain, startBenchApp, type BenchApp } from './harness.ts'

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const PAGES = Number(process.env.BENCH_PAGES ?? 500)

async function bareCrawl (start: string): Promise<{ pages: number, ms: number }> {
  const t0 = performance.now()
  const host = new URL(start).host
  const seen = new Set<string>()
  let pages = 0
  const config = new Configuration({ persistStorage: false, storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }) })
  const crawler: CheerioCrawler = new CheerioCrawler({
    log: new Log({ level: process.env.BENCH_CRAWLEE_LOG ? LogLevel.DEBUG : LogLevel.OFF }),
    maxRequestsPerCrawl: PAGES,
    maxConcurrency: CONCURRENCY,
    maxRequestRetries: 1,
    navigationTimeoutSecs: 15,
    requestHandlerTimeoutSecs: 30,
    async requestHandler ({ request, $ }) {
      const loaded = request.loadedUrl ?? request.url
      if (seen.has(loaded)) return
      seen.add(loaded)
      pages++
      const links: string[] = []
      $('a[href]').each((_, el) => {
        const href = $(el).attr('href')
        if (!href || /^(mailto|tel|javascript):/i.test(href)) return
        try {
          const u = new URL(href, loaded)
          u.hash = ''
          if (u.host === host && !seen.has(u.href)) links.push(u.href)
        } catch {}
      })
      if (links.length) await crawler.addRequests(links.map(url => ({ url })))
    },
  }, config)
  await crawler.addRequests([start])
  await crawler.run()
  return { pages, ms: performance.now() - t0 }
}

type Measured<T> = T & { cpuMs: number, load: number }

/**
 * The run with the CPU time this process spent meanwhile (all its threads: the
 * crawler, the extraction workers, and the local site, which both crawlers pay
 * alike) and the 1-minute load average at its end: on a shared machine the wall
 * time says mostly how much CPU the neighbours left, the CPU per page does not.
 */
async function measured<T extends { pages: number }> (run: () => Promise<T>): Promise<Measured<T>> {
  const cpu0 = process.cpuUsage()
  const result = await run()
  const cpu = process.cpuUsage(cpu0)
  return { ...result, cpuMs: (cpu.user + cpu.system) / 1000, load: loadavg()[0]! }
}

async function webemailCrawl (bench: BenchApp, apiKey: string, start: string, extra: Record<string, unknown> = {}): Promise<{ pages: number, ms: number, emails: number, phones: number }> {
  const { jobId, ms } = await runJobToDone(bench, apiKey, 'webemail', { website: start, max_pages: PAGES, ...extra })
  const [row] = await jobResults(bench.app, apiKey, jobId)
  if (!row) throw new Error('webemail returned no row')
  return { pages: row.pages_scanned, ms, emails: row.count, phones: row.phones.length }
}

/** Time per page of the work webemail does on top of a bare crawler, over the same HTML, in this process. */
async function profileExtraction (base: string, paths: string[]): Promise<Array<Array<string | number>>> {
  const htmls = await Promise.all(paths.map(async p => ({ url: base + p, html: await (await fetch(base + p)).text() })))
  const time = (fn: (h: { url: string, html: string }) => unknown) => {
    for (const h of htmls.slice(0, 50)) fn(h)
    const t0 = performance.now()
    for (const h of htmls) fn(h)
    return (performance.now() - t0) / htmls.length
  }
  const rows: Array<[string, number]> = [
    ['cheerio load + link collection (bare crawler work)', time(h => { const $ = load(h.html); $('a[href]').each((_, el) => { $(el).attr('href') }) })],
    ['extract.findEmails', time(h => extract.findEmails(h.html, h.url))],
    ['extract.findPhones (default country US)', time(h => extract.findPhones(h.html, { defaultCountry: 'US' }))],
    ['extract.findSocialLinks', time(h => extract.findSocialLinks(h.html, h.url))],
    ['extract.pageContacts: what webemail runs per page in a worker (one parse, all four)', time(h => extract.pageContacts(h.html, h.url, { phones: true, socials: true, defaultCountry: 'US' }))],
  ]
  return rows.map(([name, ms]) => [name, ms.toFixed(3), (1000 / ms).toFixed(0)])
}

async function main (): Promise<void> {
  const site = await startBenchSite({ pages: PAGES, articles: 0 })
  const bench = await startBenchApp([{ key: 'webemail', plugin: 'webemail', enabled: true, settings: { concurrency: CONCURRENCY, page_timeout_ms: 15_000, default_phone_country: 'US' } }])
  let failed = false
  try {
    const apiKey = await proAccount(bench.app)
    const start = `${site.base}/`
    // Warm-up: JIT, crawlee's modules and the kernel's first job.
    const w1 = await bareCrawl(start)
    const w2 = await webemailCrawl(bench, apiKey, start)
    console.log(`warm-up: bare ${w1.pages} pages in ${(w1.ms / 1000).toFixed(2)} s, webemail ${w2.pages} pages in ${(w2.ms / 1000).toFixed(2)} s`)

    const bare: Array<Measured<{ pages: number, ms: number }>> = []
    const job: Array<Measured<{ pages: number, ms: number, emails: number, phones: number }>> = []
    const perPage = (r: Measured<{ pages: number }>) => r.cpuMs / r.pages
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) { bare.push(await measured(() => bareCrawl(start))); job.push(await measured(() => webemailCrawl(bench, apiKey, start))) } else { job.push(await measured(() => webemailCrawl(bench, apiKey, start))); bare.push(await measured(() => bareCrawl(start))) }
      const b = bare[bare.length - 1]!
      const j = job[job.length - 1]!
      console.log(`round ${round + 1}: bare ${b.pages} pages in ${(b.ms / 1000).toFixed(2)} s (CPU ${perPage(b).toFixed(2)} ms/page, load ${b.load.toFixed(1)}), webemail ${j.pages} pages in ${(j.ms / 1000).toFixed(2)} s (CPU ${perPage(j).toFixed(2)} ms/page, load ${j.load.toFixed(1)}; ${j.emails} addresses, ${j.phones} phones)`)
    }
    for (const r of [...bare, ...job]) if (r.pages !== PAGES) { failed = true; console.error(`a run scanned ${r.pages} pages, expected ${PAGES}`) }
    const noExtras = await measured(() => webemailCrawl(bench, apiKey, start, { include_phones: false, include_socials: false }))

    const bareRate = median(bare.map(r => r.pages / (r.ms / 1000)))
    const jobRate = median(job.map(r => r.pages / (r.ms / 1000)))
    const ratio = jobRate / bareRate
    printTable(`crawl: ${PAGES}-page local site, concurrency ${CONCURRENCY}, ${ROUNDS} rounds (median)`, [
      ['run', 'pages', 'median s', 'pages/s', 'ratio to bare', 'CPU ms/page (all threads)'],
      ['bare CheerioCrawler (in-memory Configuration)', PAGES, median(bare.map(r => r.ms / 1000)).toFixed(2), bareRate.toFixed(0), '1.00', median(bare.map(perPage)).toFixed(2)],
      ['webemail job (inject, POST .. done)', PAGES, median(job.map(r => r.ms / 1000)).toFixed(2), jobRate.toFixed(0), ratioText(ratio), median(job.map(perPage)).toFixed(2)],
      ['webemail, include_phones/socials false (1 run)', noExtras.pages, (noExtras.ms / 1000).toFixed(2), (noExtras.pages / (noExtras.ms / 1000)).toFixed(0), ratioText(noExtras.pages / (noExtras.ms / 1000) / bareRate), perPage(noExtras).toFixed(2)],
    ])
    console.log(`load average (1 min) during the rounds: ${Math.min(...[...bare, ...job].map(r => r.load)).toFixed(1)}–${Math.max(...[...bare, ...job].map(r => r.load)).toFixed(1)}`)
    if (process.env.BENCH_TIMELINE) {
      // Installed only now: the rounds above ran without the probes.
      const timeline = installCrawlTimeline()
      for (const [name, crawl] of [['bare CheerioCrawler', () => bareCrawl(start)], ['webemail job', () => webemailCrawl(bench, apiKey, start)]] as const) {
        const window = timeline.start()
        const r = await crawl()
        printTable(`timeline: ${name}, ${r.pages} pages in ${(r.ms / 1000).toFixed(2)} s (load average ${loadavg()[0]!.toFixed(1)})`, window.stop())
      }
    }
    printTable('profile: per-page cost over the same 500 pages (single thread, this process)', [
      ['work', 'ms/page', 'pages/s alone'],
      ...await profileExtraction(site.base, site.crawlPaths),
    ])
    goal(`webemail at least 1.2 of the bare crawler (${ratioText(ratio)}; issue 17, was 0.9)`, ratio >= 1.2)
  } finally {
    await bench.close()
    await site.close()
  }
  if (failed) process.exitCode = 1
}

runMain(main)
