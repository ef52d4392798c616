// Pure parsers: a store's catalogue answer (Shopify /products.json, the
// WooCommerce Store API, or a product page's schema.org JSON-LD) -> product
// rows. No network here; run.ts fetches and pages.
import { load } from 'cheerio'
import { isRecord, textOf, type Json } from '../lib/json.ts'
import type { Platform, ProductAddOn, ProductOption, ProductRow, ProductVariant } from './schema.ts'

const DESCRIPTION_LIMIT = 5000

// ---------------------------------------------------------------- helpers

const isObject = isRecord
const asArray = <T = unknown>(v: unknown): T[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v as T[] : [v as T])

const str = textOf

/** "2370.00", 2370, "1,299.50" -> number; anything else -> null. */
export function toNumber (v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  if (typeof v !== 'string') return null
  const cleaned = v.trim().replace(/[^\d.,-]/g, '')
  if (cleaned === '') return null
  // "1.299,50" (comma decimals) vs "1,299.50": the last separator is the decimal one.
  const lastComma = cleaned.lastIndexOf(',')
  const lastDot = cleaned.lastIndexOf('.')
  const normalised = lastComma > lastDot && cleaned.length - lastComma - 1 !== 3
    ? cleaned.replace(/\./g, '').replace(',', '.')
    : cleaned.replace(/,/g, '')
  const n = Number(normalised)
  return Number.isFinite(n) ? n : null
}

const toInt = (v: unknown): number | null => {
  const n = toNumber(v)
  return n === null ? null : Math.trunc(n)
}

/** Visible text of an HTML fragment (entities decoded, whitespace collapsed), capped. */
export function htmlToText (html: unknown): string | null {
  if (typeof html !== 'string' || html.trim() === '') return null
  // Block ends become spaces so paragraphs do not run together. A store's JSON may carry lone
  // surrogates (a page body, decoded by TextDecoder, cannot): U+FFFD, as UTF-8 output would have
  // them, and parse5 7 throws on a lone low surrogate followed by another.
  const spaced = (h: string) => h.replace(/\p{Cs}/gu, '\uFFFD').replace(/<\/(?:p|div|li|h[1-6]|tr|td|th)>|<br\s*\/?>/gi, '$& ')
  let text = load(`<div>${spaced(html)}</div>`).text()
  // Some stores double-encode (&lt;p&gt;): a second pass removes the literal tags.
  if (/<\/?[a-z][^>]*>/i.test(text)) text = load(`<div>${spaced(text)}</div>`).text()
  const collapsed = text.replace(/\s+/g, ' ').trim()
  return collapsed === '' ? null : collapsed.slice(0, DESCRIPTION_LIMIT)
}

const uniq = (values: Array<string | null | undefined>): string[] => [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))]

const minOf = (values: Array<number | null>): number | null => {
  const ns = values.filter((n): n is number => n !== null)
  return ns.length ? Math.min(...ns) : null
}
const maxOf = (values: Array<number | null>): number | null => {
  const ns = values.filter((n): n is number => n !== null)
  return ns.length ? Math.max(...ns) : null
}

function absolute (url: string | null, base: string): string | null {
  if (!url) return null
  try { return new URL(url, base).toString() } catch { return null }
}

function emptyRow (platform: Platform, sourceUrl: string): ProductRow {
  return {
    platform, id: null, title: '', url: null, handle: null, sku: null, brand: null, product_type: null,
    categories: [], tags: [], description: null, price: null, price_max: null, compare_at_price: null,
    currency: null, available: null, stock_status: null, stock_quantity: null, images: [], options: [],
    variants: [], add_ons: [], rating: null, review_count: null, created_at: null, updated_at: null, source_url: sourceUrl,
  }
}

// ---------------------------------------------------------------- Shopify

/** The `products` array of a Shopify /products.json page, or null when the body is not one. */
export function shopifyProductsOf (body: unknown): Json[] | null {
  if (!isObject(body) || !Array.isArray(body.products)) return null
  return body.products.filter(isObject)
}

/**
 * One Shopify /products.json product. The storefront JSON carries no currency,
 * so it comes from the caller (the shop's /meta.json), or stays null.
 */
