// Crawls one site at a time through the kernel's guarded Crawlee factory:
// the start page, the sitemap's same-site pages, then links, contact-like
// pages first; stops at max_pages. Pages go to SiteFindingsBuilder (pure).
import { BlockedTargetError, ExtractionError, InputError, MissingCredentialError, ToolBlockedError, UpstreamError, type ToolContext } from '../../core/tools/contract.ts'
import { pageScanner, type PageContacts } from '../lib/page-scanner.ts'
import { siteHost } from '../lib/domains.ts'
import { isPriorityPage, MAX_CONTACTS_PER_SITE, sameSite, SiteFindingsBuilder, startUrlOf, type SiteFindings, type sitemapLocations } from './findings.ts'
import type { WebemailSettings } from './settings.ts'

export interface WebemailInput {
  website: string | string[]
  max_pages: number
  include_phones: boolean
  include_socials: boolean
}

type WebemailContext = ToolContext<WebemailInput, Record<string, unknown>, WebemailSettings>

/** This folder's pure parsers, for the kernel's worker pool (ctx.extract.call). */
const FINDINGS_MODULE = new URL('./findings.ts', import.meta.url)

const SKIP_EXTENSIONS = /\.(?:pdf|jpe?g|png|gif|webp|svg|ico|css|js|json|xml|zip|gz|rar|7z|mp[34]|mov|avi|webm|woff2?|ttf|eot|docx?|xlsx?|pptx?|csv|txt)(?:$|\?)/i

/** Phones written without +country are read in the site's country when its TLD names one. */
function countryFromHost (host: string, fallback: string): string {
  const tld = host.split('.').pop()!.toUpperCase()
  if (tld === 'UK') return 'GB'
  return /^[A-Z]{2}$/.test(tld) && !['IO', 'AI', 'CO', 'ME', 'TV', 'CC', 'AP'].includes(tld) ? tld : fallback
}

const canonical = (url: string) => {
  const u = new URL(url)
  u.hash = ''
  return u.toString()
}

async function sitemapPages (ctx: WebemailContext, start: URL, budget: number): Promise<string[]> {
  const found: string[] = []
  const queue = [new URL('/sitemap.xml', start).toString()]
  for (let fetched = 0; queue.length > 0 && fetched < 4 && found.length < budget; fetched++) {
    const sitemapUrl = queue.shift()!
    try {
      const res = await ctx.http.text(sitemapUrl, { timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024 })
      if (res.status !== 200) continue
      // Up to 5 MB of XML: read in the worker pool, not on the API's event loop.
      for (const loc of await ctx.extract.call<ReturnType<typeof sitemapLocations>>(FINDINGS_MODULE, 'sitemapLocations', [res.body])) {
        if (!sameSite(loc, start.hostname)) continue
        if (/\.xml(\.gz)?($|\?)/i.test(loc)) queue.push(loc)
        else if (!SKIP_EXTENSIONS.test(loc)) found.push(loc)
      }
    } catch {
      // No sitemap is common; the crawl goes on from links.
    }
  }
  return found.sort((a, b) => Number(isPriorityPage(b)) - Number(isPriorityPage(a))).slice(0, budget)
}

