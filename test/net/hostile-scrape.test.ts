// websearch's URL scrape mode and products through the kernel against the
// hostile upstream (see fixtures/hostile-jobs.ts): each hostile page is its
// row's error, a store whose pages are hostile ends cleanly, memory stays
// bounded.
import t from 'tap'
import { signup } from '../helpers/build.ts'
import { URL_CREDENTIAL, startHostileUpstream } from '../fixtures/hostile/hostile-upstream.ts'
import { MB, assertNothingLeaks, hostileApp, runJob } from './fixtures/hostile-jobs.ts'
import { watchBufferPeak } from '../helpers/buffer-peak.ts'

t.test('websearch urls mode and products: row errors or clean job errors, nothing of the inside in any answer, bounded memory', async t => {
  const site = await startHostileUpstream(t)
  const app = await hostileApp(t, site)
  const user = await signup(app)
  // Loads the scraper and the extraction libraries before the baseline: they are not what is measured.
  const warm = await runJob(app, user, 'websearch', { urls: [`${site.origin}/contact`] })
  t.match(warm.status, { status: 'done' })
  const buffers = watchBufferPeak()

  // /nested and /phone-flood are extraction CPU cases (the worker pool's tests), not fetch ones.
  const urls = ['/gzip-bomb', '/deflate-bomb', '/brotli-bomb', '/big-page', '/big-page-chunked', '/redirect-inside', '/redirect-metadata', '/reset', '/contact']
    .map(path => `${site.origin}${path}`)
  const scrape = await runJob(app, user, 'websearch', { urls: [...urls, `${site.httpsOrigin}/contact`, `http://${URL_CREDENTIAL}@127.0.0.1:${site.port}/fail-with-credential`] })
  assertNothingLeaks(t, site, scrape, 'websearch urls')
  t.match(scrape.status, { status: 'done' })
  const byUrl = new Map(scrape.rows.map(row => [new URL(row.url).pathname + (row.url.startsWith('https') ? ' https' : ''), row]))
  for (const path of ['/gzip-bomb', '/deflate-bomb', '/brotli-bomb', '/big-page', '/big-page-chunked']) {
    t.match(byUrl.get(path), { text: null, error: /larger than the \d+-byte limit/ }, `websearch ${path}`)
  }
  t.match(byUrl.get('/redirect-inside'), { error: /Refused to connect/ })
  t.match(byUrl.get('/contact'), { error: null })
  t.match(byUrl.get('/contact https'), { error: /TLS certificate not valid/ })

  const products = await runJob(app, user, 'products', { url: site.origin, max_results: 10 })
  assertNothingLeaks(t, site, products, 'products')
  const bombStore = await runJob(app, user, 'products', { url: `${site.origin}/gzip-bomb`, max_results: 10 })
  assertNothingLeaks(t, site, bombStore, 'products from a bomb')

  const growth = buffers.stop()
  t.ok(growth < 100 * MB, `Buffer memory peaked ${Math.round(growth / MB)} MB above the start over the hostile jobs`)
  t.same(site.inside.hits, [], 'the inside was never reached')
})
