// Fetches a store's catalogue: Shopify /products.json pages, the WooCommerce
// Store API pages, or (neither answering) a sitemap-led crawl of product pages
// read for schema.org JSON-LD. Parsing lives in extract.ts.
import { batchOf, ExtractionError, InputError, ToolBlockedError, UpstreamError, type ToolContext } from '../../core/tools/contract.ts'
import type { ProductsSettings } from './settings.ts'
import {
  looksLikeProductUrl, robotsSitemaps,
  type Platform, type ProductRow, type readProductPage, type readSitemap, type readShopifyPage, type readWooPage, type shopifyPageProblem,
} from './extract.ts'

/** This folder's parsers, for the kernel's worker pool (ctx.extract.call). */
const EXTRACT_MODULE = new URL('./extract.ts', import.meta.url)

export interface ProductsInput {
  url: string | string[]
  platform: 'auto' | Platform
  max_results: number
  max_pages: number
}


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

// ---------------------------------------------------------------- Shopify

async function shopifyCurrency (ctx: Ctx, origin: string): Promise<string | null> {
  // /meta.json names the shop's currency; products.json does not.
  try {
    const res = await ctx.http.json<Record<string, unknown>>(new URL('/meta.json', origin), { timeoutMs: 10_000 })
    const c = res.status === 200 ? res.body?.currency : null
    return typeof c === 'string' && /^[A-Z]{3}$/.test(c) ? c : null
  } catch { return null }
}

async function runShopify (ctx: Ctx, origin: string, firstPage: string): Promise<number> {
  const settings = ctx.settings
  const limit = settings.shopify_page_size
  const currency = await shopifyCurrency(ctx, origin)
  if (!currency) ctx.warn('The shop did not publish its currency (/meta.json); prices are in the shop\'s own currency.')
  const pushed = { n: 0 }
  for (let page = 1; ; page++) {
    const url = new URL(`/products.json?limit=${limit}&page=${page}`, origin).toString()
    let text = page === 1 ? firstPage : null
    if (text === null) {
      ctx.stage(`Shopify catalogue: page ${page}, ${pushed.n} products so far`)
      const res = await ctx.http.text(url, { timeoutMs: 20_000 })
      const refused = refusal(res.status, url)
      if (refused) throw refused
      if (res.status !== 200) throw new UpstreamError(`${url} answered HTTP ${res.status}`, res.status)
      text = res.body
    }
    // Parsed and mapped in the kernel's worker pool: megabytes of JSON and a description per product.
    const read = await ctx.extract.call<ReturnType<typeof readShopifyPage>>(EXTRACT_MODULE, 'readShopifyPage', [text, origin, currency, url])
    if ('why' in read) throw new UpstreamError(read.why === 'not-json' ? `${url} did not answer JSON` : `${url} answered JSON without a products list`)
    if (read.count === 0) break
    if (!await pushUpTo(ctx, read.rows, pushed)) break
    if (read.count < limit) break
    if (ctx.signal.aborted) throw ctx.signal.reason
  }
  return pushed.n
}

// ---------------------------------------------------------------- WooCommerce

type WooPage = Exclude<ReturnType<typeof readWooPage>, { why: string }>

