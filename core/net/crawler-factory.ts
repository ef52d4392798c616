// Crawlee crawlers for tools (ctx.crawler): in-memory storage of their own,
// the network guard, the configured proxy and user agent, the job's signal.
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
// Known gap: for https URLs got-scraping's header generator first opens a TLS
// connection (ALPN probe, no HTTP request sent) with the system resolver,
// outside our lookup. The host was resolved and checked just before, so only
// a DNS answer changing in between could aim that handshake elsewhere.
import { createRequire } from 'node:module'
import type { CheerioCrawler, Configuration, LogLevel, CheerioCrawlerOptions, CheerioCrawlingContext } from 'crawlee'
import { BlockedTargetError, InputError, type CrawlerFactory } from '../tools/contract.ts'
import { pinnedLookup, systemLookup, urlPort, vetTarget, type HostLookup, type ResolvedAddress, type TargetPolicy } from './network-policy.ts'
import { unbracketHost } from './ip-ranges.ts'

export interface CrawlerFactoryOptions {
  policy: TargetPolicy
  /** Sent unless a request sets its own User-Agent header. */
  userAgent: string
  /** http(s)://user:pass@host:port of an outbound proxy, or undefined for direct connections. */
  proxyUrl?: string
  /** The job's signal: aborting it stops every crawler of this factory. */
  signal: AbortSignal
  /** Host resolution (default node:dns lookup, all addresses); injected by tests. */
  lookup?: HostLookup
  /** Crawlee's log level for these crawlers (default WARNING: crawlee is chatty at INFO). */
  logLevel?: LogLevel
}

type HttpHook = NonNullable<CheerioCrawlerOptions['preNavigationHooks']>[number]
type GotOptions = Parameters<HttpHook>[1]
type RunArguments = Parameters<CheerioCrawler['run']>

// Crawlee (about 100 MB of resident memory) loads on the first crawler, not at
// boot: processes that never crawl (exports, API-only) stay small. Its CommonJS
// build is the one required; nothing else in the service imports crawlee.
type CrawleeModule = typeof import('crawlee')
let crawleeModule: CrawleeModule | null = null
let signalBoundClass: ReturnType<typeof defineSignalBoundCrawler> | null = null
function crawlee (): CrawleeModule {
  crawleeModule ??= createRequire(import.meta.url)('crawlee') as CrawleeModule
  return crawleeModule
}

function defineSignalBoundCrawler (base: CrawleeModule['CheerioCrawler']) {
  /** A CheerioCrawler whose run() stops when the job's signal fires, and then rejects with its reason. */
  return class SignalBoundCheerioCrawler extends base {
    constructor (options: CheerioCrawlerOptions, config: Configuration, private readonly jobSignal: AbortSignal) {
      super(options, config)
    }

    override async run (...args: RunArguments): ReturnType<CheerioCrawler['run']> {
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
}

export function createCrawlerFactory (options: CrawlerFactoryOptions): CrawlerFactory {
  const { policy, userAgent, proxyUrl, signal } = options
  const lookup = options.lookup ?? systemLookup
  // Crawlee's LogLevel.WARNING: crawlee is chatty at INFO.
  const logLevel = options.logLevel ?? (3 as LogLevel)

  return {
    cheerio (crawlerOptions) {
      const viaProxy = Boolean(proxyUrl ?? crawlerOptions.proxyConfiguration)
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
      function noRetryOnRefusal (context: CheerioCrawlingContext, err: unknown): never {
        if (err instanceof BlockedTargetError || err instanceof InputError || signal.aborted) context.request.noRetry = true
        throw err
      }

      const guardBeforeNavigation: HttpHook = async (context, gotOptions: GotOptions) => {
        const vetted = new Map<string, ResolvedAddress[]>()
        vettedByContext.set(context, vetted)
        try {
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

      // A fresh configuration and memory storage per crawler: parallel jobs never share queues.
      const { Configuration, MemoryStorage, Log, ProxyConfiguration, CheerioCrawler } = crawlee()
      signalBoundClass ??= defineSignalBoundCrawler(CheerioCrawler)
      const config = new Configuration({
        persistStorage: false,
        storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }),
      })
      return new signalBoundClass({
        log: new Log({ level: logLevel, prefix: 'CheerioCrawler' }),
        ...crawlerOptions,
        proxyConfiguration: proxyUrl ? new ProxyConfiguration({ proxyUrls: [proxyUrl] }) : crawlerOptions.proxyConfiguration,
        preNavigationHooks: [...(crawlerOptions.preNavigationHooks ?? []), guardBeforeNavigation],
        postNavigationHooks: [guardAfterNavigation, ...(crawlerOptions.postNavigationHooks ?? [])],
      }, config, signal)
    },
  }
}
