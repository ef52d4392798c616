// The shape every SERP parser returns, and the small helpers they share:
// whitespace cleanup, absolute URLs, redirect unwrapping, domains.
// Everything here is pure: a parser gets a body and the URL it came from.
import type { CheerioAPI } from 'cheerio'
import { hostOf } from '../../lib/domains.ts'

export interface SerpResult {
  /** 1-based rank on this page (the run renumbers across pages after de-duplication). */
  position: number
  title: string
  /** Absolute http(s) URL of the result, with engine redirect wrappers removed. */
  url: string
  /** Host name without a leading `www.`. */
  domain: string
  snippet: string
}

/** How to ask for the next page, as the engine itself advertised it. */
export type NextPage =
  | { kind: 'url', url: string }
  | { kind: 'form', action: string, fields: Record<string, string> }
  | { kind: 'offset', offset: number }

export interface SerpPage {
  results: SerpResult[]
  related_searches: string[]
  answer_box: Record<string, unknown> | null
  /** Why the engine refused (captcha, consent wall, unusual-traffic page), or null. */
  blocked: string | null
  /** An error the provider reported in its body (bad key, malformed request), not a refusal. */
  error?: string | null
  next_page?: NextPage | null
}

/** Collapses runs of whitespace (including &nbsp;) and trims. */
export function cleanText (text: string | undefined | null): string {
  return (text ?? '').replace(/[\s\u00a0\u200b]+/g, ' ').trim()
}

/** Resolves href against the page URL and keeps it only when it is http(s). */
export function toAbsoluteHttpUrl (href: string | undefined | null, base: string): string | null {
  if (!href) return null
  const trimmed = href.trim()
  if (!trimmed || trimmed.startsWith('#') || /^(javascript|mailto|tel|data):/i.test(trimmed)) return null
  try {
    const url = new URL(trimmed, base)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null
  } catch {
    return null
  }
}

function decodeBase64Url (value: string): string | null {
  try {
    const text = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8')
    return /^https?:\/\//.test(text) ? text : null
  } catch {
    return null
  }
}

/**
 * Engines wrap outbound links in their own click trackers; rows must carry the
 * destination. Handles DuckDuckGo `/l/?uddg=`, Google `/url?q=` (and `url=`),
 * Yahoo `r.search.yahoo.com/.../RU=<encoded>/RK=...` and Bing `/ck/a?...&u=a1<base64url>`.
 */
export function unwrapRedirect (absoluteUrl: string): string {
  let url: URL
  try { url = new URL(absoluteUrl) } catch { return absoluteUrl }
  const host = url.hostname.toLowerCase()
  const path = url.pathname

  if (path === '/l/' || path === '/l') {
    const target = url.searchParams.get('uddg')
    if (target) return target
  }
  if (path === '/url') {
    const target = url.searchParams.get('q') ?? url.searchParams.get('url')
    if (target && /^https?:\/\//.test(target)) return target
  }
  if (host.endsWith('search.yahoo.com') || /\/RU=/.test(path)) {
    const match = /\/RU=([^/]+)\//.exec(path)
    if (match) {
      try {
        const target = decodeURIComponent(match[1]!)
        if (/^https?:\/\//.test(target)) return target
      } catch { /* a malformed escape: keep the wrapper rather than guess */ }
    }
  }
  if (path === '/ck/a' && host.endsWith('bing.com')) {
    const u = url.searchParams.get('u')
    if (u && u.startsWith('a1')) {
      const target = decodeBase64Url(u.slice(2))
      if (target) return target
    }
  }
  return absoluteUrl
}


export interface RawResult { title: string, href: string | null | undefined, snippet?: string }

/**
 * Turns raw anchors into rows: absolute, unwrapped, http(s) only, non-empty
 * title, no duplicate URL on the page; positions 1..n in page order.
 */
export function buildResults (raw: RawResult[], pageUrl: string, options: { excludeHosts?: RegExp } = {}): SerpResult[] {
  const seen = new Set<string>()
  const results: SerpResult[] = []
  for (const item of raw) {
    const title = cleanText(item.title)
    const absolute = toAbsoluteHttpUrl(item.href, pageUrl)
    if (!title || !absolute) continue
    const url = unwrapRedirect(absolute)
    if (!/^https?:\/\//.test(url)) continue
    const domain = hostOf(url)
    if (!domain) continue
    if (options.excludeHosts && options.excludeHosts.test(new URL(url).hostname)) continue
    if (seen.has(url)) continue
    seen.add(url)
    results.push({ position: results.length + 1, title, url, domain, snippet: cleanText(item.snippet) })
  }
  return results
}

/**
 * A scraped page's organic results: `read` makes one raw result of each
 * element `selector` finds, or null to skip it (an ad, a sponsored row);
 * buildResults does the rest.
 */
export function resultsOf ($: CheerioAPI, selector: string, pageUrl: string, read: (element: ReturnType<CheerioAPI>) => RawResult | null, options: { excludeHosts?: RegExp } = {}): SerpResult[] {
  const raw: RawResult[] = []
  $(selector).each((_, el) => {
    const item = read($(el))
    if (item) raw.push(item)
  })
  return buildResults(raw, pageUrl, options)
}

/** Distinct non-empty strings in first-seen order. */
export function distinctTexts (values: Iterable<string>): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  for (const value of values) {
    const text = cleanText(value)
    const key = text.toLowerCase()
    if (!text || seen.has(key)) continue
    seen.add(key)
    out.push(text)
  }
  return out
}

/** What a scraped engine's page says beside its results. */
export interface ScrapedParts {
  related?: string[]
  answerBox?: Record<string, unknown> | null
  /** The engine's own refusal markers (a captcha of its own, a consent wall). */
  refusal: (html: string) => string | null
  /** The next page as the page links it. */
  next?: () => NextPage | null
}

/**
 * A scraped engine's page. A page with results was answered, so only a page
 * without any is read for a refusal (the engine's markers, then the generic
 * challenges), and only a page with results has a next page worth asking for.
 */
export function scrapedPage (html: string, results: SerpResult[], parts: ScrapedParts): SerpPage {
  return {
    results,
    related_searches: parts.related ?? [],
    answer_box: parts.answerBox ?? null,
    blocked: results.length ? null : (parts.refusal(html) ?? genericChallenge(html)),
    next_page: results.length && parts.next ? parts.next() : null,
  }
}

/** The pager's link (relative or not) as the next page, or null without one. */
export function nextLink (href: string | undefined, pageUrl: string): NextPage | null {
  return href ? { kind: 'url', url: new URL(href, pageUrl).toString() } : null
}

/**
 * Refusal markers shared by every scraped engine: captcha widgets and
 * bot-challenge interstitials. Only consulted when the page produced no
 * results, so a result page that merely mentions "captcha" is never flagged.
 */
function genericChallenge (html: string): string | null {
  if (/class=["'][^"']*\bg-recaptcha\b|www\.google\.com\/recaptcha\//i.test(html)) return 'captcha page (reCAPTCHA)'
  if (/class=["'][^"']*\bh-captcha\b|hcaptcha\.com\/1\/api\.js/i.test(html)) return 'captcha page (hCaptcha)'
  if (/challenges\.cloudflare\.com|cf-turnstile|id=["']challenge-form["']|<title>\s*Just a moment\.\.\.\s*<\/title>/i.test(html)) return 'bot challenge page (Cloudflare)'
  return null
}
