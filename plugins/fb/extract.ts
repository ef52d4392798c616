// Pure parsing for the fb tool: what the caller typed -> a page reference, a
// logged-out page's HTML -> page details (or the wall it hit), a Graph API page
// answer -> page details, and the two merged. No network, no clock, no state:
// run.ts fetches, and sends the HTML and Graph parsing to the kernel's worker
// pool (ctx.extract.call).
//
// What a logged-out page holds (checked against the real captures and the
// open-source page scrapers that read it):
// - meta: og:title (name), og:description ("Name. 5,411,563 likes · 25,177
//   talking about this. <about>"), og:image (profile picture), og:url,
//   al:android:url (fb://page/<id>), link rel=canonical;
// - JSON-LD (an Organization or LocalBusiness: name, @id/url, address, telephone, email);
// - the current www layout: Relay payloads in <script type="application/json">:
//   profile_header_renderer.user (name, url, verified badge, profile and cover
//   pictures, "5.4M followers" social context, delegate_page id), the intro
//   card's profile_tile_items (timeline_context_list_item_type INTRO_CARD_*:
//   category, address, phone, e-mail, website), best_description;
// - the older m. layout (the 2021 capture): CurrentPage pageID, the cover's
//   CSS background, "Verified Page" badges next to the name, the launchpad's
//   outbound website link, the category in /pages/category/<Category>/ URLs.
import { load, type CheerioAPI } from 'cheerio'
// Types only: the row schema is the one description of a page (nothing loads in the worker).
import type { Static } from '../../core/tools/contract.ts'
import type { fbPageRow } from './schema.ts'

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A page's details: the row without what run.ts adds (the input, found, source, error). */
export type PageDetails = Omit<Static<typeof fbPageRow>, 'input_url' | 'found' | 'source' | 'error'>

export type Wall = 'login' | 'checkpoint' | 'consent'

export interface HtmlReading {
  /** The page's details, or null when the HTML holds no page (a wall, an error page). */
  page: PageDetails | null
  /** A login, checkpoint or cookie-consent wall instead of the page. */
  wall: Wall | null
}

export const emptyDetails = (): PageDetails => ({
  page_id: null, username: null, name: null, url: null, category: null, categories: [], about: null,
  website: null, websites: [], phone: null, email: null, address: null, followers: null, likes: null,
  talking_about: null, verified: null, profile_image: null, cover_image: null,
})

const text = (v: unknown): string | null => {
  if (typeof v === 'string') { const s = v.replace(/\s+/g, ' ').trim(); return s === '' ? null : s }
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return null
}

// ---------------------------------------------------------------- input

export interface PageRef {
  kind: 'id' | 'username'
  value: string
}

// First path segments that are Facebook features, not pages.
const NOT_A_PAGE = new Set([
  'login', 'login.php', 'checkpoint', 'watch', 'groups', 'events', 'share', 'sharer', 'sharer.php', 'photo', 'photo.php',
  'photos', 'story.php', 'permalink.php', 'home.php', 'marketplace', 'gaming', 'hashtag', 'help', 'policies', 'privacy',
  'settings', 'messages', 'notifications', 'friends', 'search', 'reel', 'reels', 'stories', 'ads', 'business', 'legal',
  'l.php', 'dialog', 'plugins', 'video.php', 'media', 'bookmarks', 'about', 'r.php', 'recover', 'cookie', 'consent', 'terms',
])

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9.\-_]{0,99}$/
const NUMERIC_ID = /^\d{5,20}$/

/**
 * A page URL (www, m, mbasic, web, touch or a locale host of facebook.com, or
 * fb.com; /<name>, /pages/<name>/<id>, /pages/category/<cat>/<name>,
 * /people/<name>/<id>, /profile.php?id=, /pg/<name>/…), a vanity name (an
 * optional leading @) or a numeric id -> what to ask for; null for anything
 * else (another site, a post or group link).
 */
