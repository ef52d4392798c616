// Crawlee crawlers for tools (ctx.crawler): in-memory storage of their own,
// the network guard, the configured proxy and user agent, the job's signal.
//
// The API thread only moves bytes. The crawler is crawlee's HttpCrawler, which
// hands the handler the (capped) raw body and parses nothing: CheerioCrawler
// parsed every page twice (htmlparser2 and cheerio) on the API thread before the
// handler ran, tens to hundreds of ms per hostile page. `enqueueLinks()` reads the
// page's links in the app's extraction pool (crawler-page-links.ts, through
// `ctx.extract.call`), and a handler reads the page itself with `ctx.extract`.
// crawlee's system-info polling is off (a `ps` child process per crawler every
// second, forked from a 300 MB process, for memory snapshots): the crawl's
// concurrency is the tool's setting, not a guess from the host's load. crawlee's
// log lines go to the job's pino logger, which scrubs secrets.
//
// How the guard reaches crawlee 3's got-scraping request path (read from
// @crawlee/http http-crawler.js and got-scraping 4):
// - preNavigationHooks get (crawlingContext, gotOptions), and gotOptions is
//   spread into the got-scraping call. The guard hook (run after the tool's
//   own hooks, so it has the last word) resolves and checks the request's host
//   and sets got's `dnsLookup` to a lookup that only answers the vetted
//   addresses, so the socket goes where the check said (no rebinding gap).
// - got follows redirects itself; a got `beforeRedirect` hook (appended to
//   got-scraping's own) checks every hop before it is requested and adds its
//   vetted addresses to the pinned lookup. Literal IPs never reach a lookup,
//   so this hook is what stops a redirect to http://127.0.0.1/.
// - a postNavigationHook checks response.url and every redirect URL again,
//   so a response from an unchecked host is never handed to the handler.
// - With a proxy the proxy resolves the target: hosts are checked by DNS
//   before each request and hop, but cannot be pinned.
// The crawler's HTTP client (crawlee's `httpClient` option, see
// GuardedCrawlerHttpClient below) is got-scraping with four changes:
// - No ALPN probe. For https URLs got-scraping's header generator opens a TLS
//   connection of its own (to choose HTTP/2 or HTTP/1.1 headers) with the
//   system resolver, outside the pinned lookup: a host answering a public
//   address to the guard and a private one to the probe would reach the inside.
//   Requests are HTTP/1.1 (`http2: false`), so the probe's answer is known
//   beforehand: the generator is called here for HTTP/1 headers and
//   got-scraping's own (probing) header hook is switched off.
// - TLS certificates are verified (crawlee's `ignoreSslErrors` defaults to true).
// - The body is capped at maxResponseBytes decoded bytes (got decompresses
//   before the cap counts, and only as fast as the cap reads, so a gzip or
//   brotli bomb stops at the cap); a larger Content-Length is refused unread.
//   Past the cap the page fails (not retried) and the crawl goes on.
// - context.sendRequest() is refused and robots.txt is not fetched by crawlee:
//   both would go out past the hooks above.
// Errors handed to the tool's handlers never carry library text that names an
// address or port (public-errors.ts).
import { createRequire } from 'node:module'
import { totalmem } from 'node:os'
import { Transform, pipeline, type Readable } from 'node:stream'
import type { BaseHttpClient, Configuration, EnqueueLinksOptions, HttpCrawler, HttpCrawlerOptions, HttpCrawlingContext, HttpRequest, LogLevel, RedirectHandler, Request, RequestProvider, StreamingHttpResponse } from 'crawlee'
import { BlockedTargetError, InputError, ResponseTooLargeError, UpstreamError, type CrawlerFactory, type Extraction, type Logger } from '../tools/contract.ts'
import { pinnedLookup, systemLookup, urlPort, vetTarget, type HostLookup, type ResolvedAddress, type TargetPolicy } from './network-policy.ts'
import { unbracketHost } from './ip-ranges.ts'
import { DEFAULT_MAX_BYTES } from './http-client.ts'
import type { ProxyChooser } from './proxy-pool.ts'
import { describeNetworkFailure, publicCause, publicErrorText, redactUrl } from './public-errors.ts'

