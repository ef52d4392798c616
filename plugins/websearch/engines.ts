// The real request each engine expects (URL, method, form fields, browser
// headers, locale parameters) and the parser for its answer. Base URLs come
// from tools.config.json `upstream` (names below) so tests and operators can
// point them elsewhere; the defaults are the real hosts.
//
// Pages after the first are built from our own parameters (offset counters,
// DuckDuckGo's next-page form fields), never by following a link found in the
// page, so a hostile or stale page cannot steer requests to another host.
import type { EngineId } from './engine-catalog.ts'
import { parseBing } from './extract/bing.ts'
import { parseBrave } from './extract/brave.ts'
import { parseDuckDuckGoHtml, parseDuckDuckGoLite } from './extract/duckduckgo.ts'
import { parseGoogle } from './extract/google.ts'
import { parseMojeek } from './extract/mojeek.ts'
import { parseGoogleCse, parseSerpApi, parseSerper } from './extract/providers.ts'
import type { SerpPage } from './extract/serp-page.ts'
import { parseYahoo } from './extract/yahoo.ts'

export interface SearchParams {
  query: string
  /** ISO 3166-1 alpha-2, lower case (e.g. 'us', 'de'); undefined = engine default. */
  country?: string
  /** ISO 639-1, lower case (e.g. 'en', 'de'); undefined = English. */
  language?: string
  /** How many results the caller wants in total. */
  wanted: number
}

export interface PageCursor {
  /** 0-based page number being requested. */
  index: number
  /** Results received on earlier pages (before de-duplication). */
  received: number
  /** The previous page as parsed, or null for the first page. */
  previous: SerpPage | null
}

export interface RequestPlan {
  url: string
  method: 'GET' | 'POST'
  headers: Record<string, string>
  body?: string
}

export interface EngineDefinition {
  id: EngineId
  /** Key in tools.config.json `upstream`. */
  upstream: string
  defaultBaseUrl: string
  format: 'html' | 'json'
  /** Upper bound on pages fetched for one search, whatever max_results says. */
  maxPages: number
  /** The request for this page, or null when there is no further page to ask for. */
  request (base: string, params: SearchParams, cursor: PageCursor, credential: (name: string) => string | undefined): RequestPlan | null
  parse (body: string, finalUrl: string): SerpPage
}

const BROWSER_USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const HTML_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

/** `de` + `at` → `de-AT,de;q=0.9,en;q=0.8`; nothing → `en-US,en;q=0.9`. */
export function acceptLanguage (language?: string, country?: string): string {
  const lang = language || 'en'
  const region = country ? country.toUpperCase() : (lang === 'en' ? 'US' : lang.toUpperCase())
  const primary = `${lang}-${region},${lang};q=0.9`
  return lang === 'en' ? primary : `${primary},en;q=0.8`
}

function browserHeaders (params: SearchParams, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'User-Agent': BROWSER_USER_AGENT,
    Accept: HTML_ACCEPT,
    'Accept-Language': acceptLanguage(params.language, params.country),
    'Upgrade-Insecure-Requests': '1',
    'Sec-Fetch-Dest': 'document',
    'Sec-Fetch-Mode': 'navigate',
    'Sec-Fetch-Site': 'same-origin',
    'Sec-Fetch-User': '?1',
    ...extra,
  }
}

const joinUrl = (base: string, path: string) => base.replace(/\/+$/, '') + path

function withQuery (url: string, query: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(key, String(value))
  return `${url}?${search.toString()}`
}

/** DuckDuckGo's region code (`kl`): `us-en`, `de-de`; the UK is `uk`; no country = worldwide. */
export function duckDuckGoRegion (params: SearchParams): string {
  if (!params.country) return 'wt-wt'
  const country = params.country === 'gb' ? 'uk' : params.country
  return `${country}-${params.language || 'en'}`
}