export function parseShopifyProduct (p: Json, storeBase: string, currency: string | null, sourceUrl: string): ProductRow {
  const row = emptyRow('shopify', sourceUrl)
  const optionNames = asArray<Json>(p.options).filter(isObject).map(o => str(o.name) ?? '')
  const options: ProductOption[] = asArray<Json>(p.options).filter(isObject)
    .map(o => ({ name: str(o.name) ?? '', values: asArray(o.values).map(str).filter((v): v is string => v !== null) }))
    // Shopify's placeholder for a product without options.
    .filter(o => !(o.name === 'Title' && o.values.length === 1 && o.values[0] === 'Default Title'))
  const handle = str(p.handle)
  const productUrl = handle ? absolute(`/products/${handle}`, storeBase) : null
  const variants: ProductVariant[] = asArray<Json>(p.variants).filter(isObject).map(v => {
    const chosen: Record<string, string> = {}
    for (let i = 0; i < 3; i++) {
      const value = str(v[`option${i + 1}`])
      const name = optionNames[i]
      if (value !== null && name && !(name === 'Title' && value === 'Default Title')) chosen[name] = value
    }
    const featured = isObject(v.featured_image) ? str(v.featured_image.src) : null
    const id = str(v.id)
    return {
      id,
      title: str(v.title),
      sku: str(v.sku),
      price: toNumber(v.price),
      compare_at_price: toNumber(v.compare_at_price),
      currency,
      available: typeof v.available === 'boolean' ? v.available : null,
      stock_quantity: toInt(v.inventory_quantity),
      options: chosen,
      image: featured,
      url: productUrl && id ? `${productUrl}?variant=${id}` : productUrl,
    }
  })
  const prices = variants.map(v => v.price)
  const cheapest = variants.find(v => v.price !== null && v.price === minOf(prices))
  const availability = variants.map(v => v.available).filter((a): a is boolean => a !== null)
  row.id = str(p.id)
  row.title = str(p.title) ?? ''
  row.handle = handle
  row.url = productUrl
  row.sku = variants.length === 1 ? variants[0]!.sku : null
  row.brand = str(p.vendor)
  row.product_type = str(p.product_type)
  row.categories = row.product_type ? [row.product_type] : []
  row.tags = Array.isArray(p.tags) ? uniq(p.tags.map(str)) : typeof p.tags === 'string' ? uniq(p.tags.split(',').map(s => s.trim())) : []
  row.description = htmlToText(p.body_html)
  row.price = minOf(prices)
  row.price_max = maxOf(prices)
  row.compare_at_price = cheapest?.compare_at_price ?? null
  row.currency = currency
  row.available = availability.length ? availability.some(Boolean) : null
  row.stock_status = row.available === null ? null : row.available ? 'in_stock' : 'out_of_stock'
  const quantities = variants.map(v => v.stock_quantity).filter((q): q is number => q !== null)
  row.stock_quantity = quantities.length ? quantities.reduce((a, b) => a + b, 0) : null
  row.images = uniq(asArray<Json>(p.images).filter(isObject).map(i => str(i.src)))
  row.options = options
  row.variants = variants
  row.created_at = str(p.created_at)
  row.updated_at = str(p.updated_at)
  return row
}

// ---------------------------------------------------------------- WooCommerce Store API

/** Store API amounts are integers in the currency's minor unit: "1999" with minor unit 2 is 19.99. */
export function minorToMajor (amount: unknown, minorUnit: unknown): number | null {
  const n = toNumber(amount)
  if (n === null) return null
  const unit = typeof minorUnit === 'number' && Number.isInteger(minorUnit) && minorUnit >= 0 && minorUnit <= 4 ? minorUnit : 2
  return Math.round(n) / 10 ** unit
}

/** Add-ons from Store API extensions (e.g. WooCommerce Product Add-Ons), read by shape, not by plugin name. */
function wooAddOns (extensions: unknown, minorUnit: unknown): ProductAddOn[] {
  const out: ProductAddOn[] = []
  if (!isObject(extensions)) return out
  for (const ext of Object.values(extensions)) {
    if (!isObject(ext)) continue
    const list = Array.isArray(ext.addons) ? ext.addons : Array.isArray(ext.add_ons) ? ext.add_ons : Array.isArray(ext.product_addons) ? ext.product_addons : null
    if (!list) continue
    for (const a of list.filter(isObject)) {
      const name = str(a.name) ?? str(a.title) ?? str(a.label)
      if (!name) continue
      out.push({
        name,
        type: str(a.type),
        required: typeof a.required === 'boolean' ? a.required : a.required === 1 || a.required === '1' ? true : a.required === 0 || a.required === '0' ? false : null,
        options: asArray<Json>(a.options).filter(isObject).map(o => ({
          label: str(o.label) ?? str(o.name) ?? '',
          // Add-on prices arrive either as decimal strings or, like the rest of the Store API, in minor units.
          price: typeof o.price === 'string' && o.price.includes('.') ? toNumber(o.price) : (o.price_minor !== undefined ? minorToMajor(o.price_minor, minorUnit) : toNumber(o.price)),
        })),
      })
    }
  }
  return out
}

