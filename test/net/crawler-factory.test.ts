// Crawlers from the factory against local sites: in-memory storage per
// crawler, the guard before each request and on redirects, the job signal,
// links read in the extraction pool, no system-info polling, crawlee's log
// lines into pino.
import t from 'tap'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer, request as httpRequest } from 'node:http'
import { connect as netConnect, type AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { LocalEventManager, LogLevel } from 'crawlee'
import { createCrawlerFactory, type CrawlerFactoryOptions } from '../../core/net/crawler-factory.ts'
import { createNetworkPolicy } from '../../core/net/network-policy.ts'
import { createLogger } from '../../core/logger.ts'
import { SecretScrubber } from '../../core/secrets/secret-scrubber.ts'
import { localServer } from './fixtures/local-server.ts'
import { pooledExtraction } from './fixtures/pooled-extraction.ts'
import { proxyPoolOf } from '../helpers/proxy-pool.ts'

const USER_AGENT = 'extraction-jobs-test/1.0'
// enqueueLinks() reads the links in the extraction pool, as in the app.
const extract = pooledExtraction(t)

function factory (options: Partial<CrawlerFactoryOptions> & { allowPrivateTargets?: boolean, allowedTargets?: string[] } = {}) {
  const { allowPrivateTargets = true, allowedTargets, ...rest } = options
  return createCrawlerFactory({
    policy: createNetworkPolicy({ allowPrivateTargets, allowedTargets }),
    userAgent: USER_AGENT,
    signal: new AbortController().signal,
    extract,
    logLevel: LogLevel.OFF, // the refusals below would log as errors
    ...rest,
  })
}

/** The page's <title>, read with a regular expression: the handler gets bytes, not a DOM. */
const titleOf = (body: string | Buffer) => /<title>([^<]*)<\/title>/.exec(String(body))?.[1] ?? ''

/** A small site: / links to /a and /b, /b links to /c; each page's title is its path. */
function smallSite (userAgents: string[] = []) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    userAgents.push(String(req.headers['user-agent']))
    const links: Record<string, string[]> = { '/': ['/a', '/b'], '/a': [], '/b': ['/c', 'http://elsewhere.example/'], '/c': ['/'] }
    const path = req.url ?? '/'
    if (!(path in links)) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(`<html><head><title>page ${path}</title></head><body>${links[path].map(href => `<a href="${href}">${href}</a>`).join('')}</body></html>`)
  }
}

t.test('crawls a small local site with the configured user agent', async t => {
  const userAgents: string[] = []
  const site = await localServer(t, smallSite(userAgents))
  const titles: string[] = []
  const crawler = factory().http({
    async requestHandler ({ body, enqueueLinks }) {
      titles.push(titleOf(body))
      await enqueueLinks() // same hostname by default: elsewhere.example is not followed
    },
  })
  const stats = await crawler.run([`${site.origin}/`])
  t.same(titles.sort(), ['page /', 'page /a', 'page /b', 'page /c'])
  t.equal(stats.requestsFinished, 4)
  t.equal(stats.requestsFailed, 0)
  t.same([...new Set(userAgents)], [USER_AGENT])
})

t.test('parallel crawlers have their own queues', async t => {
  const site = await localServer(t, smallSite())
  const crawlers = factory()
  const seen: string[][] = [[], []]
  const [first, second] = [0, 1].map(i => crawlers.http({
    async requestHandler ({ request }) { seen[i].push(new URL(request.url).pathname) },
  }))
  await Promise.all([first.run([`${site.origin}/a`, `${site.origin}/b`]), second.run([`${site.origin}/a`, `${site.origin}/b`])])
  t.same(seen.map(paths => paths.sort()), [['/a', '/b'], ['/a', '/b']], 'neither crawler saw the other\'s requests as done')
})

t.test('refuses a loopback start URL when private targets are not allowed', async t => {
  const site = await localServer(t, smallSite())
  let handled = 0
  const failures: string[] = []
  const crawler = factory({ allowPrivateTargets: false }).http({
    async requestHandler () { handled++ },
    async failedRequestHandler ({ request }, error) { failures.push(`${request.url} ${error.message}`) },
  })
  const stats = await crawler.run([`${site.origin}/`, `http://[::1]:${site.port}/`])
  t.equal(handled, 0, 'the handler never ran')
  t.equal(stats.requestsFailed, 2)
  t.equal(failures.length, 2)
  // A literal address is not echoed back, nor its port (see public-errors.ts).
  t.match(failures[0], /Refused to connect to an IP address: loopback/)
  t.match(failures[1], /Refused to connect to an IP address: loopback/)
  t.notMatch(failures.join('\n'), new RegExp(`Refused.*(127\\.0\\.0\\.1|::1|${site.port})`))
  t.same(stats.retryHistogram, [2], 'both failed on their first attempt: a refusal is not retried')
  t.same(site.hits, [], 'the site never saw a request')
})