/** Both DuckDuckGo endpoints take a form POST; later pages re-post the next-page form the page carried. */
function duckDuckGo (id: 'duckduckgo_html' | 'duckduckgo_lite', path: string, defaultBaseUrl: string, parse: (html: string, url: string) => SerpPage): EngineDefinition {
  return {
    id,
    upstream: id,
    defaultBaseUrl,
    format: 'html',
    maxPages: 5,
    request (base, params, cursor) {
      const url = joinUrl(base, path)
      let fields: Record<string, string>
      if (cursor.index === 0) {
        fields = { q: params.query, b: '', kl: duckDuckGoRegion(params) }
      } else {
        const next = cursor.previous?.next_page
        if (!next || next.kind !== 'form') return null
        fields = { ...next.fields }
      }
      const origin = new URL(url).origin
      return {
        url,
        method: 'POST',
        headers: browserHeaders(params, { 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin, Referer: `${origin}/` }),
        body: new URLSearchParams(fields).toString(),
      }
    },
    parse,
  }
}

/** Scraped engines that page with a numeric offset in the query string. */
function offsetEngine (spec: {
  id: EngineId, defaultBaseUrl: string, path: string, pageSize: number, maxPages: number,
  query: (params: SearchParams, cursor: PageCursor, pageSize: number) => Record<string, string | number | undefined>,
  cookies?: (params: SearchParams) => string | undefined,
  parse: (html: string, url: string) => SerpPage,
}): EngineDefinition {
  return {
    id: spec.id,
    upstream: spec.id,
    defaultBaseUrl: spec.defaultBaseUrl,
    format: 'html',
    maxPages: spec.maxPages,
    request (base, params, cursor) {
      // A later page only when the engine itself showed a "next" control.
      if (cursor.index > 0 && !cursor.previous?.next_page) return null
      const cookie = spec.cookies?.(params)
      return {
        url: withQuery(joinUrl(base, spec.path), spec.query(params, cursor, spec.pageSize)),
        method: 'GET',
        headers: browserHeaders(params, cookie ? { Cookie: cookie } : {}),
      }
    },
    parse: spec.parse,
  }
}

const pageOffset = (cursor: PageCursor, pageSize: number) => cursor.index * pageSize

/**
 * The first result of the page to ask for, from the offset the last answer
 * gave as its next page: undefined for the first page, null when there is no
 * next page (or it starts past `maxOffset`).
 */
function nextOffset (cursor: PageCursor, maxOffset = Infinity): number | undefined | null {
  if (cursor.index === 0) return undefined
  const next = cursor.previous?.next_page
  return next?.kind === 'offset' && next.offset <= maxOffset ? next.offset : null
}