export async function crawlSite (ctx: WebemailContext, website: string): Promise<SiteFindings> {
  let start: URL
  // The schema's WebsiteUrl pattern refuses most malformed addresses before the job; what only a URL parser finds is the input's fault too.
  try { start = startUrlOf(website) } catch { throw new InputError(`'${website}' is not a website address`) }
  const settings = ctx.settings
  const builder = new SiteFindingsBuilder(website, siteHost(start.hostname), {
    includePhones: ctx.input.include_phones,
    includeSocials: ctx.input.include_socials,
    defaultCountry: countryFromHost(start.hostname, settings.default_phone_country.toUpperCase()),
  })
  const maxPages = ctx.input.max_pages
  const seen = new Set<string>()
  const failures: string[] = []
  /** Pages loaded but not scanned (ExtractionError), with the reason. */
  const unscanned: string[] = []
  let blocked: string | null = null
  let refusedTarget: BlockedTargetError | null = null

  const crawler = ctx.crawler.http({
    maxRequestsPerCrawl: maxPages,
    maxConcurrency: settings.concurrency,
    maxRequestRetries: 1,
    navigationTimeoutSecs: settings.page_timeout_ms / 1000,
    // The handler waits for the page's scan in the worker pool, which has its own limit
    // (EXTRACT_TASK_TIMEOUT_MS) and may queue behind other pages' scans: room for both.
    requestHandlerTimeoutSecs: settings.page_timeout_ms / 1000 * 2 + 60,
    async requestHandler ({ request, body }) {
      const loaded = request.loadedUrl ?? request.url
      // A redirect that left the site: nothing of that page is ours.
      if (!sameSite(loaded, start.hostname)) return
      const key = canonical(loaded)
      if (seen.has(key)) return
      seen.add(key)
      if (builder.pagesScanned >= maxPages) return
      // Scanning (and reading the links) runs in the kernel's worker pool; a page the
      // scanners cannot handle (too slow, too deep) is that page's failure, not the site's.
      let found: PageContacts
      try {
        found = await pageScanner(ctx.extract).contacts(typeof body === 'string' ? body : body.toString('utf8'), loaded, builder.scanOptions)
      } catch (err) {
        if (!(err instanceof ExtractionError)) throw err
        unscanned.push(`${loaded}: ${err.message}`)
        return
      }
      builder.addScanned(found, loaded)
      ctx.stage(`${website}: ${builder.pagesScanned} of up to ${maxPages} pages scanned`)
      const links = found.links.filter(abs => sameSite(abs, start.hostname) && !SKIP_EXTENSIONS.test(abs) && !seen.has(abs))
      const priority = links.filter(isPriorityPage)
      const rest = links.filter(l => !isPriorityPage(l))
      if (priority.length) await crawler.addRequests(priority.map(url => ({ url })), { forefront: true })
      if (rest.length) await crawler.addRequests(rest.map(url => ({ url })))
    },
    failedRequestHandler ({ request }, error) {
      if (error instanceof BlockedTargetError) refusedTarget ??= error
      const message = error instanceof Error ? error.message : String(error)
      if (/\b(403|429)\b|blocked/i.test(message) && canonical(request.url) === canonical(start.toString())) blocked = message
      failures.push(`${request.url}: ${message.slice(0, 200)}`)
      ctx.log.debug({ url: request.url, err: message.slice(0, 200) }, 'page failed')
    },
  })

  // Contact-like sitemap pages go with the start page; the rest wait behind the links found on it.
  const fromSitemap = await sitemapPages(ctx, start, Math.max(0, maxPages - 1))
  // The scanners' workers start now, not inside the first pages' handler time limit.
  await pageScanner(ctx.extract).ready()
  const later = fromSitemap.filter(u => !isPriorityPage(u))
  await crawler.addRequests([start.toString(), ...fromSitemap.filter(isPriorityPage)])
  if (later.length) await crawler.addRequests(later)
  await crawler.run()
  if (ctx.signal.aborted) throw ctx.signal.reason
  if (builder.pagesScanned === 0) {
    if (refusedTarget) throw refusedTarget
    if (blocked) throw new ToolBlockedError(`${website} refused the crawler (${blocked})`)
    if (unscanned.length) throw new UpstreamError(`no page of ${website} could be scanned: ${unscanned[0]}`)
    throw new UpstreamError(`no page of ${website} could be loaded${failures[0] ? `: ${failures[0]}` : ''}`)
  }
  if (builder.leftOut > 0) ctx.warn(`${website}: more than ${MAX_CONTACTS_PER_SITE} e-mail addresses, phone numbers or social links of one kind; ${builder.leftOut} more were left out.`)
  if (unscanned.length) ctx.warn(`${website}: ${unscanned.length} page(s) could not be scanned (${unscanned[0]}${unscanned.length > 1 ? ', …' : ''}).`)
  return builder.build()
}

export async function runWebemail (ctx: WebemailContext): Promise<void> {
  const websites = [...new Set((Array.isArray(ctx.input.website) ? ctx.input.website : [ctx.input.website]).map(w => w.trim()).filter(Boolean))]
  let emails = 0
  for (const website of websites) {
    if (ctx.remaining() <= 0 || ctx.signal.aborted) break
    if (websites.length === 1) {
      const row = await crawlSite(ctx, website)
      emails += row.count
      await ctx.push([row])
      break
    }
    // In a batch one bad site does not sink the others: its row carries the error.
    try {
      const row = await crawlSite(ctx, website)
      emails += row.count
      await ctx.push([row])
    } catch (err) {
      if (ctx.signal.aborted || err instanceof MissingCredentialError) throw err
      await ctx.push([{ website, domain: '', pages_scanned: 0, emails: [], phones: [], socials: [], results: [], count: 0, error: (err as Error).message }])
    }
  }
  if (emails === 0) ctx.warn('No e-mail address was found on the pages scanned.')
}