t.test('refuses a redirect to loopback after an allowed first hop', async t => {
  const secret = await localServer(t, smallSite())
  const entry = await localServer(t, (req, res) => {
    const to = req.url === '/by-name' ? `http://localhost:${secret.port}/` : `http://127.0.0.1:${secret.port}/`
    res.writeHead(302, { location: to }).end()
  })
  let handled = 0
  const failures: string[] = []
  // public.example resolves to loopback, and only the entry server's exact
  // address:port is excepted (see the HTTP client guard test for why).
  const crawler = factory({
    allowPrivateTargets: false,
    allowedTargets: [`127.0.0.1:${entry.port}`],
    lookup: async name => (name === 'public.example' || name === 'localhost') ? [{ address: '127.0.0.1', family: 4 }] : [],
  }).http({
    maxRequestRetries: 2,
    async requestHandler () { handled++ },
    async failedRequestHandler (_context, error) { failures.push(error.message) },
  })
  const stats = await crawler.run([`http://public.example:${entry.port}/by-ip`, `http://public.example:${entry.port}/by-name`])
  t.equal(handled, 0)
  t.equal(stats.requestsFailed, 2)
  t.match(failures.join('\n'), 'Refused to connect to an IP address: loopback')
  t.match(failures.join('\n'), 'Refused to connect to localhost: loopback')
  t.notMatch(failures.join('\n'), String(secret.port), 'the redirect target\'s port is not shown')
  t.same(entry.hits.sort(), ['/by-ip', '/by-name'], 'the first hops were allowed, once each')
  t.same(secret.hits, [], 'the redirect target was never reached')
})

t.test('the job signal stops a running crawl and the run rejects with its reason', async t => {
  const site = await localServer(t, (req, res) => {
    // An endless site: every page links to two more, each answered slowly.
    const n = Number(req.url?.slice(1) || 0)
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(`<a href="/${2 * n + 1}">a</a><a href="/${2 * n + 2}">b</a>`)
    }, 50)
  })
  const job = new AbortController()
  let handled = 0
  const crawler = factory({ signal: job.signal }).http({
    maxConcurrency: 2,
    async requestHandler ({ enqueueLinks }) {
      handled++
      if (handled === 3) job.abort(new Error('job cancelled'))
      await enqueueLinks()
    },
  })
  const started = Date.now()
  await t.rejects(crawler.run([`${site.origin}/0`]), { message: 'job cancelled' })
  t.ok(Date.now() - started < 20_000, 'stopped (not crawling the whole site)')
  const handledAtStop = handled
  await new Promise(resolve => setTimeout(resolve, 300))
  t.ok(handled <= handledAtStop + 2, `no new pages after the stop (${handled})`)

  const aborted = new AbortController()
  aborted.abort(new Error('already cancelled'))
  const late = factory({ signal: aborted.signal }).http({ async requestHandler () { handled++ } })
  await t.rejects(late.run([`${site.origin}/0`]), { message: 'already cancelled' })
})

t.test('the requests a stopped job cut short are logged at info, not as errors', async t => {
  let slowAsked = 0
  const job = new AbortController()
  const site = await localServer(t, (req, res) => {
    if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="/slow-a">a</a><a href="/slow-b">b</a>'); return }
    // The linked pages never answer: both are in flight when the job is stopped.
    if (++slowAsked === 2) job.abort(new Error('job cancelled'))
    req.socket.on('close', () => res.destroy())
  })
  const lines: Array<Record<string, unknown>> = []
  let cutShort!: () => void
  const bothLogged = new Promise<void>(resolve => { cutShort = resolve })
  const sink = new Writable({
    write (chunk, _encoding, done) {
      const line = JSON.parse(String(chunk)) as Record<string, unknown>
      lines.push(line)
      if (lines.filter(l => /maximum retries/.test(String(l.msg))).length === 2) cutShort()
      done()
    },
  })
  const crawler = factory({ signal: job.signal, logger: createLogger('debug', sink, new SecretScrubber([])), logLevel: LogLevel.WARNING }).http({
    maxConcurrency: 2,
    async requestHandler ({ enqueueLinks }) { await enqueueLinks() },
  })
  await t.rejects(crawler.run([`${site.origin}/`]), { message: 'job cancelled' })
  await bothLogged
  const cut = lines.filter(line => /maximum retries/.test(String(line.msg)))
  t.same(cut.map(line => [line.level, line.stopped]), [[30, true], [30, true]], 'both cut requests are info lines marked stopped')
  t.same(lines.filter(line => Number(line.level) >= 50), [], 'no error line')
})