export function pageRef (input: string): PageRef | null {
  const raw = input.trim()
  if (raw === '') return null
  if (NUMERIC_ID.test(raw)) return { kind: 'id', value: raw }
  const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) || /^([a-z0-9-]+\.)*(facebook\.com|fb\.com)(\/|$|\?)/i.test(raw)
  if (!looksLikeUrl) {
    const name = raw.replace(/^@/, '')
    return USERNAME.test(name) && !NOT_A_PAGE.has(name.toLowerCase()) ? { kind: 'username', value: name } : null
  }
  let url: URL
  try { url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`) } catch { return null }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null
  const host = url.hostname.toLowerCase()
  if (!(host === 'facebook.com' || host.endsWith('.facebook.com') || host === 'fb.com' || host.endsWith('.fb.com'))) return null
  let segments: string[]
  try { segments = url.pathname.split('/').filter(Boolean).map(s => decodeURIComponent(s)) } catch { return null }
  const first = segments[0]?.toLowerCase()
  if (first === undefined) return null
  if (first === 'profile.php') {
    const id = url.searchParams.get('id')
    return id && NUMERIC_ID.test(id) ? { kind: 'id', value: id } : null
  }
  if (first === 'pages') {
    // /pages/category/<Category>/<name>/ or /pages/<name>/<id>
    if (segments[1]?.toLowerCase() === 'category') return segments[3] && USERNAME.test(segments[3]) ? { kind: 'username', value: segments[3] } : null
    const id = segments.slice(1).find(s => NUMERIC_ID.test(s))
    return id ? { kind: 'id', value: id } : null
  }
  if (first === 'people' || first === 'p') {
    const last = segments.slice(1).reverse().find(s => /\d{5,20}$/.test(s))
    const id = last ? /(\d{5,20})$/.exec(last)![1]! : null
    return id ? { kind: 'id', value: id } : null
  }
  const name = first === 'pg' ? segments[1] : segments[0]
  if (!name || NOT_A_PAGE.has(name.toLowerCase())) return null
  if (NUMERIC_ID.test(name)) return { kind: 'id', value: name }
  return USERNAME.test(name) ? { kind: 'username', value: name } : null
}

/** The public address of a page: its vanity URL, or profile.php?id= for an id. */
export function pagePath (ref: PageRef): string {
  return ref.kind === 'id' ? `/profile.php?id=${ref.value}` : `/${encodeURIComponent(ref.value)}`
}

// ---------------------------------------------------------------- counts

const MULTIPLIER: Record<string, number> = { k: 1e3, m: 1e6, b: 1e9 }

/** "5,411,563" -> 5411563; "5.4M" -> 5400000; "1.2K" -> 1200; null when not a count. */
export function parseCount (raw: string): number | null {
  const m = /^([\d.,\s\u00a0\u202f]+)\s*([KkMmBb])?$/.exec(raw.trim())
  if (!m) return null
  const digits = m[1]!.replace(/[\s\u00a0\u202f]/g, '')
  const unit = m[2]?.toLowerCase()
  let n: number
  if (unit) {
    // "5.4M" or "5,4M": one decimal separator, then scale.
    n = Number(digits.replace(',', '.')) * MULTIPLIER[unit]!
  } else {
    // "5,411,563" / "5.411.563": grouping separators only.
    n = Number(digits.replace(/[.,]/g, ''))
  }
  return Number.isFinite(n) ? Math.round(n) : null
}

const countBefore = (textValue: string, words: RegExp): number | null => {
  const m = new RegExp(`([\\d][\\d.,\\u00a0\\u202f]*\\s*[KkMmBb]?)\\s+${words.source}`, 'i').exec(textValue)
  return m ? parseCount(m[1]!) : null
}

// ---------------------------------------------------------------- links

/** Facebook's outbound redirect (l.facebook.com/l.php?u=…) -> the destination. */
export function unshim (href: string | null): string | null {
  if (!href) return null
  try {
    const u = new URL(href, 'https://www.facebook.com/')
    if (/(^|\.)facebook\.com$/.test(u.hostname) && u.pathname === '/l.php') return u.searchParams.get('u')
    return u.toString()
  } catch { return null }
}

/** CSS escapes in an inline style (`https\3a //…\26 …`) -> the characters. */
const decodeCss = (s: string) => s.replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))

function usernameFromUrl (raw: string | null): string | null {
  if (!raw) return null
  const ref = pageRef(raw)
  return ref?.kind === 'username' ? ref.value : null
}

function idFromUrl (raw: string | null): string | null {
  if (!raw) return null
  const m = /fb:\/\/(?:page|profile)\/(?:\?id=)?(\d{5,20})/.exec(raw)
  if (m) return m[1]!
  const ref = pageRef(raw)
  return ref?.kind === 'id' ? ref.value : null
}

// ---------------------------------------------------------------- walls