export interface CrawlerFactoryOptions {
  policy: TargetPolicy
  /** Sent unless a request sets its own User-Agent header. */
  userAgent: string
  /** The outbound proxies' chooser (core/net/proxy-pool.ts), asked for each request; none: direct connections. */
  proxies?: ProxyChooser | null
  /** The job's signal: aborting it stops every crawler of this factory. */
  signal: AbortSignal
  /** Host resolution (default node:dns lookup, all addresses); injected by tests. */
  lookup?: HostLookup
  /**
   * Runs a parser in the app's extraction pool (the job's `ctx.extract`):
   * `enqueueLinks()` reads a page's links there, never on the API thread.
   */
  extract: Pick<Extraction, 'call'>
  /** Where crawlee's own log lines go (the job's logger, which scrubs secrets); without one they are dropped. */
  logger?: Logger
  /** Crawlee's log level for these crawlers (default WARNING with a logger: crawlee is chatty at INFO; OFF without). */
  logLevel?: LogLevel
  /** MAX_RESPONSE_BYTES: the most decoded bytes of one page (default 5 MB). */
  maxResponseBytes?: number
}

/** A page past the byte limit: that page fails, is not retried, and the crawl goes on. */
function pageTooLarge (href: string, maxBytes: number, declared?: number): ResponseTooLargeError {
  return new ResponseTooLargeError(declared === undefined
    ? `The page ${redactUrl(href)} is larger than the ${maxBytes}-byte limit`
    : `The page ${redactUrl(href)} is ${declared} bytes, larger than the ${maxBytes}-byte limit`, maxBytes)
}

/** Passes at most maxBytes through, then fails with ResponseTooLargeError and destroys the source (which stops its decompression). */
function capStream (source: Readable, maxBytes: number, href: string): Transform {
  let received = 0
  const capped = new Transform({
    transform (chunk: Buffer, _encoding, callback) {
      received += chunk.byteLength
      if (received > maxBytes) return callback(pageTooLarge(href, maxBytes))
      callback(null, chunk)
    },
  })
  // pipeline destroys the source when the cap fails, and fails the cap when the source does.
  pipeline(source, capped, () => {})
  return capped
}

interface HeaderSource { getHeaders (options: Record<string, unknown>): Record<string, string> }

/** Request headers win over generated ones, whatever their case. */
function mergeHeaders (generated: Record<string, string>, own: HttpRequest['headers'] = {}): NonNullable<HttpRequest['headers']> {
  const merged = new Map<string, [string, string | string[] | undefined]>()
  for (const [name, value] of Object.entries(generated)) merged.set(name.toLowerCase(), [name, value])
  for (const [name, value] of Object.entries(own)) if (value !== undefined) merged.set(name.toLowerCase(), [name, value])
  return Object.fromEntries(merged.values())
}

/** got-scraping as crawlee uses it, with the changes listed at the top of this file. */
class GuardedCrawlerHttpClient implements BaseHttpClient {
  constructor (private readonly inner: BaseHttpClient, private readonly maxBytes: number) {}

  async sendRequest (): Promise<never> {
    throw new InputError('context.sendRequest() is not available in tool crawlers: fetch with ctx.http, which the network guard covers')
  }

  /** One crawl's browser headers, generated at its first request. */
  private generated: Promise<Record<string, string>> | null = null

  /**
   * got-scraping's own header generator (the one its probing hook would use),
   * called once per crawler: one browser identity for the whole crawl of a site,
   * as got-scraping keeps one per session (and the configured User-Agent is the
   * same on every request anyway). Generating them (a Bayesian-network sample) took
   * 0.7 ms of the API thread per page.
   */
  private async headers (): Promise<Record<string, string>> {
    this.generated ??= import('got-scraping').then(
      m => (m.gotScraping.defaults.options.context as { headerGenerator?: HeaderSource }).headerGenerator?.getHeaders({ httpVersion: '1' }) ?? {},
      () => ({}),
    )
    return this.generated
  }