t.test('crawls through the configured proxy', async t => {
  const site = await localServer(t, smallSite())
  const proxied: string[] = []
  // A forward proxy: absolute-form requests for http targets, CONNECT tunnels for the rest.
  const proxy = createServer((req, res) => {
    proxied.push(req.url ?? '')
    const upstream = httpRequest(req.url ?? '', { method: req.method, headers: req.headers }, answer => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  proxy.on('connect', (req, clientSocket, head) => {
    proxied.push(`CONNECT ${req.url}`)
    const [host, port] = (req.url ?? '').split(':')
    const upstream = netConnect(Number(port), host, () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(clientSocket)
      clientSocket.pipe(upstream)
    })
    upstream.on('error', () => clientSocket.destroy())
  })
  await new Promise<void>(resolve => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => { proxy.closeAllConnections(); proxy.close(() => resolve()) }))
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`

  const titles: string[] = []
  const crawler = factory({ proxies: proxyPoolOf(proxyUrl) }).http({ async requestHandler ({ body }) { titles.push(titleOf(body)) } })
  await crawler.run([`${site.origin}/a`])
  t.same(titles, ['page /a'])
  t.equal(proxied.length, 1, 'the request went through the proxy')
  t.match(proxied[0], `127.0.0.1:${site.port}`)

  const refused: string[] = []
  const guarded = factory({ proxies: proxyPoolOf(proxyUrl), allowPrivateTargets: false }).http({
    async requestHandler () { titles.push('never') },
    async failedRequestHandler (_context, error) { refused.push(error.message) },
  })
  await guarded.run([`${site.origin}/b`])
  t.match(refused, [/loopback/])
  t.equal(proxied.length, 1, 'the proxy was not asked for the refused target')
})

t.test('the handler gets raw bytes; enqueueLinks reads links in the pool with selector, <base> and strategy', async t => {
  const site = await localServer(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    if (req.url === '/') {
      res.end('<html><head><base href="/docs/"></head><body><a href="one">1</a><a class="x" href="two">2</a><a href="http://elsewhere.example/">far</a><a href="mailto:a@b.example">m</a></body></html>')
    } else res.end('<html><body>leaf</body></html>')
  })
  const seen: string[] = []
  let dom: unknown = 'unset'
  let parseError = ''
  const crawler = factory().http({
    async requestHandler (context) {
      seen.push(new URL(context.request.url).pathname)
      dom = (context as unknown as { $?: unknown }).$
      t.ok(Buffer.isBuffer(context.body) || typeof context.body === 'string', 'the body is handed over as it came')
      if (context.request.url.endsWith('/')) {
        await context.parseWithCheerio().catch((err: Error) => { parseError = err.message })
        await context.enqueueLinks({ selector: 'a.x' })
        await context.enqueueLinks({ urls: [`${site.origin}/docs/three`] })
      }
    },
  })
  await crawler.run([`${site.origin}/`])
  t.equal(dom, undefined, 'no cheerio DOM was built on this thread')
  t.match(parseError, /do not parse pages on the API thread/)
  t.same(seen.sort(), ['/', '/docs/three', '/docs/two'], 'the selector and the page\'s <base href> were applied; other hosts left out')
})

t.test('no system-info polling: the crawler\'s event manager emits no systemInfo (no `ps` process)', async t => {
  const site = await localServer(t, smallSite())
  let systemInfo = 0
  const crawler = factory().http({ async requestHandler () {} })
  const events = crawler.config.getEventManager()
  t.notOk(events instanceof LocalEventManager, 'not crawlee\'s LocalEventManager, which samples memory with ps every second')
  events.on('systemInfo', () => { systemInfo++ })
  await crawler.run([`${site.origin}/`, `${site.origin}/a`])
  t.equal(systemInfo, 0)
})

t.test('crawlee\'s log lines become lines of the job\'s pino logger, secrets scrubbed', async t => {
  const lines: Array<Record<string, unknown>> = []
  const raw: string[] = []
  const sink = new Writable({ write (chunk, _encoding, done) { raw.push(String(chunk)); lines.push(JSON.parse(String(chunk))); done() } })
  // The app's logger: every line passes the secret scrubber (here with one configured value).
  const logger = createLogger('debug', sink, new SecretScrubber(['configured-secret-value']))
  const site = await localServer(t, (_req, res) => { res.writeHead(500).end('broken by configured-secret-value') })
  const crawler = factory({ logger, logLevel: LogLevel.WARNING }).http({
    maxRequestRetries: 0,
    async requestHandler () {},
  })
  await crawler.run([`${site.origin}/down?token=abc123secret`])
  const crawleeLines = lines.filter(line => typeof line.crawlee === 'string')
  t.ok(crawleeLines.length > 0, 'crawlee wrote through pino')
  t.ok(crawleeLines.some(line => line.level === 50 && /HttpCrawler/.test(String(line.crawlee))), 'its error about the failed request is a pino error line')
  t.match(raw.join(''), /down/, 'the failed URL is in the log')
  t.notMatch(raw.join(''), /abc123secret|configured-secret-value/, 'neither the URL\'s token nor a configured value reaches the log')
})

t.test('maxConcurrency bounds the pages being fetched, not the handlers: handlers waiting hold no fetch slot', async t => {
  let inFlight = 0
  let mostInFlight = 0
  const site = await localServer(t, (req, res) => {
    inFlight++
    mostInFlight = Math.max(mostInFlight, inFlight)
    // Each answer takes a little while, so requests overlap if the crawler lets them.
    setTimeout(() => {
      inFlight--
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${req.url}</title>`)
    }, 20)
  })
  let handling = 0
  let mostHandling = 0
  const releases: Array<() => void> = []
  const crawler = factory().http({
    maxConcurrency: 2,
    async requestHandler () {
      handling++
      mostHandling = Math.max(mostHandling, handling)
      // Handlers stay busy (as a page waiting for the extraction pool does) until four have started.
      await new Promise<void>(resolve => { releases.push(resolve); if (releases.length >= 4) for (const release of releases.splice(0)) release() })
      handling--
    },
  })
  const urls = Array.from({ length: 12 }, (_, i) => `${site.origin}/p${i}`)
  const stats = await crawler.run(urls)
  t.equal(stats.requestsFinished, 12)
  t.equal(mostInFlight, 2, 'never more than maxConcurrency requests at the site at once')
  t.equal(mostHandling, 4, 'while two pages waited in their handlers, two more were fetched')
})