const WALL_PATHS: Array<[RegExp, Wall]> = [
  [/^\/(login(\.php)?|login\/.*|r\.php|recover\/.*)$/i, 'login'],
  [/^\/checkpoint(\/.*)?$/i, 'checkpoint'],
  [/^\/(privacy\/consent|cookie\/consent|consent|user_cookie_prompt|privacy\/consent_framework)(\/.*)?$/i, 'consent'],
]

/** The wall a redirect target or final URL path is, if any. */
export function wallOfPath (pathname: string): Wall | null {
  const path = pathname.replace(/\/+$/, '') || '/'
  for (const [re, wall] of WALL_PATHS) if (re.test(path)) return wall
  return null
}

function wallOfBody ($: CheerioAPI, html: string): Wall | null {
  if ($('[data-cookiebanner]').length > 0 || /data-cookiebanner=/.test(html)) return 'consent'
  if ($('form[action*="/checkpoint/"]').length > 0 || /\/checkpoint\/(block|disabled|\?)/.test(html)) return 'checkpoint'
  if ($('#login_form, form[action*="/login/"], form[action*="login.php"]').length > 0) return 'login'
  const title = $('title').first().text().toLowerCase()
  if (/log ?in|sign up|log into/.test(title)) return 'login'
  return null
}

// ---------------------------------------------------------------- embedded JSON

/** Every object under `root` (depth-first, bounded), for key lookups in Relay payloads. */
function * objects (root: unknown, limit = { left: 200_000 }, depth = 0): Generator<Json> {
  if (depth > 80 || limit.left-- <= 0) return
  if (Array.isArray(root)) {
    for (const v of root) yield * objects(v, limit, depth + 1)
  } else if (isObject(root)) {
    yield root
    for (const v of Object.values(root)) if (typeof v === 'object' && v !== null) yield * objects(v, limit, depth + 1)
  }
}

const at = (obj: unknown, ...path: string[]): unknown => {
  let cur: unknown = obj
  for (const key of path) { if (!isObject(cur)) return undefined; cur = cur[key] }
  return cur
}

const INTRO_FIELDS: Record<string, 'category' | 'address' | 'phone' | 'email' | 'website'> = {
  INTRO_CARD_INFLUENCER_CATEGORY: 'category',
  INTRO_CARD_CATEGORY: 'category',
  INTRO_CARD_ADDRESS: 'address',
  INTRO_CARD_PROFILE_PHONE: 'phone',
  INTRO_CARD_PROFILE_EMAIL: 'email',
  INTRO_CARD_WEBSITE: 'website',
}

const ABOUT_FIELDS: Record<string, 'category' | 'address' | 'phone' | 'email' | 'website'> = {
  category: 'category', address: 'address', profile_address: 'address', profile_phone: 'phone', profile_email: 'email', website: 'website',
}

/** "Page · Video game" -> ["Video game"]: the intro line's leading "Page" is a kind, not a category. */
const splitCategory = (raw: string) => raw.split(/\s+·\s+/).map(s => s.trim()).filter(s => s !== '' && !/^(page|profile)$/i.test(s))