  async stream (request: HttpRequest, onRedirect?: RedirectHandler): Promise<StreamingHttpResponse> {
    const https = (request.https ?? {}) as Record<string, unknown>
    const response = await this.inner.stream({
      ...request,
      http2: false,
      useHeaderGenerator: false,
      headers: mergeHeaders(await this.headers(), request.headers),
      https: { ...https, rejectUnauthorized: true },
    }, onRedirect)
    const declared = Number(response.headers['content-length'])
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      response.stream.destroy()
      throw pageTooLarge(response.url, this.maxBytes, declared)
    }
    const capped = capStream(response.stream, this.maxBytes, response.url)
    // crawlee copies statusCode, headers, url… onto the stream itself; the guard's after-navigation check also reads redirectUrls.
    Object.assign(capped, { redirectUrls: response.redirectUrls })
    response.stream = capped
    return response
  }
}

/**
 * At most `limit` pages of one crawler being fetched at once (request sent until
 * the handler gets the body), whatever the number of its tasks: tasks past the
 * limit wait here, before the request goes out. A task takes a slot once and gives
 * it back when its handler starts or when the task ends, whichever comes first.
 */
class FetchSlots {
  private fetching = 0
  private readonly waiting: Array<{ admit (): void, refuse (reason: unknown): void }> = []
  private readonly holders = new WeakSet<object>()

  constructor (private readonly limit: number, private readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => { for (const waiter of this.waiting.splice(0)) waiter.refuse(signal.reason) }, { once: true })
  }

  async take (task: object): Promise<void> {
    if (this.holders.has(task)) return
    this.signal.throwIfAborted()
    if (this.fetching >= this.limit) {
      await new Promise<void>((resolve, reject) => this.waiting.push({ admit: resolve, refuse: reject }))
    } else {
      this.fetching++
    }
    this.holders.add(task)
  }

  giveBack (task: object): void {
    if (!this.holders.delete(task)) return
    // The slot passes straight to the first waiter, so the count never drops below what runs.
    const next = this.waiting.shift()
    if (next) next.admit()
    else this.fetching--
  }
}

/** Failures that another try cannot fix. */
function isFinalFailure (err: unknown): boolean {
  const own = publicCause(err)
  if (own instanceof BlockedTargetError || own instanceof InputError || own instanceof ResponseTooLargeError) return true
  return describeNetworkFailure(err) === 'TLS certificate not valid for this host'
}

/** The error a tool's handler gets: ours as they are, a library's reduced to words that name no address or port. */
function publicCrawlError (err: unknown, href: string): unknown {
  const own = publicCause(err)
  if (own) return own
  const text = publicErrorText(err, href)
  if (err instanceof Error && text === err.message) return err
  return new UpstreamError(text)
}

type HttpHook = NonNullable<HttpCrawlerOptions['preNavigationHooks']>[number]
type GotOptions = Parameters<HttpHook>[1]
type RunArguments = Parameters<HttpCrawler<HttpCrawlingContext>['run']>

/** The parser `enqueueLinks()` runs in the extraction pool. */
const PAGE_LINKS_MODULE = new URL('./crawler-page-links.ts', import.meta.url)

// Crawlee loads on the first crawler, not at boot: processes that never crawl
// (exports, API-only) stay small. Only the parts a crawler here uses load: the
// `crawlee` package itself also loads the browser crawlers (playwright, puppeteer,
// jsdom, linkedom, the browser pool): 1.9 s of CPU, a synchronous require on the
// API thread at the first crawl, and 95 MB, against 0.5 s and 29 MB for
// @crawlee/http (+ basic, core) and @crawlee/memory-storage. Both are resolved
// from crawlee's own folder (they are its dependencies, at its version), so no
// install layout can hand us other copies. Nothing else in the service loads crawlee.
// The classes below extend crawlee's, so they are made when it loads; they hold
// no state of their own (every crawler gets its own instances).
type CrawleeModule = Pick<typeof import('crawlee'),
  'HttpCrawler' | 'EventManager' | 'Logger' | 'Log' | 'LogLevel' | 'log' | 'Configuration' | 'ProxyConfiguration' |
  'GotScrapingHttpClient' | 'resolveBaseUrlForEnqueueLinksFiltering' | 'MemoryStorage' | 'Request'>