export function parseWooProduct (p: Json, sourceUrl: string): ProductRow {
  const row = emptyRow('woocommerce', sourceUrl)
  const prices = isObject(p.prices) ? p.prices : {}
  const unit = prices.currency_minor_unit
  const range = isObject(prices.price_range) ? prices.price_range : null
  const price = minorToMajor(range?.min_amount ?? prices.price, unit)
  const priceMax = minorToMajor(range?.max_amount ?? prices.price, unit)
  const regular = minorToMajor(prices.regular_price, unit)
  const currency = str(prices.currency_code)
  const attributes = asArray<Json>(p.attributes).filter(isObject)
  const options: ProductOption[] = attributes.map(a => ({
    name: str(a.name) ?? '',
    values: asArray<Json>(a.terms).filter(isObject).map(t => str(t.name)).filter((v): v is string => v !== null),
  })).filter(o => o.name !== '')
  // Variation attributes name the taxonomy label or the attribute name: map both to the display name.
  const attributeLabel = new Map<string, string>()
  for (const a of attributes) {
    const name = str(a.name)
    if (!name) continue
    attributeLabel.set(name.toLowerCase(), name)
    const taxonomy = str(a.taxonomy)
    if (taxonomy) attributeLabel.set(taxonomy.toLowerCase(), name)
  }
  const termName = new Map<string, string>()
  for (const a of attributes) for (const t of asArray<Json>(a.terms).filter(isObject)) {
    const slug = str(t.slug); const name = str(t.name)
    if (slug && name) termName.set(slug.toLowerCase(), name)
  }
  const permalink = str(p.permalink)
  const variants: ProductVariant[] = asArray<Json>(p.variations).filter(isObject).map(v => {
    const chosen: Record<string, string> = {}
    for (const a of asArray<Json>(v.attributes).filter(isObject)) {
      const rawName = str(a.name)
      const rawValue = str(a.value)
      if (!rawName) continue
      const label = attributeLabel.get(rawName.toLowerCase()) ?? attributeLabel.get(`pa_${rawName.toLowerCase()}`) ?? rawName
      // An empty value means "any value of this attribute".
      chosen[label] = rawValue === null ? 'any' : termName.get(rawValue.toLowerCase()) ?? rawValue
    }
    const id = str(v.id)
    return {
      id, title: Object.values(chosen).join(' / ') || null, sku: null, price: null, compare_at_price: null,
      currency, available: null, stock_quantity: null, options: chosen, image: null,
      url: permalink && id ? permalink : null,
    }
  })
  const stock = isObject(p.stock_availability) ? p.stock_availability : {}
  const stockClass = str(stock.class)
  row.id = str(p.id)
  row.title = htmlToText(str(p.name)) ?? ''
  row.url = permalink
  row.handle = str(p.slug)
  row.sku = str(p.sku)
  row.brand = asArray<Json>(p.brands).filter(isObject).map(b => str(b.name)).find(Boolean) ?? null
  row.product_type = str(p.type)
  row.categories = uniq(asArray<Json>(p.categories).filter(isObject).map(c => htmlToText(str(c.name))))
  row.tags = uniq(asArray<Json>(p.tags).filter(isObject).map(c => htmlToText(str(c.name))))
  row.description = htmlToText(p.short_description) ?? htmlToText(p.description)
  row.price = price
  row.price_max = priceMax
  row.compare_at_price = regular !== null && price !== null && regular > price ? regular : null
  row.currency = currency
  row.available = typeof p.is_in_stock === 'boolean' ? p.is_in_stock || p.is_on_backorder === true : null
  row.stock_status = p.is_on_backorder === true ? 'on_backorder' : stockClass ?? (row.available === null ? null : row.available ? 'in_stock' : 'out_of_stock')
  row.stock_quantity = toInt(p.low_stock_remaining)
  row.images = uniq(asArray<Json>(p.images).filter(isObject).map(i => str(i.src)))
  row.options = options
  row.variants = variants
  row.add_ons = wooAddOns(p.extensions, unit)
  row.rating = toNumber(p.average_rating)
  row.review_count = toInt(p.review_count)
  if (row.review_count === 0 && row.rating === 0) row.rating = null
  return row
}