function readRelay (blobs: unknown[], out: PageDetails): boolean {
  let found = false
  // delegate_page.category_name is one category; the intro card's line may list several, so it goes first.
  let categoryName: string | null = null
  for (const blob of blobs) {
    for (const obj of objects(blob)) {
      const header = at(obj, 'profile_header_renderer', 'user')
      if (isObject(header) && found === false) {
        found = true
        out.name ??= text(header.name)
        out.url ??= text(header.url)
        const delegate = text(at(header, 'delegate_page', 'id'))
        out.page_id ??= delegate ?? (NUMERIC_ID.test(String(header.id ?? '')) ? String(header.id) : null)
        const badge = header.show_verified_badge_on_profile ?? header.is_verified
        if (typeof badge === 'boolean') out.verified ??= badge
        out.profile_image ??= text(at(header, 'profilePicLarge', 'uri')) ?? text(at(header, 'profilePicMedium', 'uri')) ?? text(at(header, 'profile_picture', 'uri')) ?? text(at(header, 'profilePicSmall', 'uri'))
        out.cover_image ??= text(at(header, 'cover_photo', 'photo', 'image', 'uri'))
        const social = at(header, 'profile_social_context', 'content')
        for (const item of Array.isArray(social) ? social : []) {
          const line = text(at(item, 'text', 'text'))
          if (!line) continue
          out.followers ??= countBefore(line, /followers?\b/)
          out.likes ??= countBefore(line, /likes?\b/)
        }
      }
      const ctxItem = at(obj, 'timeline_context_item')
      if (isObject(ctxItem)) {
        const field = INTRO_FIELDS[String(ctxItem.timeline_context_list_item_type ?? '')]
        const title = at(ctxItem, 'renderer', 'context_item', 'title')
        const value = text(at(title, 'text'))
        if (field && value) {
          found = true
          if (field === 'website') {
            const ranges = at(title, 'ranges')
            const linked = Array.isArray(ranges) ? text(at(ranges[0], 'entity', 'external_url')) ?? text(at(ranges[0], 'entity', 'url')) : null
            addWebsite(out, unshim(linked) ?? value)
          } else if (field === 'category') {
            if (out.categories.length === 0) out.categories = splitCategory(value)
          } else {
            out[field] ??= value
          }
        }
      }
      const aboutType = typeof obj.field_type === 'string' ? ABOUT_FIELDS[obj.field_type] : undefined
      const aboutValue = aboutType ? text(at(obj, 'title', 'text')) : null
      if (aboutType && aboutValue) {
        found = true
        if (aboutType === 'website') addWebsite(out, aboutValue)
        else if (aboutType === 'category') { if (!out.categories.includes(aboutValue)) out.categories.push(aboutValue) } else out[aboutType] ??= aboutValue
      }
      if (isObject(obj.best_description)) out.about ??= text(obj.best_description.text)
      if (typeof obj.category_name === 'string') categoryName ??= text(obj.category_name)
      if (typeof obj.userVanity === 'string' && USERNAME.test(obj.userVanity)) out.username ??= obj.userVanity
      if (typeof obj.pageID === 'string' && NUMERIC_ID.test(obj.pageID)) out.page_id ??= obj.pageID
    }
  }
  if (out.categories.length === 0 && categoryName) out.categories = [categoryName]
  return found
}