type CrawleeClasses = ReturnType<typeof defineCrawleeClasses>
let crawleeClasses: CrawleeClasses | null = null
function crawlee (): CrawleeClasses {
  if (!crawleeClasses) {
    const fromCrawlee = createRequire(createRequire(import.meta.url).resolve('crawlee'))
    const loaded: CrawleeModule = {
      ...fromCrawlee('@crawlee/http') as Omit<CrawleeModule, 'MemoryStorage'>,
      MemoryStorage: (fromCrawlee('@crawlee/memory-storage') as Pick<CrawleeModule, 'MemoryStorage'>).MemoryStorage,
    }
    // crawlee's process-wide default log writes text lines to the console, past
    // the JSON log stream and its secret scrubber. Every crawler here has its own
    // log (handed to its pool, statistics and sessions); the shared default, used
    // by crawlee's storages for rare warnings, is switched off once, at load.
    loaded.log.setLevel(loaded.LogLevel.OFF)
    crawleeClasses = defineCrawleeClasses(loaded)
  }
  return crawleeClasses
}

function defineCrawleeClasses (loaded: CrawleeModule) {
  /**
   * An HttpCrawler whose run() stops when the job's signal fires (and then rejects
   * with its reason), and whose addRequests() never sleeps.
   */
  class SignalBoundHttpCrawler extends loaded.HttpCrawler<HttpCrawlingContext> {
    /** Unique keys already offered to each request queue (a purge on a second run() opens a new queue). */
    private readonly offeredKeys = new WeakMap<object, Set<string>>()

    constructor (options: HttpCrawlerOptions, config: Configuration, private readonly jobSignal: AbortSignal, private readonly fetchSlots: FetchSlots | null) {
      super(options, config)
    }

    /** The end of every task: a fetch slot still held (the page failed before its handler) is given back. */
    protected override async _cleanupContext (context: HttpCrawlingContext): Promise<void> {
      this.fetchSlots?.giveBack(context)
      await super._cleanupContext(context)
    }

    /**
     * crawlee adds requests (addRequests(), enqueueLinks()) with maxRequestsPerCrawl
     * set (every tool crawl) in chunks of the remaining budget, counts only the
     * ones new to the queue against it, and sleeps 1 s after every chunk past the
     * first while the caller waits: a page of 14 links, 12 of them queued already,
     * with a budget of 2 left, holds its crawler slot for 6 s (the 1 s is for the
     * Apify platform's API rate limit; the queue here is in memory). So the links
     * this queue has been offered are dropped here first, by crawlee's own unique
     * key, which leaves one chunk, and a second one (past 1,000 new links) goes
     * without the sleep.
     */
    override async addRequests (...[requests, options]: Parameters<HttpCrawler<HttpCrawlingContext>['addRequests']>): ReturnType<HttpCrawler<HttpCrawlingContext>['addRequests']> {
      const fresh = await this.notOfferedYet(await this.getRequestQueue(), requests)
      return super.addRequests(fresh as typeof requests, { waitBetweenBatchesMillis: 0, ...options })
    }

    /** The request queue as enqueueLinks() sees it, with the same filter as addRequests(). */
    async enqueueLinksQueue (): Promise<Pick<RequestProvider, 'addRequestsBatched'>> {
      const queue = await this.getRequestQueue()
      return {
        addRequestsBatched: async (requests, options) => queue.addRequestsBatched(await this.notOfferedYet(queue, requests) as typeof requests, { waitBetweenBatchesMillis: 0, ...options }),
      }
    }

    private async notOfferedYet (queue: object, requests: AsyncIterable<unknown> | Iterable<unknown>): Promise<unknown[]> {
      let offered = this.offeredKeys.get(queue)
      if (!offered) this.offeredKeys.set(queue, offered = new Set())
      const fresh: unknown[] = []
      for await (const item of requests) {
        // A URL list to download, or a request crawlee would refuse: crawlee's own path, untouched.
        if (item === null || (typeof item !== 'string' && typeof item !== 'object') || (typeof item === 'object' && 'requestsFromUrl' in item)) { fresh.push(item); continue }
        let request: Request
        try {
          request = item instanceof loaded.Request ? item : new loaded.Request(typeof item === 'string' ? { url: item } : item as ConstructorParameters<typeof Request>[0])
        } catch {
          fresh.push(item)
          continue
        }
        // Marked before the queue answers, so two pages adding a link at once offer it once.
        // A link refused over the budget stays marked: the budget (maxRequestsPerCrawl less
        // the requests queued) never grows back.
        if (offered.has(request.uniqueKey)) continue
        offered.add(request.uniqueKey)
        fresh.push(request)
      }
      return fresh
    }

    override async run (...args: RunArguments): ReturnType<HttpCrawler<HttpCrawlingContext>['run']> {
      this.jobSignal.throwIfAborted()
      // abort() drops the queue and resolves run(); run() then tears the crawler down itself.
      const stop = (): void => { void this.autoscaledPool?.abort() }
      this.jobSignal.addEventListener('abort', stop, { once: true })
      try {
        const statistics = await super.run(...args)
        this.jobSignal.throwIfAborted()
        return statistics
      } finally {
        this.jobSignal.removeEventListener('abort', stop)
      }
    }
  }

  /**
   * crawlee's event manager without the `systemInfo` events: no `ps` process and
   * no memory or CPU sampling on the API thread. The memory and CPU load signals
   * of the crawler's pool then never report overload; the event-loop and client
   * signals (timers, no process) still do.
   */
  class NoSystemInfoEventManager extends loaded.EventManager {}

  /**
   * crawlee's log lines as pino lines of the job's logger (which scrubs secrets
   * before writing). Once the job's signal fired (a cancel, a timeout, the
   * per-run cap, a shutdown), the requests it cut short are the stop, not
   * failures: crawlee's "reached maximum retries" errors are written at info.
   */
  class PinoLogSink extends loaded.Logger {
    constructor (private readonly target: Logger, private readonly stop: AbortSignal) { super({}) }

    override _log (level: LogLevel, message: string, data?: Record<string, unknown>, exception?: unknown, opts: { prefix?: string | null } = {}): string {
      const fields = { ...data, ...(opts.prefix ? { crawlee: opts.prefix } : {}), ...(exception ? { err: exception } : {}) }
      const { ERROR, SOFT_FAIL, WARNING, INFO, DEBUG } = loaded.LogLevel
      if (level === ERROR && this.stop.aborted) this.target.info({ ...fields, stopped: true }, message)
      else if (level === ERROR) this.target.error(fields, message)
      else if (level === SOFT_FAIL || level === WARNING) this.target.warn(fields, message)
      else if (level === INFO) this.target.info(fields, message)
      else if (level === DEBUG) this.target.debug(fields, message)
      else this.target.trace(fields, message)
      return message
    }
  }

  return { loaded, SignalBoundHttpCrawler, NoSystemInfoEventManager, PinoLogSink }
}

