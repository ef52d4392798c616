// Fetches a store's catalogue: Shopify /products.json pages, the WooCommerce
// Store API pages, or (neither answering) a sitemap-led crawl of product pages
// read for schema.org JSON-LD. Parsing lives in extract.ts.
import { eachItem, ExtractionError, InputError, listItems, ResponseTooLargeError, ToolBlockedError, UpstreamError, type ToolContext } from '../../core/tools/contract.ts'
import { STORES_LIST } from './list.ts'
import type { Platform, ProductRow, ProductsInput } from './schema.ts'
import type { ProductsSettings } from './settings.ts'
import {
  looksLikeProductUrl, robotsSitemaps,
  type readProductPage, type readSitemap, type readShopifyPage, type readWooPage, type shopifyPageProblem,
} from './extract.ts'

/** This folder's parsers, for the kernel's worker pool (ctx.extract.call). */
const EXTRACT_MODULE = new URL('./extract.ts', import.meta.url)

/** The context of one store's read: its input names that store alone. */
type Ctx = ToolContext<ProductsInput & { url: string }, ProductRow, ProductsSettings>

const SKIP_EXTENSIONS = /\.(?:pdf|jpe?g|png|gif|webp|svg|ico|css|js|json|zip|gz|mp[34]|mov|webm|woff2?|ttf|docx?|xlsx?|csv|txt)(?:$|\?)/i