// ---------------------------------------------------------------- schema.org JSON-LD

const typesOf = (node: Json): string[] => asArray(node['@type']).map(t => String(t).replace(/^https?:\/\/schema\.org\//, ''))

/** Every JSON-LD object on the page (invalid blocks skipped; @graph and arrays flattened one level). */
export function jsonLdNodes (html: string): Json[] {
  const $ = load(html)
  const nodes: Json[] = []
  $('script[type="application/ld+json" i]').each((_, el) => {
    const raw = $(el).text().trim()
    if (!raw) return
    let parsed: unknown
    try { parsed = JSON.parse(raw) } catch {
      // Some sites leave raw newlines or trailing commas inside strings; one lenient retry.
      try { parsed = JSON.parse(raw.replace(/[\r\n\t]+/g, ' ').replace(/,\s*([}\]])/g, '$1')) } catch { return }
    }
    for (const item of asArray(parsed)) {
      if (!isObject(item)) continue
      if (Array.isArray(item['@graph'])) nodes.push(...item['@graph'].filter(isObject))
      else nodes.push(item)
    }
  })
  return nodes
}

const AVAILABLE = new Set(['InStock', 'LimitedAvailability', 'OnlineOnly', 'InStoreOnly', 'PreOrder', 'PreSale', 'BackOrder'])
const UNAVAILABLE = new Set(['OutOfStock', 'SoldOut', 'Discontinued'])