async function runWoo (ctx: Ctx, origin: string, firstPage: WooPage, firstTotalPages: number | null): Promise<number> {
  const settings = ctx.settings
  const perPage = settings.woo_page_size
  const pushed = { n: 0 }
  let totalPages = firstTotalPages
  for (let page = 1; ; page++) {
    if (totalPages !== null && page > totalPages) break
    const url = new URL(`/wp-json/wc/store/v1/products?per_page=${perPage}&page=${page}`, origin).toString()
    let read = page === 1 ? firstPage : null
    if (!read) {
      ctx.stage(`WooCommerce catalogue: page ${page}${totalPages ? ` of ${totalPages}` : ''}, ${pushed.n} products so far`)
      const res = await ctx.http.text(url, { timeoutMs: 20_000 })
      const refused = refusal(res.status, url)
      if (refused) throw refused
      // WordPress answers 400 rest_post_invalid_page_number past the last page.
      if (res.status === 400 && /invalid_page_number/.test(res.body)) break
      if (res.status !== 200) throw new UpstreamError(`${url} answered HTTP ${res.status}`, res.status)
      // Parsed and mapped in the kernel's worker pool, like Shopify's pages.
      const answer = await ctx.extract.call<ReturnType<typeof readWooPage>>(EXTRACT_MODULE, 'readWooPage', [res.body, url])
      if ('why' in answer) throw new UpstreamError(answer.why === 'not-json' ? `${url} did not answer JSON` : `${url} answered JSON that is not a product list`)
      read = answer
      totalPages ??= Number(res.headers.get('x-wp-totalpages')) || null
    }
    if (read.count === 0) break
    if (!await pushUpTo(ctx, read.rows, pushed)) break
    if (read.count < perPage) break
    if (ctx.signal.aborted) throw ctx.signal.reason
  }
  return pushed.n
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
  const concurrency = settings.crawl_concurrency
  const timeoutMs = settings.page_timeout_secs * 1000
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

type ShopifyProbe = { kind: 'yes', firstPage: string } | { kind: 'no', why: string }
type WooProbe = { kind: 'yes', first: WooPage, totalPages: number | null } | { kind: 'no', why: string }

async function probeShopify (ctx: Ctx, origin: string): Promise<ShopifyProbe> {
  const limit = ctx.settings.shopify_page_size
  const url = new URL(`/products.json?limit=${limit}&page=1`, origin).toString()
  const res = await ctx.http.text(url, { timeoutMs: 20_000 })
  const refused = refusal(res.status, url)
  if (refused) throw refused
  if (/\/password(\?|$)/.test(new URL(res.url || url).pathname)) throw new ToolBlockedError(`${new URL(origin).host} is password-protected (Shopify storefront password page)`)
  if (res.status !== 200) return { kind: 'no', why: `products.json answered HTTP ${res.status}` }
  // Checked in the worker pool; the page is mapped there again once the shop's currency is known.
  const problem = await ctx.extract.call<ReturnType<typeof shopifyPageProblem>>(EXTRACT_MODULE, 'shopifyPageProblem', [res.body])
  return problem === null ? { kind: 'yes', firstPage: res.body } : { kind: 'no', why: problem }
}

async function probeWoo (ctx: Ctx, origin: string): Promise<WooProbe> {
  const perPage = ctx.settings.woo_page_size
  const url = new URL(`/wp-json/wc/store/v1/products?per_page=${perPage}&page=1`, origin).toString()
  const res = await ctx.http.text(url, { timeoutMs: 20_000 })
  const refused = refusal(res.status, url)
  if (refused) throw refused
  if (res.status !== 200) return { kind: 'no', why: `the Store API answered HTTP ${res.status}` }
  const read = await ctx.extract.call<ReturnType<typeof readWooPage>>(EXTRACT_MODULE, 'readWooPage', [res.body, url])
  if ('why' in read) return { kind: 'no', why: read.why === 'not-json' ? 'the Store API answer is not JSON' : 'the Store API answer is not a list' }
  return { kind: 'yes', first: read, totalPages: Number(res.headers.get('x-wp-totalpages')) || null }
}

/**
 * One store or a list of them, read in turn; every row names its store
 * (store_url). One store that fails does not sink the others: it is warned
 * about; when every store fails, the last failure is the job's.
 */
export async function runProducts (ctx: ToolContext<ProductsInput, ProductRow, ProductsSettings>): Promise<void> {
  const stores = batchOf(ctx, typeof ctx.input.url === 'string' ? [ctx.input.url] : ctx.input.url, 'stores')
  const summaries: Array<Record<string, unknown>> = []
  let lastError: unknown = null
  let answered = 0
  for (const [index, store] of stores.entries()) {
    if (ctx.signal.aborted) break
    if (ctx.remaining() <= 0) {
      ctx.warn(`Only ${index} of ${stores.length} stores were read: the per-run row limit was reached.`)
      break
    }
    const summary: Record<string, unknown> = { store_url: store }
    const storeCtx: Ctx = {
      ...ctx,
      input: { ...ctx.input, url: store },
      push: rows => ctx.push(rows.map(row => ({ store_url: store, ...row }))),
      stage: text => ctx.stage(stores.length > 1 ? `store ${index + 1} of ${stores.length} (${store}): ${text}` : text),
      summary: data => Object.assign(summary, data),
    }
    try {
      await readStore(storeCtx)
      answered++
    } catch (err) {
      // One store alone: its failure is the job's, as before lists existed.
      if (ctx.signal.aborted || stores.length === 1) throw err
      lastError = err
      summary.error = (err as Error).message
      ctx.warn(`${store} failed: ${(err as Error).message}`)
    }
    summaries.push(summary)
  }
  if (stores.length === 1) ctx.summary(Object.fromEntries(Object.entries(summaries[0] ?? {}).filter(([k]) => k !== 'store_url')))
  else ctx.summary({ stores: summaries })
  if (answered === 0 && lastError) throw lastError
}

async function readStore (ctx: Ctx): Promise<void> {
  const start = storeBaseOf(ctx.input.url)
  const origin = start.origin
  const wanted = ctx.input.platform
  let platform: Platform | null = null
  let count = 0

  if (wanted === 'auto' || wanted === 'shopify') {
    ctx.stage('Looking for a Shopify catalogue')
    const probe = await probeShopify(ctx, origin)
    if (probe.kind === 'yes') { platform = 'shopify'; count = await runShopify(ctx, origin, probe.firstPage) }
    else if (wanted === 'shopify') throw new UpstreamError(`${start.host} is not answering as a Shopify store: ${probe.why}`)
  }
  if (!platform && (wanted === 'auto' || wanted === 'woocommerce')) {
    ctx.stage('Looking for the WooCommerce Store API')
    const probe = await probeWoo(ctx, origin)
    if (probe.kind === 'yes') { platform = 'woocommerce'; count = await runWoo(ctx, origin, probe.first, probe.totalPages) }
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