function addWebsite (out: PageDetails, raw: string): void {
  let site = raw.trim()
  if (!/^https?:\/\//i.test(site) && /^[a-z0-9-]+(\.[a-z0-9-]+)+(\/\S*)?$/i.test(site)) site = `http://${site}`
  if (/^https?:\/\//i.test(site) && !out.websites.includes(site)) out.websites.push(site)
}

// ---------------------------------------------------------------- JSON-LD

function readJsonLd ($: CheerioAPI, out: PageDetails): boolean {
  let found = false
  $('script[type="application/ld+json"]').each((_i, el) => {
    let data: unknown
    try { data = JSON.parse($(el).text()) } catch { return }
    for (const obj of objects(data)) {
      const type = obj['@type']
      const types = (Array.isArray(type) ? type : [type]).map(String)
      if (!types.some(x => /Organization|LocalBusiness|Person|Brand|Store|Restaurant|Corporation/i.test(x))) continue
      found = true
      out.name ??= text(obj.name)
      const id = text(obj['@id']) ?? text(obj.url)
      out.username ??= usernameFromUrl(id)
      out.page_id ??= idFromUrl(id)
      out.phone ??= text(obj.telephone)
      out.email ??= text(obj.email)?.replace(/^mailto:/i, '') ?? null
      const address = obj.address
      if (typeof address === 'string') out.address ??= text(address)
      else if (isObject(address)) {
        const parts = [address.streetAddress, address.addressLocality, address.addressRegion, address.postalCode, address.addressCountry]
          .map(p => (isObject(p) ? text(p.name) : text(p))).filter((p): p is string => p !== null)
        if (parts.length) out.address ??= parts.join(', ')
      }
    }
  })
  return found
}

// ---------------------------------------------------------------- the page

const meta = ($: CheerioAPI, key: string) => text($(`meta[property="${key}"]`).attr('content')) ?? text($(`meta[name="${key}"]`).attr('content'))

/** og:description "Name. 5,411,563 likes · 25,177 talking about this · 1 were here. About…" -> the counts and the about text. */
function readDescription (description: string, name: string | null, out: PageDetails): void {
  out.likes ??= countBefore(description, /likes?\b/)
  out.followers ??= countBefore(description, /followers?\b/)
  out.talking_about ??= countBefore(description, /talking about this/)
  // The sentence of counts ends at the first ". " after the last count; what follows is the page's about text.
  const counts = /^(.*?)(?:[\d.,\u00a0\u202f]+\s*[KkMmBb]?\s+(?:likes?|followers?|talking about this|were here)(?:\s*[·•|]\s*)?)+\.?\s*/.exec(description)
  let about = counts ? description.slice(counts[0].length) : description
  if (!counts && name && about.startsWith(`${name}. `)) about = about.slice(name.length + 2)
  about = about.trim()
  if (about && about !== name) out.about ??= about
}

/** A logged-out page's HTML (any layout) -> its details, or the wall it is. */
export function readPageHtml (html: string, finalUrl: string): HtmlReading {
  const $ = load(html)
  const out = emptyDetails()
  const blobs: unknown[] = []
  $('script[type="application/json"]').each((_i, el) => {
    const body = $(el).text()
    // Only the payloads that can hold page fields: parsing every script costs time on a 1 MB page.
    if (!/profile_header_renderer|timeline_context_item|field_type|best_description|userVanity|pageID|category_name/.test(body)) return
    try { blobs.push(JSON.parse(body)) } catch {}
  })
  const relay = readRelay(blobs, out)
  const ld = readJsonLd($, out)

  // The older mobile layout's script calls: CurrentPage init with pageID:"…".
  const currentPage = /["']?pageID["']?\s*:\s*["'](\d{5,20})["']/.exec(html)
  out.page_id ??= currentPage?.[1] ?? null

  const ogTitle = meta($, 'og:title')
  const ogUrl = meta($, 'og:url')
  const canonical = text($('link[rel="canonical"]').attr('href'))
  const android = meta($, 'al:android:url')
  out.page_id ??= idFromUrl(android) ?? idFromUrl(ogUrl) ?? idFromUrl(canonical)
  out.name ??= ogTitle
  out.username ??= usernameFromUrl(out.url) ?? usernameFromUrl(ogUrl) ?? usernameFromUrl(canonical)

  const description = meta($, 'og:description') ?? meta($, 'description')
  if (description) readDescription(description, out.name, out)
  out.profile_image ??= meta($, 'og:image')

  // /pages/category/<Video-Game>/<name>/ names the category.
  const categorySlug = /\/pages\/category\/([^/?#]+)\//.exec(ogUrl ?? canonical ?? '')?.[1]
  if (categorySlug && out.categories.length === 0) out.categories = [decodeURIComponent(categorySlug).replace(/-/g, ' ')]

  // m. layout: the cover is a CSS background of i.coverPhoto; verified is the badge beside the name.
  if (!out.cover_image) {
    const style = $('.coverPhoto, [data-sigil~="cover-photo"]').first().attr('style') ?? ''
    const m = /url\((['"]?)(.*?)\1\)/.exec(decodeCss(style))
    if (m?.[2]) out.cover_image = m[2]
  }
  if (out.verified === null && out.name) {
    const escaped = out.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    if (new RegExp(`>${escaped}</a>(?:</strong>)?<span[^>]*aria-label="Verified (?:Page|account)"`).test(html)) out.verified = true
  }
  if (out.websites.length === 0) {
    $('#launchpad a[href*="l.php"]').each((_i, el) => { const site = unshim($(el).attr('href') ?? null); if (site) addWebsite(out, site) })
  }

  const id = out.page_id
  const pathWall = (() => { try { return wallOfPath(new URL(finalUrl).pathname) } catch { return null } })()
  const ogPath = (() => { try { return ogUrl ? new URL(ogUrl).pathname : null } catch { return null } })()
  const ogNamesAPage = ogTitle !== null && ogPath !== null && ogPath !== '/' && wallOfPath(ogPath) === null
  const isPage = pathWall === null && (relay || ld || id !== null || ogNamesAPage)
  if (!isPage) return { page: null, wall: pathWall ?? wallOfBody($, html) }

  out.category = out.categories[0] ?? null
  out.website = out.websites[0] ?? null
  out.url = canonicalPageUrl(out)
  return { page: out, wall: null }
}

function canonicalPageUrl (d: PageDetails): string | null {
  if (d.username) return `https://www.facebook.com/${d.username}`
  if (d.page_id) return `https://www.facebook.com/profile.php?id=${d.page_id}`
  return d.url
}

// ---------------------------------------------------------------- Graph API

export type GraphReading =
  | { kind: 'ok', page: PageDetails }
  | { kind: 'missing', reason: string }
  | { kind: 'refused', reason: string }
  | { kind: 'failed', reason: string }

const GRAPH_RATE_LIMIT = new Set([4, 17, 32, 341, 368, 613])
// 10 / 200-299: the app lacks a permission (Page Public Metadata Access); 190: the token; 102: the session.
const GRAPH_PERMISSION = (code: number) => code === 10 || code === 102 || code === 190 || (code >= 200 && code <= 299)

/** A Graph API `GET /{version}/{page}?fields=…` answer -> the page, or why not. */
export function readGraphPage (status: number, body: string): GraphReading {
  let data: unknown = null
  try { data = JSON.parse(body) } catch {}
  const error = isObject(data) && isObject(data.error) ? data.error : null
  if (error) {
    const code = typeof error.code === 'number' ? error.code : -1
    const sub = typeof error.error_subcode === 'number' ? error.error_subcode : null
    const detail = `${text(error.message) ?? 'no message'} (code ${code}${sub ? `, subcode ${sub}` : ''})`
    if (GRAPH_RATE_LIMIT.has(code) || (code >= 80000 && code <= 80014)) return { kind: 'refused', reason: `the Graph API is rate-limiting this app: ${detail}` }
    if (GRAPH_PERMISSION(code)) return { kind: 'refused', reason: `the Graph API refused the page fields: ${detail}` }
    if (code === 803 || (code === 100 && sub === 33)) return { kind: 'missing', reason: `the Graph API has no such page (or may not show it): ${detail}` }
    return { kind: 'failed', reason: `the Graph API answered an error: ${detail}` }
  }
  if (status === 429 || status === 403) return { kind: 'refused', reason: `the Graph API answered HTTP ${status}` }
  if (status !== 200 || !isObject(data)) return { kind: 'failed', reason: `the Graph API answered HTTP ${status}${isObject(data) ? '' : ' without a JSON object'}` }
  return { kind: 'ok', page: graphDetails(data) }
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : null)

function graphDetails (g: Json): PageDetails {
  const out = emptyDetails()
  out.page_id = text(g.id)
  out.username = text(g.username)
  out.name = text(g.name)
  out.url = text(g.link)
  const list = Array.isArray(g.category_list) ? g.category_list.map(c => text(at(c, 'name'))).filter((c): c is string => c !== null) : []
  const main = text(g.category)
  out.categories = main && !list.includes(main) ? [main, ...list] : list.length ? list : main ? [main] : []
  out.category = out.categories[0] ?? null
  out.about = text(g.about) ?? text(g.description) ?? text(g.general_info)
  // `website` is free text: several addresses are separated by spaces.
  for (const site of (text(g.website) ?? '').split(/[\s,;]+/)) if (site) addWebsite(out, site)
  out.website = out.websites[0] ?? null
  out.phone = text(g.phone)
  out.email = Array.isArray(g.emails) ? g.emails.map(text).find((e): e is string => e !== null) ?? null : null
  const loc = isObject(g.location) ? g.location : null
  out.address = text(g.single_line_address) ?? (loc ? [loc.street, loc.city, loc.state, loc.zip, loc.country].map(text).filter(Boolean).join(', ') || null : null)
  out.likes = num(g.fan_count) ?? num(at(g, 'engagement', 'count'))
  out.followers = num(g.followers_count)
  out.talking_about = num(g.talking_about_count)
  const status = text(g.verification_status)
  out.verified = typeof g.is_verified === 'boolean' ? g.is_verified : status ? status === 'blue_verified' || status === 'gray_verified' : null
  const picture = at(g, 'picture', 'data')
  out.profile_image = at(picture, 'is_silhouette') === true ? null : text(at(picture, 'url'))
  out.cover_image = text(at(g, 'cover', 'source'))
  if (!out.url) out.url = canonicalPageUrl(out)
  return out
}

// ---------------------------------------------------------------- merge

/** The fields of a page the Graph answer left empty (so the HTML is read for them). */
export function missingFields (d: PageDetails): Array<keyof PageDetails> {
  return (Object.keys(d) as Array<keyof PageDetails>).filter(k => {
    const v = d[k]
    return v === null || (Array.isArray(v) && v.length === 0)
  })
}

/** `first`'s values, with `fill`'s where `first` has none. */
export function mergeDetails (first: PageDetails, fill: PageDetails): PageDetails {
  const out = { ...first }
  for (const key of Object.keys(out) as Array<keyof PageDetails>) {
    const v = out[key]
    if (v === null || (Array.isArray(v) && v.length === 0)) (out as Record<string, unknown>)[key] = fill[key]
  }
  return out
}