t.test('addRequests: links already offered to the queue are dropped first, so a page near the budget does not wait', async t => {
  const site = await localServer(t, smallSite())
  const crawler = factory().http({
    maxRequestsPerCrawl: 3,
    async requestHandler ({ request }) {
      if (new URL(request.url).pathname !== '/') return
      // crawlee alone: chunks of the remaining budget (1 here), each new one after a 1 s sleep.
      const many = Array.from({ length: 6 }, () => [`${site.origin}/`, `${site.origin}/a`]).flat()
      const queue = await crawler.getRequestQueue()
      const add = queue.addRequests.bind(queue)
      let batches = 0
      queue.addRequests = async (...args) => { batches++; return add(...args) }
      await crawler.addRequests([...many, `${site.origin}/b`, `${site.origin}/c`])
      t.equal(batches, 1, 'one batch reached the queue (crawlee alone sends 14 here, each after a 1 s sleep)')
    },
  })
  await crawler.addRequests([`${site.origin}/`, `${site.origin}/a`])
  const stats = await crawler.run()
  t.equal(stats.requestsFinished, 3, 'the budget still holds: /, /a and one of /b, /c')
})

t.test('one set of generated browser headers per crawl', async t => {
  const seen: string[] = []
  const site = await localServer(t, (req, res) => {
    seen.push(JSON.stringify([req.headers['sec-ch-ua'], req.headers['accept'], req.headers['accept-language']]))
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>x</title>')
  })
  const crawler = factory().http({ async requestHandler () {} })
  await crawler.run(Array.from({ length: 6 }, (_, i) => `${site.origin}/${i}`))
  t.equal(seen.length, 6)
  t.equal(new Set(seen).size, 1, 'every request of the crawl sent the same browser headers')
})