function availabilityToken (v: unknown): string | null {
  const s = str(v)
  if (!s) return null
  return s.replace(/^https?:\/\/schema\.org\//i, '').replace(/^schema:/i, '')
}

function imagesOf (v: unknown, base: string): string[] {
  return uniq(asArray(v).map(i => {
    if (typeof i === 'string') return absolute(i, base)
    if (isObject(i)) return absolute(str(i.url) ?? str(i.contentUrl), base)
    return null
  }))
}

interface OfferSummary { price: number | null, priceMax: number | null, currency: string | null, availability: string | null, url: string | null, sku: string | null }

function summariseOffers (offers: unknown): OfferSummary {
  const list = asArray<Json>(offers).filter(isObject)
  const flat: Json[] = []
  for (const o of list) {
    flat.push(o)
    if (typesOf(o).includes('AggregateOffer')) flat.push(...asArray<Json>(o.offers).filter(isObject))
  }
  const prices: Array<number | null> = []
  let currency: string | null = null
  let availability: string | null = null
  let url: string | null = null
  let sku: string | null = null
  for (const o of flat) {
    const spec = asArray<Json>(o.priceSpecification).filter(isObject)[0]
    prices.push(toNumber(o.price) ?? toNumber(o.lowPrice) ?? (spec ? toNumber(spec.price) : null))
    if (o.highPrice !== undefined) prices.push(toNumber(o.highPrice))
    currency ??= str(o.priceCurrency) ?? (spec ? str(spec.priceCurrency) : null)
    const token = availabilityToken(o.availability)
    // One offer in stock is enough for the product to be available.
    if (token && (availability === null || (!AVAILABLE.has(availability) && AVAILABLE.has(token)))) availability = token
    url ??= str(o.url)
    sku ??= str(o.sku)
  }
  return { price: minOf(prices), priceMax: maxOf(prices), currency, availability, url, sku }
}

const brandOf = (v: unknown): string | null => {
  for (const b of asArray(v)) {
    if (typeof b === 'string' && b.trim()) return b.trim()
    if (isObject(b)) { const n = str(b.name); if (n) return n }
  }
  return null
}

const availableFrom = (token: string | null): boolean | null => token === null ? null : AVAILABLE.has(token) ? true : UNAVAILABLE.has(token) ? false : null

function productNodeToRow (node: Json, pageUrl: string): ProductRow {
  const row = emptyRow('schemaorg', pageUrl)
  const offers = summariseOffers(node.offers)
  const rating = isObject(node.aggregateRating) ? node.aggregateRating : null
  const nodeUrl = absolute(str(node.url) ?? str(node.URL) ?? str(node['@id'])?.replace(/#.*$/, '') ?? null, pageUrl)
  row.id = str(node.productID) ?? str(node.productGroupID) ?? str(node.sku) ?? str(node.mpn)
  row.title = htmlToText(str(node.name)) ?? ''
  row.url = nodeUrl && /^https?:/.test(nodeUrl) ? nodeUrl : absolute(offers.url, pageUrl) ?? pageUrl
  row.sku = str(node.sku) ?? offers.sku ?? str(node.mpn)
  row.brand = brandOf(node.brand) ?? brandOf(node.manufacturer)
  row.categories = uniq(asArray(node.category).map(c => (isObject(c) ? str(c.name) : str(c))))
  row.product_type = row.categories[0] ?? null
  row.description = htmlToText(str(node.description))
  row.price = offers.price
  row.price_max = offers.priceMax
  row.currency = offers.currency
  row.stock_status = offers.availability
  row.available = availableFrom(offers.availability)
  row.images = imagesOf(node.image, pageUrl)
  row.rating = rating ? toNumber(rating.ratingValue) : null
  row.review_count = rating ? toInt(rating.reviewCount) ?? toInt(rating.ratingCount) : null
  return row
}

function variantFromNode (node: Json, pageUrl: string, varies: string[]): ProductVariant {
  const offers = summariseOffers(node.offers)
  const chosen: Record<string, string> = {}
  for (const property of varies) {
    const key = property.replace(/^https?:\/\/schema\.org\//, '')
    const value = node[key]
    const text = isObject(value) ? str(value.name) ?? str(value.value) : str(value)
    if (text) chosen[key] = text
  }
  for (const pv of asArray<Json>(node.additionalProperty).filter(isObject)) {
    const n = str(pv.name); const v = str(pv.value)
    if (n && v && !(n in chosen)) chosen[n] = v
  }
  return {
    id: str(node.productID) ?? str(node.sku) ?? str(node['@id']),
    title: htmlToText(str(node.name)),
    sku: str(node.sku) ?? offers.sku,
    price: offers.price,
    compare_at_price: null,
    currency: offers.currency,
    available: availableFrom(offers.availability),
    stock_quantity: null,
    options: chosen,
    image: imagesOf(node.image, pageUrl)[0] ?? null,
    url: absolute(str(node.url) ?? offers.url, pageUrl),
  }
}

/**
 * Products described by a page's JSON-LD: Product nodes, and ProductGroup nodes
 * with their hasVariant Products folded in as variants (variesBy names the options).
 */
export function parseSchemaOrgProducts (html: string, pageUrl: string): ProductRow[] {
  const nodes = jsonLdNodes(html)
  const rows: ProductRow[] = []
  const variantNodes = new Set<Json>()
  const byId = new Map<string, Json>()
  for (const n of nodes) { const id = str(n['@id']); if (id) byId.set(id, n) }
  const resolve = (n: Json): Json => {
    const id = str(n['@id'])
    return id && Object.keys(n).length === 1 && byId.has(id) ? byId.get(id)! : n
  }

  for (const node of nodes) {
    if (!typesOf(node).includes('ProductGroup')) continue
    const row = productNodeToRow(node, pageUrl)
    const varies = asArray(node.variesBy).map(v => String(v).replace(/^https?:\/\/schema\.org\//, ''))
    const variants = asArray<Json>(node.hasVariant).filter(isObject).map(resolve)
    for (const v of variants) variantNodes.add(v)
    row.variants = variants.map(v => variantFromNode(v, pageUrl, varies))
    const optionValues = new Map<string, string[]>()
    for (const v of row.variants) for (const [k, value] of Object.entries(v.options)) {
      const list = optionValues.get(k) ?? []
      if (!list.includes(value)) list.push(value)
      optionValues.set(k, list)
    }
    row.options = [...optionValues].map(([name, values]) => ({ name, values }))
    const prices = row.variants.map(v => v.price)
    row.price ??= minOf(prices)
    row.price_max ??= maxOf(prices)
    row.currency ??= row.variants.find(v => v.currency)?.currency ?? null
    const avail = row.variants.map(v => v.available).filter((a): a is boolean => a !== null)
    if (row.available === null && avail.length) {
      row.available = avail.some(Boolean)
      row.stock_status = row.available ? 'InStock' : 'OutOfStock'
    }
    if (row.images.length === 0) row.images = uniq(row.variants.map(v => v.image))
    rows.push(row)
  }
  for (const node of nodes) {
    const types = typesOf(node)
    if (!types.includes('Product') || types.includes('ProductGroup') || variantNodes.has(node)) continue
    // A variant that points back at its group is already folded in above.
    if (isObject(node.isVariantOf) && rows.length > 0) continue
    rows.push(productNodeToRow(node, pageUrl))
  }
  return rows.filter(r => r.title !== '')
}

/** Product URLs a page lists in JSON-LD (ItemList of Products or URLs), for the crawl queue. */
export function listedProductUrls (html: string, pageUrl: string): string[] {
  const out: string[] = []
  for (const node of jsonLdNodes(html)) {
    if (!typesOf(node).includes('ItemList')) continue
    for (const el of asArray<Json>(node.itemListElement).filter(isObject)) {
      const item = isObject(el.item) ? el.item : el
      const url = absolute(str(item.url) ?? str(el.url) ?? (typeof el.item === 'string' ? el.item : null), pageUrl)
      if (url) out.push(url)
    }
  }
  return uniq(out)
}

// ---------------------------------------------------------------- sitemaps and links

// Read by the plugin library (one copy for every plugin).
import { isSitemapIndex, robotsSitemaps, sitemapLocations } from '../lib/sitemaps.ts'
export { isSitemapIndex, robotsSitemaps, sitemapLocations }

/** A sitemap's locations and whether it is an index of sitemaps: one trip to the worker pool per sitemap. */
export function readSitemap (xml: string): { locations: string[], index: boolean } {
  return { locations: sitemapLocations(xml), index: isSitemapIndex(xml) }
}

const PRODUCT_PATH = /\/(products?|p|item|items|shop|store|dp)\/[^/?#]+|[?&](product|product_id|pid)=/i

/** Whether a URL looks like a product page (used to order the crawl, never to filter it). */
export const looksLikeProductUrl = (url: string): boolean => PRODUCT_PATH.test(url)

/** Same-site links of a page, product-like ones first. */
export function pageLinks (html: string, pageUrl: string): string[] {
  const $ = load(html)
  const host = new URL(pageUrl).hostname
  const out: string[] = []
  $('a[href]').each((_, el) => {
    const href = $(el).attr('href')
    if (!href || /^(mailto|tel|javascript):/i.test(href)) return
    try {
      const u = new URL(href, pageUrl)
      u.hash = ''
      if (u.hostname === host && /^https?:$/.test(u.protocol)) out.push(u.toString())
    } catch {}
  })
  const links = uniq(out)
  return [...links.filter(looksLikeProductUrl), ...links.filter(l => !looksLikeProductUrl(l))]
}

/**
 * Everything the schema.org crawl reads from one HTML page: its products and the
 * links to follow (ItemList entries first). One call, so run.ts makes one trip to
 * the kernel's worker pool per page (ctx.extract.call).
 */
export function readProductPage (html: string, pageUrl: string): { products: ProductRow[], links: string[] } {
  return { products: parseSchemaOrgProducts(html, pageUrl), links: [...listedProductUrls(html, pageUrl), ...pageLinks(html, pageUrl)] }
}

// ---------------------------------------------------------------- whole catalogue pages
// run.ts sends each catalogue answer here whole, through the kernel's worker pool
// (ctx.extract.call): a 250-product page is megabytes of JSON to parse and 250
// descriptions to turn into text, which would hold the API's event loop.

/** Why a /products.json answer is not a Shopify catalogue page, or null when it is one. */
export function shopifyPageProblem (text: string): string | null {
  let body: unknown
  try { body = JSON.parse(text) } catch { return 'products.json is not JSON' }
  return shopifyProductsOf(body) ? null : 'products.json has no products list'
}

/** One /products.json page as rows (`why` when it is not JSON with a products list). */
export function readShopifyPage (text: string, storeBase: string, currency: string | null, sourceUrl: string): { rows: ProductRow[], count: number } | { why: 'not-json' | 'no-products' } {
  let body: unknown
  try { body = JSON.parse(text) } catch { return { why: 'not-json' } }
  const products = shopifyProductsOf(body)
  if (!products) return { why: 'no-products' }
  return { rows: products.map(p => parseShopifyProduct(p, storeBase, currency, sourceUrl)), count: products.length }
}

/** One Store API page as rows (`why` when it is not a JSON list). */
export function readWooPage (text: string, sourceUrl: string): { rows: ProductRow[], count: number } | { why: 'not-json' | 'not-a-list' } {
  let body: unknown
  try { body = JSON.parse(text) } catch { return { why: 'not-json' } }
  if (!Array.isArray(body)) return { why: 'not-a-list' }
  const products = body.filter(isObject)
  return { rows: products.map(p => parseWooProduct(p, sourceUrl)), count: products.length }
}