export const ENGINES: Record<EngineId, EngineDefinition> = {
  duckduckgo_html: duckDuckGo('duckduckgo_html', '/html/', 'https://html.duckduckgo.com', parseDuckDuckGoHtml),
  duckduckgo_lite: duckDuckGo('duckduckgo_lite', '/lite/', 'https://lite.duckduckgo.com', parseDuckDuckGoLite),

  bing: offsetEngine({
    id: 'bing', defaultBaseUrl: 'https://www.bing.com', path: '/search', pageSize: 10, maxPages: 5,
    // `first` is 1-based; `cc` the country, `setlang` the interface/result language, `mkt` both.
    query: (p, c, size) => ({
      q: p.query,
      first: c.index ? pageOffset(c, size) + 1 : undefined,
      FORM: c.index ? 'PERE' : undefined,
      cc: p.country?.toUpperCase(),
      setlang: p.language,
      mkt: p.country ? `${p.language || 'en'}-${p.country.toUpperCase()}` : undefined,
    }),
    parse: parseBing,
  }),

  brave: offsetEngine({
    id: 'brave', defaultBaseUrl: 'https://search.brave.com', path: '/search', pageSize: 20, maxPages: 5,
    // Brave pages by page index (`offset`), and reads country and UI language from cookies.
    query: (p, c) => ({ q: p.query, source: c.index ? 'web' : undefined, offset: c.index || undefined, spellcheck: c.index ? 0 : undefined }),
    cookies: p => [p.country ? `country=${p.country}` : 'country=all', `ui_lang=${p.language || 'en'}-${(p.country || 'us')}`, 'useLocation=0', 'summarizer=0'].join('; '),
    parse: parseBrave,
  }),

  mojeek: offsetEngine({
    id: 'mojeek', defaultBaseUrl: 'https://www.mojeek.com', path: '/search', pageSize: 10, maxPages: 5,
    // `s` is the 1-based start; sending it on the first page trips Mojeek's rate limiter, so it is omitted there.
    query: (p, c, size) => ({ q: p.query, s: c.index ? pageOffset(c, size) + 1 : undefined }),
    // Language bias (`lb`) and region (`arc`) are preferences Mojeek keeps in cookies.
    cookies: p => [p.language ? `lb=${p.language}` : undefined, p.country ? `arc=${p.country === 'gb' ? 'uk' : p.country}` : undefined].filter(Boolean).join('; ') || undefined,
    parse: parseMojeek,
  }),

  yahoo: offsetEngine({
    id: 'yahoo', defaultBaseUrl: 'https://search.yahoo.com', path: '/search', pageSize: 7, maxPages: 5,
    // `b` is the 1-based start of the page; Yahoo serves about 7 organic results per page.
    query: (p, c) => ({ p: p.query, ei: 'UTF-8', fr: 'sfp', b: c.index ? c.received + 1 : undefined, vl: p.language ? `lang_${p.language}` : undefined, vc: p.country }),
    parse: parseYahoo,
  }),

  google: offsetEngine({
    id: 'google', defaultBaseUrl: 'https://www.google.com', path: '/search', pageSize: 10, maxPages: 5,
    query: (p, c, size) => ({ q: p.query, hl: p.language || 'en', gl: p.country, start: c.index ? pageOffset(c, size) : undefined, ie: 'UTF-8', oe: 'UTF-8', pws: 0 }),
    parse: parseGoogle,
  }),

  serper: {
    id: 'serper',
    upstream: 'serper',
    defaultBaseUrl: 'https://google.serper.dev',
    format: 'json',
    maxPages: 10,
    request (base, params, cursor, credential) {
      const num = Math.min(100, Math.max(10, params.wanted))
      // Serper returns up to `num` per page; a short page means there is no next one.
      if (cursor.index > 0 && (cursor.previous?.results.length ?? 0) < num) return null
      return {
        url: joinUrl(base, '/search'),
        method: 'POST',
        headers: { 'X-API-KEY': credential('serper') ?? '', 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ q: params.query, gl: params.country, hl: params.language, num, page: cursor.index + 1 }),
      }
    },
    parse: (body, url) => parseSerper(JSON.parse(body), url),
  },

  serpapi: {
    id: 'serpapi',
    upstream: 'serpapi',
    defaultBaseUrl: 'https://serpapi.com',
    format: 'json',
    maxPages: 10,
    request (base, params, cursor, credential) {
      const start = nextOffset(cursor)
      if (start === null) return null
      return {
        url: withQuery(joinUrl(base, '/search.json'), { engine: 'google', q: params.query, gl: params.country, hl: params.language, num: Math.min(100, Math.max(10, params.wanted)), start, api_key: credential('serpapi') }),
        method: 'GET',
        headers: { Accept: 'application/json' },
      }
    },
    parse: (body, url) => parseSerpApi(JSON.parse(body), url),
  },

  google_cse: {
    id: 'google_cse',
    upstream: 'google_cse',
    defaultBaseUrl: 'https://www.googleapis.com',
    format: 'json',
    // The API never serves past result 100 (10 pages of 10).
    maxPages: 10,
    request (base, params, cursor, credential) {
      const start = nextOffset(cursor, 91)
      if (start === null) return null
      return {
        url: withQuery(joinUrl(base, '/customsearch/v1'), { key: credential('google_cse'), cx: credential('google_cse_cx'), q: params.query, num: 10, start, gl: params.country, hl: params.language, lr: params.language ? `lang_${params.language}` : undefined }),
        method: 'GET',
        headers: { Accept: 'application/json' },
      }
    },
    parse: (body, url) => parseGoogleCse(JSON.parse(body), url),
  },
}

/** The base URL for an engine: tools.config.json `upstream[<name>]`, else the real host. */
export function baseUrlFor (engine: EngineDefinition, urls: Readonly<Record<string, string>>): string {
  return urls[engine.upstream] ?? engine.defaultBaseUrl
}

/** One engine's answer parsed: what run.ts sends to the kernel's worker pool (ctx.extract.call). */
export function parseEngineAnswer (engine: EngineId, body: string, finalUrl: string): SerpPage {
  return ENGINES[engine].parse(body, finalUrl)
}