export function storeBaseOf (input: string): URL {
  const trimmed = input.trim()
  let url: URL
  try { url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`) } catch {
    throw new InputError(`'${input}' is not a store address`)
  }
  if (!/^https?:$/.test(url.protocol) || !url.hostname.includes('.') && url.hostname !== 'localhost') throw new InputError(`'${input}' is not a store address`)
  return url
}

/** A refusal (rate limit, WAF, login) ends the job blocked; the status and where it happened say why. */
function refusal (status: number, url: string): ToolBlockedError | null {
  if (status === 429) return new ToolBlockedError(`${new URL(url).host} rate-limited the request (HTTP 429 on ${new URL(url).pathname})`)
  return null
}

const pushUpTo = async (ctx: Ctx, rows: ProductRow[], pushed: { n: number }): Promise<boolean> => {
  const room = Math.min(ctx.input.max_results - pushed.n, ctx.remaining())
  if (room <= 0) return false
  const kept = await ctx.push(rows.slice(0, room))
  pushed.n += kept
  return pushed.n < ctx.input.max_results && ctx.remaining() > 0
}

// ---------------------------------------------------------------- paged JSON catalogues

/**
 * The page sizes a catalogue page is asked for in when it is over the response
 * cap (MAX_RESPONSE_BYTES), down to one product: each the largest divisor of
 * the one before that is at most its half (250 → 125 → 25 → 5 → 1, 100 → 50 →
 * 25 → 5 → 1). Every smaller size divides the larger ones, so a smaller page
 * starts exactly where a larger one would: no product is read twice or missed.
 */
export function pageSizeLadder (size: number): number[] {
  const sizes = [Math.max(1, Math.floor(size))]
  for (let last = sizes[0]!; last > 1; last = sizes.at(-1)!) {
    let divisor = Math.floor(last / 2)
    while (last % divisor !== 0) divisor--
    sizes.push(divisor)
  }
  return sizes
}

/** One-product pages over the cap in a row after which the paging stops: a source answering every page that large is not a catalogue to read on. */
const OVERSIZED_IN_A_ROW = 5

/** One catalogue answer: a page, a page over the response cap, or the platform saying the pages have ended. */
type Fetched =
  | { kind: 'page', url: string, body: string, headers: Headers, read?: PageRead }
  | { kind: 'too-large', url: string, limitBytes: number }
  | { kind: 'failed', url: string, status: number }
  | { kind: 'end' }

interface PageRead { rows: ProductRow[], count: number }

/** A paged JSON catalogue (Shopify's /products.json, the WooCommerce Store API). */
interface Catalogue {
  /** Its name in stages and warnings. */
  name: string
  /** The configured page size, the largest asked for. */
  size: number
  /** Page `page` (1-based) at `size` products a page; a refusal throws. */
  fetch (size: number, page: number): Promise<Fetched>
  /** The rows of a fetched page; an answer that is not a catalogue page throws. */
  read (page: Extract<Fetched, { kind: 'page' }>): Promise<PageRead>
  /** Products in the whole catalogue when the platform says so (WooCommerce's X-WP-Total). */
  total? (page: Extract<Fetched, { kind: 'page' }>, size: number): number | null
}

/** The answers a probe already fetched, handed to the paging so no page is asked for twice. */
type Fetches = Map<string, Fetched>
const fetchKey = (size: number, page: number) => `${size}:${page}`

/** ctx.http's text read, with a body over the response cap as an answer (the page is asked for smaller), not a failure. */
async function fetchCatalogueText (ctx: Ctx, url: string): Promise<{ status: number, url: string, body: string, headers: Headers } | { tooLarge: number }> {
  try {
    return await ctx.http.text(url, { timeoutMs: 20_000 })
  } catch (err) {
    if (err instanceof ResponseTooLargeError) return { tooLarge: err.limitBytes }
    throw err
  }
}

/**
 * Reads a catalogue page after page and pushes its rows. A page over the
 * response cap is asked for again in smaller pages (pageSizeLadder); when every
 * page of a settled size had to be split and its halves read whole, the pages
 * after it are asked for at the smaller size at once. A single product over the
 * cap is left out with a warning naming its page, and the paging goes on.
 */
async function readCatalogue (ctx: Ctx, catalogue: Catalogue, fetched: Fetches): Promise<number> {
  const ladder = pageSizeLadder(catalogue.size)
  const pushed = { n: 0 }
  /** The size pages are asked for in; it drops when pages of it keep being over the cap. */
  let settled = ladder[0]!
  /** The largest size the next request may use: below `settled` while a page over the cap is being read in smaller ones. */
  let ceiling = settled
  /** Products before the next page. */
  let offset = 0
  let end = Infinity
  /** A page of the settled size being read in smaller pages: where it ends, the largest size read whole in it, and whether a product of it was left out. */
  let split: { end: number, largest: number, leftOut: boolean } | null = null
  const splitPages: string[] = []
  const leftOut: string[] = []
  let limitBytes = 0
  let oversizedInARow = 0
  const get = (size: number, page: number): Promise<Fetched> => {
    const known = fetched.get(fetchKey(size, page))
    fetched.delete(fetchKey(size, page))
    return known ? Promise.resolve(known) : catalogue.fetch(size, page)
  }
  while (offset < end) {
    if (ctx.signal.aborted) throw ctx.signal.reason
    // Always found: the ladder ends at 1, which divides every offset.
    const size = ladder.find(s => s <= ceiling && offset % s === 0)!
    const page = offset / size + 1
    if (page > 1 || size < settled) ctx.stage(`${catalogue.name}: page ${page} of ${size} products, ${pushed.n} products so far`)
    const answer = await get(size, page)
    if (answer.kind === 'end') break
    if (answer.kind === 'failed') throw new UpstreamError(`${answer.url} answered HTTP ${answer.status}`, answer.status)
    if (answer.kind === 'too-large') {
      limitBytes = answer.limitBytes
      const smaller = ladder[ladder.indexOf(size) + 1]
      if (smaller !== undefined) {
        if (size === settled) splitPages.push(answer.url)
        split ??= { end: offset + settled, largest: 0, leftOut: false }
        ceiling = smaller
        continue
      }
      leftOut.push(answer.url)
      if (split) split.leftOut = true
      offset += size
      ceiling = settled
      if (++oversizedInARow >= OVERSIZED_IN_A_ROW) {
        ctx.warn(`${catalogue.name}: ${OVERSIZED_IN_A_ROW} products in a row were each larger than the ${limitBytes}-byte response limit; the paging stopped there.`)
        break
      }
    } else {
      oversizedInARow = 0
      const read = answer.read ?? await catalogue.read(answer)
      const total = catalogue.total?.(answer, size) ?? null
      if (total !== null) end = total
      if (read.count === 0) break
      const more = await pushUpTo(ctx, read.rows, pushed)
      offset += size
      ceiling = settled
      if (split) split.largest = Math.max(split.largest, size)
      if (!more || read.count < size) break
    }
    if (split && offset >= split.end) {
      // Pages this size are over the cap: ask for the size that was read whole, not the larger one first.
      if (!split.leftOut && split.largest > 0) settled = split.largest
      ceiling = settled
      split = null
    }
  }
  if (splitPages.length > 0) {
    ctx.warn(`${catalogue.name}: ${splitPages.length === 1 ? 'a page was' : `${splitPages.length} pages were`} larger than the ${limitBytes}-byte response limit and asked for again in smaller pages (first ${splitPages[0]}); ${settled < ladder[0]! ? `later pages were asked for ${settled} products at a time` : 'no product was lost to it'}.`)
  }
  if (leftOut.length > 0) {
    ctx.warn(`${catalogue.name}: ${leftOut.length} product${leftOut.length === 1 ? ' was' : 's were'} left out, each larger than the ${limitBytes}-byte response limit on its own: ${leftOut.slice(0, 5).join(', ')}${leftOut.length > 5 ? `, and ${leftOut.length - 5} more` : ''}.`)
  }
  return pushed.n
}

/**
 * A probe's first page: asked for at the configured size, then smaller while
 * it is over the response cap. Every answer goes into `fetched` for the paging;
 * the first that is not over the cap is returned, or null when even one product
 * is.
 */
async function firstPage (catalogue: Catalogue, fetched: Fetches): Promise<Exclude<Fetched, { kind: 'too-large' }> | null> {
  for (const size of pageSizeLadder(catalogue.size)) {
    const answer = await catalogue.fetch(size, 1)
    fetched.set(fetchKey(size, 1), answer)
    if (answer.kind !== 'too-large') return answer
  }
  return null
}

// ---------------------------------------------------------------- Shopify

async function shopifyCurrency (ctx: Ctx, origin: string): Promise<string | null> {
  // /meta.json names the shop's currency; products.json does not.
  try {
    const res = await ctx.http.json<Record<string, unknown>>(new URL('/meta.json', origin), { timeoutMs: 10_000 })
    const c = res.status === 200 ? res.body?.currency : null
    return typeof c === 'string' && /^[A-Z]{3}$/.test(c) ? c : null
  } catch { return null }
}

function shopifyCatalogue (ctx: Ctx, origin: string): Catalogue & { currency: string | null } {
  return {
    name: 'Shopify catalogue',
    size: ctx.settings.shopify_page_size,
    currency: null,
    async fetch (size, page) {
      const url = new URL(`/products.json?limit=${size}&page=${page}`, origin).toString()
      const res = await fetchCatalogueText(ctx, url)
      if ('tooLarge' in res) return { kind: 'too-large', url, limitBytes: res.tooLarge }
      const refused = refusal(res.status, url)
      if (refused) throw refused
      if (/\/password(\?|$)/.test(new URL(res.url || url).pathname)) throw new ToolBlockedError(`${new URL(origin).host} is password-protected (Shopify storefront password page)`)
      if (res.status !== 200) return { kind: 'failed', url, status: res.status }
      return { kind: 'page', url, body: res.body, headers: res.headers }
    },
    async read (page) {
      // Parsed and mapped in the kernel's worker pool: megabytes of JSON and a description per product.
      const read = await ctx.extract.call<ReturnType<typeof readShopifyPage>>(EXTRACT_MODULE, 'readShopifyPage', [page.body, origin, this.currency, page.url])
      if ('why' in read) throw new UpstreamError(read.why === 'not-json' ? `${page.url} did not answer JSON` : `${page.url} answered JSON without a products list`)
      return read
    },
  }
}

async function runShopify (ctx: Ctx, origin: string, catalogue: ReturnType<typeof shopifyCatalogue>, fetched: Fetches): Promise<number> {
  catalogue.currency = await shopifyCurrency(ctx, origin)
  if (!catalogue.currency) ctx.warn('The shop did not publish its currency (/meta.json); prices are in the shop\'s own currency.')
  return readCatalogue(ctx, catalogue, fetched)
}

// ---------------------------------------------------------------- WooCommerce

function wooCatalogue (ctx: Ctx, origin: string): Catalogue {
  return {
    name: 'WooCommerce catalogue',
    size: ctx.settings.woo_page_size,
    async fetch (size, page) {
      const url = new URL(`/wp-json/wc/store/v1/products?per_page=${size}&page=${page}`, origin).toString()
      const res = await fetchCatalogueText(ctx, url)
      if ('tooLarge' in res) return { kind: 'too-large', url, limitBytes: res.tooLarge }
      const refused = refusal(res.status, url)
      if (refused) throw refused
      // WordPress answers 400 rest_post_invalid_page_number past the last page.
      if (res.status === 400 && /invalid_page_number/.test(res.body) && page > 1) return { kind: 'end' }
      if (res.status !== 200) return { kind: 'failed', url, status: res.status }
      return { kind: 'page', url, body: res.body, headers: res.headers }
    },
    async read (page) {
      // Parsed and mapped in the kernel's worker pool, like Shopify's pages.
      const read = await ctx.extract.call<ReturnType<typeof readWooPage>>(EXTRACT_MODULE, 'readWooPage', [page.body, page.url])
      if ('why' in read) throw new UpstreamError(read.why === 'not-json' ? `${page.url} did not answer JSON` : `${page.url} answered JSON that is not a product list`)
      return read
    },
    total (page, size) {
      // X-WP-Total counts products; X-WP-TotalPages counts pages of the size asked, so at most that many products.
      const total = Number(page.headers.get('x-wp-total'))
      if (page.headers.has('x-wp-total') && Number.isInteger(total) && total >= 0) return total
      const pages = Number(page.headers.get('x-wp-totalpages'))
      return pages > 0 ? pages * size : null
    },
  }
}

// ---------------------------------------------------------------- schema.org crawl

async function sitemapUrls (ctx: Ctx, start: URL, budget: number): Promise<string[]> {
  const settings = ctx.settings
  const maxSitemaps = settings.max_sitemaps
  const queue: string[] = []
  try {
    const robots = await ctx.http.text(new URL('/robots.txt', start.origin), { timeoutMs: 10_000, maxBytes: 512 * 1024 })
    if (robots.status === 200) queue.push(...robotsSitemaps(robots.body).filter(u => { try { return new URL(u).hostname === start.hostname } catch { return false } }))
  } catch {}
  if (queue.length === 0) queue.push(new URL('/sitemap.xml', start.origin).toString())
  const pages: string[] = []
  const seen = new Set<string>()
  for (let fetched = 0; queue.length > 0 && fetched < maxSitemaps && pages.length < budget * 4; fetched++) {
    const sitemap = queue.shift()!
    if (seen.has(sitemap)) continue
    seen.add(sitemap)
    try {
      const res = await ctx.http.text(sitemap, { timeoutMs: 15_000, maxBytes: 10 * 1024 * 1024 })
      if (res.status !== 200) continue
      // Up to 10 MB of XML: read in the worker pool, not on the API's event loop.
      const read = await ctx.extract.call<ReturnType<typeof readSitemap>>(EXTRACT_MODULE, 'readSitemap', [res.body])
      const locs = read.locations.filter(u => { try { return new URL(u).hostname === start.hostname } catch { return false } })
      if (read.index) {
        // Product sitemaps (Shopify's sitemap_products_1, Yoast's product-sitemap) before the rest.
        const children = [...locs.filter(u => /product/i.test(u)), ...locs.filter(u => !/product/i.test(u))]
        queue.unshift(...children.filter(u => /product/i.test(u)))
        queue.push(...children.filter(u => !/product/i.test(u)))
      } else {
        pages.push(...locs.filter(u => !SKIP_EXTENSIONS.test(u)))
      }
    } catch {}
  }
  const unique = [...new Set(pages)]
  return [...unique.filter(looksLikeProductUrl), ...unique.filter(u => !looksLikeProductUrl(u))]
}

async function runSchemaOrg (ctx: Ctx, start: URL): Promise<number> {
  const settings = ctx.settings
  const maxPages = ctx.input.max_pages
  const concurrency = settings.concurrency
  const timeoutMs = settings.page_timeout_ms
  const pushed = { n: 0 }
  const seenPages = new Set<string>()
  const seenProducts = new Set<string>()
  const fromSitemap = await sitemapUrls(ctx, start, maxPages)
  const queue: string[] = [...fromSitemap]
  // Without a sitemap the crawl starts from the given page and follows its links.
  if (!queue.includes(start.toString())) fromSitemap.length ? queue.push(start.toString()) : queue.unshift(start.toString())
  let fetched = 0
  let loaded = 0
  let firstRefusal: string | null = null
  let firstFailure: string | null = null
  let done = false

  const worker = async (): Promise<void> => {
    while (!done && queue.length > 0 && fetched < maxPages) {
      if (ctx.signal.aborted) return
      const url = queue.shift()!
      if (seenPages.has(url)) continue
      seenPages.add(url)
      fetched++
      let res: { status: number, url: string, body: string, headers: Headers }
      try {
        res = await ctx.http.text(url, { timeoutMs, maxBytes: 8 * 1024 * 1024 })
      } catch (err) {
        firstFailure ??= `${url}: ${(err as Error).message}`
        continue
      }
      if (res.status === 429 || res.status === 403) {
        firstRefusal ??= `HTTP ${res.status} on ${new URL(url).pathname}`
        // A rate limit means every further request is refused too.
        if (res.status === 429) { done = true; return }
        continue
      }
      if (res.status !== 200 || !/html/i.test(res.headers.get('content-type') ?? 'text/html')) continue
      // Parsed in the kernel's worker pool: a page the parser cannot handle is skipped like one that failed to load.
      let read: ReturnType<typeof readProductPage>
      try {
        read = await ctx.extract.call<ReturnType<typeof readProductPage>>(EXTRACT_MODULE, 'readProductPage', [res.body, res.url || url])
      } catch (err) {
        if (ctx.signal.aborted || !(err instanceof ExtractionError)) throw err
        firstFailure ??= `${url}: ${err.message}`
        continue
      }
      loaded++
      const found = read.products
        .filter(p => {
          const key = `${p.url ?? ''}|${p.sku ?? ''}|${p.title}`
          if (seenProducts.has(key)) return false
          seenProducts.add(key)
          return true
        })
      ctx.stage(`schema.org crawl: ${fetched} of up to ${maxPages} pages, ${pushed.n + found.length} products`)
      if (found.length && !await pushUpTo(ctx, found, pushed)) { done = true; return }
      // Listing pages lead to product pages; product pages rarely need following once the sitemap gave the rest.
      const next = read.links
        .filter(u => !seenPages.has(u) && !SKIP_EXTENSIONS.test(u) && new URL(u).hostname === start.hostname)
      const productLike = next.filter(looksLikeProductUrl)
      queue.unshift(...productLike.filter(u => !queue.includes(u)))
      queue.push(...next.filter(u => !looksLikeProductUrl(u) && !queue.includes(u)))
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  if (ctx.signal.aborted) throw ctx.signal.reason
  if (loaded === 0) {
    if (firstRefusal) throw new ToolBlockedError(`${start.host} refused the crawler (${firstRefusal})`)
    throw new UpstreamError(`no page of ${start.host} could be loaded${firstFailure ? `: ${firstFailure}` : ''}`)
  }
  if (firstRefusal && pushed.n === 0) throw new ToolBlockedError(`${start.host} refused the crawler (${firstRefusal})`)
  if (firstRefusal) ctx.warn(`${start.host} refused some pages (${firstRefusal}); the list may be incomplete.`)
  if (pushed.n === 0) ctx.warn(`No schema.org Product markup was found on the ${loaded} pages read; the store may render products with JavaScript only.`)
  return pushed.n
}

// ---------------------------------------------------------------- detection

type Probe = { kind: 'yes' } | { kind: 'no', why: string }

/** Whether /products.json answers as a Shopify catalogue; its first page goes into `fetched`. */
async function probeShopify (ctx: Ctx, catalogue: Catalogue, fetched: Fetches): Promise<Probe> {
  const first = await firstPage(catalogue, fetched)
  if (first?.kind === 'failed') return { kind: 'no', why: `products.json answered HTTP ${first.status}` }
  if (first === null) return { kind: 'no', why: 'products.json is larger than the response limit even one product per page' }
  if (first.kind === 'end') return { kind: 'no', why: 'products.json answered no page' }
  // Checked in the worker pool; the page is mapped there again once the shop's currency is known.
  const problem = await ctx.extract.call<ReturnType<typeof shopifyPageProblem>>(EXTRACT_MODULE, 'shopifyPageProblem', [first.body])
  return problem === null ? { kind: 'yes' } : { kind: 'no', why: problem }
}

/** Whether the WooCommerce Store API answers with a product list; its first page, read, goes into `fetched`. */
async function probeWoo (ctx: Ctx, catalogue: Catalogue, fetched: Fetches): Promise<Probe> {
  const first = await firstPage(catalogue, fetched)
  if (first?.kind === 'failed') return { kind: 'no', why: `the Store API answered HTTP ${first.status}` }
  if (first === null) return { kind: 'no', why: 'the Store API answer is larger than the response limit even one product per page' }
  if (first.kind === 'end') return { kind: 'no', why: 'the Store API answered no page' }
  const read = await ctx.extract.call<ReturnType<typeof readWooPage>>(EXTRACT_MODULE, 'readWooPage', [first.body, first.url])
  if ('why' in read) return { kind: 'no', why: read.why === 'not-json' ? 'the Store API answer is not JSON' : 'the Store API answer is not a list' }
  first.read = read
  return { kind: 'yes' }
}

/**
 * One store or a list of them, read in turn under the list's failure policy
 * (list.ts); every row names its store (store_url). One store's summary is the
 * job's; a list's has one entry per store under `stores`, a failed store's
 * with its `error`.
 */
export async function runProducts (ctx: ToolContext<ProductsInput, ProductRow, ProductsSettings>): Promise<void> {
  const stores = listItems(ctx, STORES_LIST)
  const summaries: Array<Record<string, unknown>> = []
  try {
    await eachItem(ctx, STORES_LIST, stores, async (store, index, push) => {
      const summary: Record<string, unknown> = { store_url: store }
      summaries.push(summary)
      const storeCtx: Ctx = {
        ...ctx,
        input: { ...ctx.input, url: store },
        push: rows => push(rows.map(row => ({ store_url: store, ...row }))),
        stage: text => ctx.stage(stores.length > 1 ? `store ${index + 1} of ${stores.length} (${store}): ${text}` : text),
        summary: data => Object.assign(summary, data),
      }
      try {
        await readStore(storeCtx)
      } catch (err) {
        summary.error = (err as Error).message
        throw err
      }
      return []
    }, {
      stage: (index, total, store) => total > 1 ? `store ${index + 1} of ${total} (${store})` : `Reading ${store}`,
      label: store => `${store.slice(0, 120)} failed`,
    })
  } finally {
    if (stores.length === 1) ctx.summary(Object.fromEntries(Object.entries(summaries[0] ?? {}).filter(([field]) => field !== 'store_url')))
    else ctx.summary({ stores: summaries })
  }
}

async function readStore (ctx: Ctx): Promise<void> {
  const start = storeBaseOf(ctx.input.url)
  const origin = start.origin
  const wanted = ctx.input.platform
  let platform: Platform | null = null
  let count = 0

  if (wanted === 'auto' || wanted === 'shopify') {
    ctx.stage('Looking for a Shopify catalogue')
    const catalogue = shopifyCatalogue(ctx, origin)
    const fetched: Fetches = new Map()
    const probe = await probeShopify(ctx, catalogue, fetched)
    if (probe.kind === 'yes') { platform = 'shopify'; count = await runShopify(ctx, origin, catalogue, fetched) }
    else if (wanted === 'shopify') throw new UpstreamError(`${start.host} is not answering as a Shopify store: ${probe.why}`)
  }
  if (!platform && (wanted === 'auto' || wanted === 'woocommerce')) {
    ctx.stage('Looking for the WooCommerce Store API')
    const catalogue = wooCatalogue(ctx, origin)
    const fetched: Fetches = new Map()
    const probe = await probeWoo(ctx, catalogue, fetched)
    if (probe.kind === 'yes') { platform = 'woocommerce'; count = await readCatalogue(ctx, catalogue, fetched) }
    else if (wanted === 'woocommerce') throw new UpstreamError(`${start.host} is not answering as a WooCommerce store: ${probe.why}`)
  }
  if (!platform) {
    platform = 'schemaorg'
    ctx.stage('Crawling the sitemap for schema.org products')
    count = await runSchemaOrg(ctx, start)
  }
  ctx.summary({ platform, products: count })
  if (count === 0 && platform !== 'schemaorg') ctx.warn(`The ${platform} catalogue of ${start.host} is empty.`)
}