/** The page's decoded text (HttpCrawler hands over bytes, already converted to UTF-8 from a declared charset). */
function bodyText (body: string | Buffer): string {
  return typeof body === 'string' ? body : body.toString('utf8')
}

export function createCrawlerFactory (options: CrawlerFactoryOptions): CrawlerFactory {
  const { policy, userAgent, proxies, signal, extract, logger } = options
  const lookup = options.lookup ?? systemLookup
  // Crawlee's LogLevel.WARNING (crawlee is chatty at INFO), OFF when there is nowhere to write.
  const logLevel = options.logLevel ?? (logger ? 3 : 0) as LogLevel
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_BYTES

  return {
    http (crawlerOptions) {
      const { loaded, SignalBoundHttpCrawler, NoSystemInfoEventManager, PinoLogSink } = crawlee()
      const viaProxy = Boolean(proxies ?? crawlerOptions.proxyConfiguration)
      // Vetted addresses per crawling context (one request, all its redirect hops).
      const vettedByContext = new WeakMap<object, Map<string, ResolvedAddress[]>>()

      /** Checks one URL the crawler is about to fetch (or has fetched) and remembers its vetted addresses. */
      async function vetUrl (href: string, vetted: Map<string, ResolvedAddress[]>): Promise<void> {
        const url = new URL(href)
        if (url.protocol !== 'http:' && url.protocol !== 'https:') {
          throw new InputError(`Only http: and https: URLs can be crawled, not ${url.protocol} (${url.href})`)
        }
        vetted.set(unbracketHost(url.hostname), await vetTarget(policy, lookup, url.hostname, urlPort(url)))
      }

      /** A refused target never becomes reachable by retrying. */
      function noRetryOnRefusal (context: HttpCrawlingContext, err: unknown): never {
        if (err instanceof BlockedTargetError || err instanceof InputError || signal.aborted) context.request.noRetry = true
        throw err
      }

      const guardBeforeNavigation: HttpHook = async (context, gotOptions: GotOptions) => {
        const vetted = new Map<string, ResolvedAddress[]>()
        vettedByContext.set(context, vetted)
        try {
          await fetchSlots?.take(context)
          signal.throwIfAborted()
          await vetUrl(context.request.url, vetted)
        } catch (err) {
          noRetryOnRefusal(context, err)
        }
        const hasUserAgent = Object.keys({ ...context.request.headers, ...gotOptions.headers }).some(name => name.toLowerCase() === 'user-agent')
        if (!hasUserAgent) gotOptions.headers = { ...gotOptions.headers, 'user-agent': userAgent }
        if (!viaProxy) gotOptions.dnsLookup = pinnedLookup(hostName => vetted.get(unbracketHost(hostName)))
        gotOptions.signal = signal
        const checkRedirect = async (updated: { url?: string | URL }): Promise<void> => {
          try {
            await vetUrl(String(updated.url), vetted)
          } catch (err) {
            noRetryOnRefusal(context, err)
          }
        }
        // got appends these hooks to got-scraping's own when it merges the options.
        gotOptions.hooks = {
          ...gotOptions.hooks,
          beforeRedirect: [...(gotOptions.hooks?.beforeRedirect ?? []), checkRedirect as never],
        }
      }

      const guardAfterNavigation: HttpHook = async (context) => {
        const vetted = vettedByContext.get(context) ?? new Map<string, ResolvedAddress[]>()
        const response = context.response as { url?: string, redirectUrls?: Array<string | URL> } | undefined
        const seen = [...(response?.redirectUrls ?? []), ...(response?.url ? [response.url] : [])].map(String)
        try {
          for (const href of seen) {
            if (!vetted.has(unbracketHost(new URL(href).hostname))) await vetUrl(href, vetted)
          }
        } catch (err) {
          noRetryOnRefusal(context, err)
        }
      }

      /**
       * `enqueueLinks()` as CheerioCrawler had it (links of `selector`, default `a`,
       * the same strategy and base URL rules), with the page read in the extraction
       * pool. Given `urls`, or on a page that is not HTML or XML, it is crawlee's own.
       */
      function enqueueLinksFromPool (context: HttpCrawlingContext): HttpCrawlingContext['enqueueLinks'] {
        const original = context.enqueueLinks
        const { type } = context.contentType ?? { type: '' }
        // crawlee's enqueueLinks() takes a queue of the caller's choosing; the crawler's own, filtered as in addRequests().
        const offeringQueue = async (enqueueOptions: object) => ('requestQueue' in enqueueOptions ? {} : { requestQueue: await crawler.enqueueLinksQueue() as RequestProvider })
        if (!/html|xml/i.test(type)) return async (enqueueOptions = {}) => original({ ...enqueueOptions, ...await offeringQueue(enqueueOptions) })
        return async (enqueueOptions: Omit<EnqueueLinksOptions, 'requestQueue'> = {}) => {
          if (enqueueOptions.urls) return original({ ...enqueueOptions, ...await offeringQueue(enqueueOptions) })
          const { request } = context
          const baseUrl = loaded.resolveBaseUrlForEnqueueLinksFiltering({
            enqueueStrategy: enqueueOptions.strategy,
            finalRequestUrl: request.loadedUrl,
            originalRequestUrl: request.url,
            userProvidedBaseUrl: enqueueOptions.baseUrl,
          })
          const urls = await extract.call<string[]>(PAGE_LINKS_MODULE, 'crawlerPageLinks', [
            bodyText(context.body), enqueueOptions.selector ?? 'a', enqueueOptions.baseUrl ?? request.loadedUrl ?? request.url,
          ])
          return original({ urls, ...enqueueOptions, baseUrl, ...await offeringQueue(enqueueOptions) })
        }
      }

      /** HttpCrawler's own DOM helpers would load cheerio on the API thread. */
      const parseOnThisThread = async (): Promise<never> => {
        throw new InputError('Tool crawlers do not parse pages on the API thread: read `body` with ctx.extract (the extraction pool)')
      }

      // A fresh configuration, memory storage and event manager per crawler: parallel jobs never share queues.
      const { Configuration, MemoryStorage, Log, ProxyConfiguration, GotScrapingHttpClient } = loaded
      const config = new Configuration({
        persistStorage: false,
        storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }),
        // A set memory size: the pool's memory signal would otherwise measure the host (with `ps`) at start.
        memoryMbytes: Math.floor(totalmem() / 1024 / 1024),
      })
      config.useEventManager(new NoSystemInfoEventManager(config))
      const userHandler = crawlerOptions.requestHandler
      // maxConcurrency is the tool's pages fetched at once. A handler mostly waits for
      // the extraction pool (webemail: the page's scan, then its links); holding a fetch
      // slot meanwhile left the site idle for half of each slot's time. So the pool runs
      // up to twice as many tasks, and at most maxConcurrency of them fetch: up to
      // maxConcurrency pages wait in their handlers while as many are fetched (memory:
      // two pages per slot, each capped by MAX_RESPONSE_BYTES).
      const fetchLimit = crawlerOptions.maxConcurrency
      const fetchSlots = fetchLimit ? new FetchSlots(fetchLimit, signal) : null
      const tasks = fetchLimit ? fetchLimit * 2 : undefined
      const crawler = new SignalBoundHttpCrawler({
        log: new Log({ level: logLevel, prefix: 'HttpCrawler', ...(logger ? { logger: new PinoLogSink(logger, signal) } : {}) }),
        ...crawlerOptions,
        ...(tasks ? {
          maxConcurrency: tasks,
          // crawlee's HttpCrawler pool settings (HTTP_OPTIMIZED_AUTOSCALED_POOL_OPTIONS in
          // @crawlee/http, used when a crawler passes none), with all the tasks from the start:
          // a tool's setting says how many pages to fetch at once, and the slots above keep to it.
          autoscaledPoolOptions: {
            desiredConcurrency: tasks,
            snapshotterOptions: { eventLoopSnapshotIntervalSecs: 2, maxBlockedMillis: 100 },
            systemStatusOptions: { maxEventLoopOverloadedRatio: 0.7 },
            ...crawlerOptions.autoscaledPoolOptions,
          },
        } : {}),
        async requestHandler (context) {
          // The page is read: its fetch slot goes to the next page while this handler runs.
          fetchSlots?.giveBack(context)
          if (proxies && context.proxyInfo?.url) proxies.succeeded(context.proxyInfo.url)
          context.enqueueLinks = enqueueLinksFromPool(context)
          context.parseWithCheerio = parseOnThisThread
          context.waitForSelector = parseOnThisThread
          // A tool without its own handler routes with crawler.router, as crawlee does.
          await (userHandler ?? crawler.router)(context)
        },
        proxyConfiguration: proxies ? new ProxyConfiguration({ newUrlFunction: () => proxies.pick() }) : crawlerOptions.proxyConfiguration,
        preNavigationHooks: [...(crawlerOptions.preNavigationHooks ?? []), guardBeforeNavigation],
        postNavigationHooks: [guardAfterNavigation, ...(crawlerOptions.postNavigationHooks ?? [])],
        httpClient: new GuardedCrawlerHttpClient(new GotScrapingHttpClient(), maxBytes),
        ignoreSslErrors: false,
        // crawlee fetches robots.txt with got-scraping directly, outside the guard and the cap; a tool that honours robots.txt reads it with ctx.http.
        respectRobotsTxtFile: false,
        async errorHandler (context, error) {
          if (isFinalFailure(error) || signal.aborted) context.request.noRetry = true
          // A network error (got's, with a code) through a proxy counts against the proxy's health; an answer does not.
          if (proxies && context.proxyInfo?.url && !signal.aborted && typeof (error as { code?: unknown }).code === 'string') proxies.failed(context.proxyInfo.url, describeNetworkFailure(error))
          await crawlerOptions.errorHandler?.(context, publicCrawlError(error, context.request.url) as Error)
        },
        async failedRequestHandler (context, error) {
          await crawlerOptions.failedRequestHandler?.(context, publicCrawlError(error, context.request.url) as Error)
        },
      }, config, signal, fetchSlots)
      return crawler
    },
  }
}
