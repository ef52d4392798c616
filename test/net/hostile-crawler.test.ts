// ctx.crawler against the hostile upstream (test/fixtures/hostile): a page
// past the decoded-byte cap fails alone (not retried) while the crawl goes
// on, TLS is verified, no ALPN probe outside the pinned lookup, rebound names
// and inward redirects refused, and failures that name no inside address.
import t from 'tap'
import { LogLevel } from 'crawlee'
import { createCrawlerFactory, type CrawlerFactoryOptions } from '../../core/net/crawler-factory.ts'
import { createNetworkPolicy } from '../../core/net/network-policy.ts'
import { rebindingLookup, startHostileUpstream, tableLookup } from '../fixtures/hostile/hostile-upstream.ts'
import { watchBufferPeak } from '../helpers/buffer-peak.ts'
import { pooledExtraction } from './fixtures/pooled-extraction.ts'

const CAP = 5 * 1024 * 1024
const MB = 1024 * 1024
// enqueueLinks() reads the links in the extraction pool, as in the app.
const extract = pooledExtraction(t)

function factory (options: Partial<CrawlerFactoryOptions> & { allowPrivateTargets?: boolean, allowedTargets?: string[] } = {}) {
  const { allowPrivateTargets = false, allowedTargets, ...rest } = options
  return createCrawlerFactory({
    policy: createNetworkPolicy({ allowPrivateTargets, allowedTargets }),
    userAgent: 'hostile-test/1.0',
    signal: new AbortController().signal,
    extract,
    logLevel: LogLevel.OFF,
    maxResponseBytes: CAP,
    ...rest,
  })
}

interface Outcome { handled: string[], failures: Map<string, { message: string, retries: number }> }

/** Crawls from `start`, following every same-origin link, and records each page's outcome by path. */
async function crawl (crawlerFactory: ReturnType<typeof factory>, start: string[], options: { follow?: boolean } = {}): Promise<Outcome> {
  const outcome: Outcome = { handled: [], failures: new Map() }
  const crawler = crawlerFactory.http({
    maxRequestRetries: 2,
    navigationTimeoutSecs: 10,
    async requestHandler ({ request, enqueueLinks }) {
      outcome.handled.push(new URL(request.loadedUrl ?? request.url).pathname)
      if (options.follow) await enqueueLinks({ strategy: 'same-origin' })
    },
    async failedRequestHandler ({ request }, error) {
      outcome.failures.set(new URL(request.url).pathname, { message: error.message, retries: request.retryCount })
    },
  })
  await crawler.run(start)
  return outcome
}

t.test('a crawl through bombs, huge pages and inward redirects: each fails alone, the crawl goes on, memory stays bounded', async t => {
  const site = await startHostileUpstream(t)
  // The hostile site looks public: its exact address:port is excepted, nothing else on loopback.
  const crawlers = factory({ allowedTargets: [`127.0.0.1:${site.port}`] })
  const buffers = watchBufferPeak()
  const outcome = await crawl(crawlers, [`${site.origin}/`], { follow: true })
  const growth = buffers.stop()

  t.ok(outcome.handled.includes('/'), 'the start page was read')
  t.ok(outcome.handled.includes('/contact'), 'a good page after the bombs was read')
  for (const path of ['/gzip-bomb', '/deflate-bomb', '/brotli-bomb', '/big-page-chunked']) {
    t.match(outcome.failures.get(path), { message: `The page ${site.origin}${path} is larger than the ${CAP}-byte limit`, retries: 0 }, path)
  }
  t.match(outcome.failures.get('/big-page'), { message: `is 50000000 bytes, larger than the ${CAP}-byte limit`, retries: 0 }, 'declared size refused unread')
  t.match(outcome.failures.get('/redirect-inside'), { message: /^Refused to connect to an IP address: loopback/, retries: 0 })
  t.match(outcome.failures.get('/redirect-metadata'), { message: /cloud metadata/, retries: 0 })
  t.ok(outcome.failures.has('/reset'), 'a reset connection is that page\'s failure')
  const texts = [...outcome.failures.values()].map(f => f.message).join('\n')
  t.notMatch(texts, /127\.0\.0\.2|169\.254|ECONN/, 'no inside address or library code in any failure')
  t.notMatch(texts, String(site.inside.port))
  t.same(site.inside.hits, [], 'the inside was never reached')
  t.ok(growth < 100 * MB, `Buffer memory peaked ${Math.round(growth / MB)} MB above the start over three 256 MiB bombs and two 50 MB pages`)
})

