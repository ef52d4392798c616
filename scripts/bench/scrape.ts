// Benchmark (issue 5): pages/s of `scrape_web_pages` (the websearch tool with
// `urls`) over 200 local article pages, against a bare Crawlee + cheerio run
// over the same pages in the same run.
//
// - Pages: scripts/bench/fixtures/bench-site.ts `/article/<n>` (~9 KB each),
//   node:http on 127.0.0.1.
// - Tool: buildApp + inject, ALLOW_PRIVATE_TARGETS=1, a temp tools config
//   enabling only websearch with settings { concurrency: N }; a Pro
//   account (the registered cap of 200 rows would also fit 200 URLs, Pro is
//   used for headroom). Timed from before POST /api/tool-run to the runner's
//   final event; every row must have status 200 and text.
// - bare: CheerioCrawler, in-memory Configuration (persistStorage: false, a
//   fresh MemoryStorage per run), minConcurrency = maxConcurrency = N (the tool
//   runs a fixed pool of N fetches, so the baseline gets a fixed pool too),
//   handler reads title, meta description and h1-h3 with cheerio and the
//   body text (cheap, no Readability). A second reference runs the kernel's
//   extractPage (plugins/lib/page.ts, the tool's extractor) in the same bare
//   crawler, to split fetch path from extraction cost.
// Rounds alternate the order; figures are medians.
// Run: node --import tsx scripts/bench/scrape.ts   (BENCH_CONCURRENCY, BENCH_ROUNDS, BENCH_URLS to tune)
// Goal: tool >= 0.85 × bare. Exits non-zero only on errors, never on the goal.
import { CheerioCrawler, Configuration, Log, LogLevel, MemoryStorage } from 'crawlee'
import * as extract from '../../plugins/lib/scanners.ts'
import { startBenchSite } from './fixtures/bench-site.ts'
import { goal, jobResults, median, printTable, proAccount, ratioText, runJobToDone, runMain, startBenchApp, type BenchApp } from './harness.ts'

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const URLS = Number(process.env.BENCH_URLS ?? 200)

async function bareScrape (urls: string[], readability: boolean): Promise<{ pages: number, ms: number }> {
  const t0 = performance.now()
  let pages = 0
  const config = new Configuration({ persistStorage: false, storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }) })
  const crawler = new CheerioCrawler({
    log: new Log({ level: LogLevel.OFF }),
    minConcurrency: CONCURRENCY,
    maxConcurrency: CONCURRENCY,
    maxRequestRetries: 0,
    async requestHandler ({ request, $, body }) {
      if (readability) {
        const page = extract.extractPage(typeof body === 'string' ? body : body.toString('utf8'), request.loadedUrl ?? request.url)
        if (!page.text) throw new Error('no text')
      } else {
        const row = {
          title: $('title').text(),
          meta: $('meta[name="description"]').attr('content') ?? null,
          headings: { h1: $('h1').map((_, e) => $(e).text()).get(), h2: $('h2').map((_, e) => $(e).text()).get(), h3: $('h3').map((_, e) => $(e).text()).get() },
          text: $('body').text().replace(/\s+/g, ' ').trim(),
        }
        if (!row.text) throw new Error('no text')
      }
      pages++
    },
  }, config)
  await crawler.run(urls)
  return { pages, ms: performance.now() - t0 }
}

async function toolScrape (bench: BenchApp, apiKey: string, urls: string[]): Promise<{ pages: number, ms: number }> {
  const { jobId, ms } = await runJobToDone(bench, apiKey, 'websearch', { urls })
  const rows = await jobResults(bench.app, apiKey, jobId, 1000)
  const good = rows.filter(r => r.status === 200 && typeof r.text === 'string' && r.text.length > 0 && !r.error).length
  if (good !== urls.length) throw new Error(`scrape_web_pages read ${good} of ${urls.length} pages`)
  return { pages: good, ms }
}

async function main (): Promise<void> {
  const site = await startBenchSite({ pages: 4, articles: URLS })
  const bench = await startBenchApp([{ key: 'websearch', plugin: 'websearch', enabled: true, settings: { concurrency: CONCURRENCY, max_text_chars: 100_000 } }])
  try {
    const apiKey = await proAccount(bench.app)
    const urls = site.articleUrls
    // Warm-up.
    await bareScrape(urls, false)
    await toolScrape(bench, apiKey, urls)

    const runs: Record<'bare' | 'bareExtract' | 'tool', Array<{ pages: number, ms: number }>> = { bare: [], bareExtract: [], tool: [] }
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<keyof typeof runs> = round % 2 === 0 ? ['bare', 'tool', 'bareExtract'] : ['tool', 'bareExtract', 'bare']
      for (const name of order) {
        runs[name].push(name === 'tool' ? await toolScrape(bench, apiKey, urls) : await bareScrape(urls, name === 'bareExtract'))
      }
      console.log(`round ${round + 1}: ${order.map(n => `${n} ${(runs[n][runs[n].length - 1]!.ms / 1000).toFixed(2)} s`).join(', ')}`)
    }
    const rate = (xs: Array<{ pages: number, ms: number }>) => median(xs.map(r => r.pages / (r.ms / 1000)))
    const bareRate = rate(runs.bare)
    const ratio = rate(runs.tool) / bareRate
    const line = (name: string, xs: Array<{ pages: number, ms: number }>) => [name, xs[0]!.pages, median(xs.map(r => r.ms / 1000)).toFixed(2), rate(xs).toFixed(0), ratioText(rate(xs) / bareRate)]
    printTable(`scrape: ${URLS} local article pages, concurrency ${CONCURRENCY}, ${ROUNDS} rounds (median)`, [
      ['run', 'pages', 'median s', 'pages/s', 'ratio to bare'],
      line('bare Crawlee + cheerio (title, meta, headings, body text)', runs.bare),
      line('scrape_web_pages job (inject, POST .. done)', runs.tool),
      line('reference: bare Crawlee + kernel extractPage (Readability)', runs.bareExtract),
    ])
    goal(`scrape_web_pages at least 0.85 of bare Crawlee + cheerio (${ratioText(ratio)})`, ratio >= 0.85)
  } finally {
    await bench.close()
    await site.close()
  }
}

runMain(main)