t.test('the cap is the factory\'s setting', async t => {
  const site = await startHostileUpstream(t)
  const outcome = await crawl(factory({ allowPrivateTargets: true, maxResponseBytes: 64 * 1024 }), [`${site.origin}/nested`, `${site.origin}/contact`])
  t.match(outcome.failures.get('/nested'), { message: /larger than the 65536-byte limit/, retries: 0 })
  t.same(outcome.handled, ['/contact'])
})

t.test('a self-signed certificate fails the page, once, and no protocol probe opens a second connection', async t => {
  const site = await startHostileUpstream(t)
  const outcome = await crawl(factory({ allowPrivateTargets: true }), [`${site.httpsOrigin}/contact`])
  t.match(outcome.failures.get('/contact'), { message: /TLS certificate not valid for this host/, retries: 0 })
  t.same(outcome.handled, [])
  t.same(site.hits, [], 'no request was sent over the untrusted connection')
  t.equal(site.httpsConnections(), 1, 'one connection: the request\'s own, no ALPN probe beside it')
})

t.test('https to a name only the guard\'s lookup knows: the connection goes to the vetted address, not the system resolver\'s', async t => {
  const site = await startHostileUpstream(t)
  const lookup = rebindingLookup('rebind.hostile.test', '127.0.0.1', '127.0.0.2')
  const outcome = await crawl(factory({ allowedTargets: [`127.0.0.1:${site.httpsPort}`], lookup }), [`https://rebind.hostile.test:${site.httpsPort}/contact`])
  // The handshake reached the hostile server (whose certificate is then refused): a probe
  // through the system resolver would have failed on the made-up name instead.
  t.match(outcome.failures.get('/contact'), { message: /TLS certificate not valid for this host/ })
  t.equal(site.httpsConnections(), 1)
  t.same(lookup.calls, ['rebind.hostile.test'], 'looked up once')
  t.same(site.inside.hits, [], 'the rebound address was never reached')
})

t.test('http to a rebinding name: pages after the rebind are refused, the inside never reached', async t => {
  const site = await startHostileUpstream(t)
  const lookup = rebindingLookup('rebind.hostile.test', '127.0.0.1', '127.0.0.2')
  const outcome = await crawl(factory({ allowedTargets: [`127.0.0.1:${site.port}`], lookup }), [`http://rebind.hostile.test:${site.port}/`], { follow: true })
  t.same(outcome.handled, ['/'], 'the first answer was used for the start page')
  t.ok(outcome.failures.size > 0)
  for (const [path, failure] of outcome.failures) {
    t.match(failure, { message: /^Refused to connect to rebind\.hostile\.test: loopback/, retries: 0 }, path)
  }
  t.same(site.inside.hits, [])
})

t.test('a closed port on an allowed host reads "could not connect"; context.sendRequest is refused', async t => {
  const site = await startHostileUpstream(t)
  const lookup = tableLookup({ 'closed.hostile.test': ['127.0.0.1'] })
  const closed = await crawl(factory({ allowedTargets: [`127.0.0.1:${site.closedPort}`], lookup }), [`http://closed.hostile.test:${site.closedPort}/`])
  t.match(closed.failures.get('/'), { message: `Could not load http://closed.hostile.test:${site.closedPort}/: could not connect` })

  let sendError = ''
  const crawler = factory({ allowPrivateTargets: true }).http({
    async requestHandler ({ sendRequest }) {
      await sendRequest({ url: `${site.inside.origin}/secret` }).catch((err: Error) => { sendError = err.message })
    },
  })
  await crawler.run([`${site.origin}/contact`])
  t.match(sendError, /sendRequest\(\) is not available/)
  t.same(site.inside.hits, [])
})
