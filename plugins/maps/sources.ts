// One async generator per source: each fetches through the guarded client,
// pages, and yields listings a page at a time. Outcomes: HTTP 403/429 (or the
// API's own "over quota"/"denied") → ToolBlockedError; 5xx, unreachable, bad
// JSON → UpstreamError. run.ts decides whether to fall through to the next source.
import { setTimeout as wait } from 'node:timers/promises'
import { BlockedTargetError, InputError, ToolBlockedError, UpstreamError, type ToolContext } from '../../core/tools/contract.ts'
import { parseNominatim, parseOverpass, parsePlaceDetailsLegacy, parsePlacesLegacy, parsePlacesNew, parseSerpApi, parseSerper, overpassRemark, type MapsListing, type SourceName } from './extract.ts'
import { limitBox, nameFilters, nameKeyword, osmFilters, overpassQuery } from './osm-query.ts'
import type { MapsInput, MapsRow } from './schema.ts'
import type { MapsState } from './state.ts'
import type { MapsSettings } from './settings.ts'

/** ctx.state is the app's MapsState, made by the declaration's createState. */
export type MapsContext = ToolContext<MapsInput, MapsRow, MapsSettings, MapsState>

export interface SearchPlan {
  /** One text for the Google-backed sources: "dentists in Austin TX". */
  search: string
  /** Business kind for OpenStreetMap tags. */
  what: string
  /** Place for Nominatim ('' when none). */
  where: string
  country?: string
  language?: string
  /** Listings still wanted. */
  wanted: number
}


const DEFAULT_URLS: Record<string, string> = {
  serper: 'https://google.serper.dev',
  serpapi: 'https://serpapi.com',
  google_places: 'https://places.googleapis.com',
  google_places_legacy: 'https://maps.googleapis.com',
  nominatim: 'https://nominatim.openstreetmap.org',
  overpass: 'https://overpass-api.de',
}

/** Hosts whose usage policy sets the one-request-a-second floor, whatever the settings say. */
const PUBLIC_OSM_HOSTS = /(^|\.)(openstreetmap\.org|overpass-api\.de)$/i

function baseUrl (ctx: MapsContext, name: string, fallback = DEFAULT_URLS[name]!): string {
  return (ctx.upstream.urls[name] ?? fallback).replace(/\/+$/, '')
}

const scrub = (text: string, secrets: string[]) => secrets.reduce((t, s) => (s ? t.split(s).join('***') : t), text)

/** A short reason from an error body (JSON `error`/`message`, else the start of the text). */
function bodyReason (body: string): string {
  try {
    const j = JSON.parse(body) as Record<string, unknown>
    const e = j.error
    const text = typeof e === 'string' ? e : (e && typeof e === 'object' ? (e as Record<string, unknown>).message : undefined) ?? j.message ?? j.error_message
    if (typeof text === 'string' && text.trim()) return text.trim().slice(0, 200)
  } catch {}
  return body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 120)
}

/** GET/POST through the guarded client, the status mapped to the tool outcomes, the body parsed as JSON. */
async function fetchJson (ctx: MapsContext, label: string, url: string, init: { method?: string, headers?: Record<string, string>, body?: string }, secrets: string[] = []): Promise<unknown> {
  let res: { status: number, body: string }
  try {
    res = await ctx.http.text(url, { ...init, timeoutMs: ctx.settings.request_timeout_ms })
  } catch (err) {
    if (ctx.signal.aborted || err instanceof BlockedTargetError) throw err
    throw new UpstreamError(`${label} could not be reached: ${scrub((err as Error).message ?? String(err), secrets).slice(0, 200)}`)
  }
  const reason = () => { const r = scrub(bodyReason(res.body), secrets); return r ? `: ${r}` : '' }
  if (res.status === 403 || res.status === 429) throw new ToolBlockedError(`${label} answered HTTP ${res.status}${reason()}`)
  if (res.status === 401) throw new UpstreamError(`${label} rejected the API key (HTTP 401)${reason()}`, 401)
  if (res.status >= 400) throw new UpstreamError(`${label} answered HTTP ${res.status}${reason()}`, res.status)
  try {
    return JSON.parse(res.body)
  } catch {
    throw new UpstreamError(`${label} answered HTTP ${res.status} with something other than JSON: ${scrub(res.body.slice(0, 100), secrets).replace(/\s+/g, ' ')}`, res.status)
  }
}

const pageCap = (ctx: MapsContext, fallback: number) => ctx.settings.max_pages_per_source ?? fallback

// ------------------------------------------------------------------ Serper

/** Serper: POST {base}/places (or /maps) with X-API-KEY; `page` from 1. */
async function * serperPages (ctx: MapsContext, plan: SearchPlan): AsyncGenerator<MapsListing[]> {
  const key = ctx.upstream.requireCredential('serper', 'Maps search through Serper')
  const endpoint = ctx.settings.serper_endpoint
  for (let page = 1; page <= pageCap(ctx, 5); page++) {
    const body: Record<string, unknown> = { q: plan.search, page }
    if (plan.country) body.gl = plan.country.toLowerCase()
    if (plan.language) body.hl = plan.language
    const json = await fetchJson(ctx, 'Serper', `${baseUrl(ctx, 'serper')}/${endpoint}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }, [key])
    const listings = parseSerper(json)
    if (listings.length === 0) return
    yield listings
  }
}

// ------------------------------------------------------------------ SerpApi

/** SerpApi: GET {base}/search.json?engine=google_maps&type=search; 20 a page, `start` = 0, 20, 40… */
async function * serpApiPages (ctx: MapsContext, plan: SearchPlan): AsyncGenerator<MapsListing[]> {
  const key = ctx.upstream.requireCredential('serpapi', 'Maps search through SerpApi')
  for (let page = 0; page < pageCap(ctx, 5); page++) {
    const params = new URLSearchParams({ engine: 'google_maps', type: 'search', q: plan.search })
    if (plan.language) params.set('hl', plan.language)
    if (plan.country) params.set('gl', plan.country.toLowerCase())
    if (page > 0) params.set('start', String(page * 20))
    params.set('api_key', key)
    const parsed = parseSerpApi(await fetchJson(ctx, 'SerpApi', `${baseUrl(ctx, 'serpapi')}/search.json?${params}`, {}, [key]))
    if (parsed.error) throw new UpstreamError(`SerpApi: ${scrub(parsed.error, [key]).slice(0, 200)}`)
    if (parsed.listings.length === 0) return
    yield parsed.listings
    if (!parsed.hasNext) return
  }
}

// ------------------------------------------------------------------ Google Places

const PLACES_FIELD_MASK = [
  'places.id', 'places.displayName', 'places.formattedAddress', 'places.location', 'places.rating', 'places.userRatingCount',
  'places.nationalPhoneNumber', 'places.internationalPhoneNumber', 'places.websiteUri', 'places.primaryType',
  'places.primaryTypeDisplayName', 'places.types', 'nextPageToken',
].join(',')

/** Places API (New): POST {base}/v1/places:searchText with a field mask; `pageToken` paging, 60 at most. */
async function * placesNewPages (ctx: MapsContext, plan: SearchPlan, key: string): AsyncGenerator<MapsListing[]> {
  let pageToken: string | null = null
  for (let page = 0; page < Math.min(3, pageCap(ctx, 3)); page++) {
    const body: Record<string, unknown> = { textQuery: plan.search, pageSize: 20 }
    if (plan.language) body.languageCode = plan.language
    if (plan.country) body.regionCode = plan.country.toUpperCase()
    if (pageToken) body.pageToken = pageToken
    const parsed = parsePlacesNew(await fetchJson(ctx, 'Google Places', `${baseUrl(ctx, 'google_places')}/v1/places:searchText`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'x-goog-fieldmask': PLACES_FIELD_MASK, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }, [key]))
    if (parsed.listings.length === 0) return
    yield parsed.listings
    pageToken = parsed.nextPageToken
    if (!pageToken) return
  }
}

function legacyStatusError (status: string, message: string | null, key: string): Error {
  const text = `Google Places answered ${status}${message ? `: ${scrub(message, [key]).slice(0, 200)}` : ''}`
  return status === 'OVER_QUERY_LIMIT' || status === 'REQUEST_DENIED' ? new ToolBlockedError(text) : new UpstreamError(text)
}

/** Phone and website for listings of a legacy text search, a few at a time; a failed look-up leaves the listing as it was. */
async function addLegacyDetails (ctx: MapsContext, listings: MapsListing[], key: string): Promise<void> {
  const base = baseUrl(ctx, 'google_places', DEFAULT_URLS.google_places_legacy)
  let refused = false
  await mapPool(listings.filter(l => l.source_id && (!l.phone || !l.website)), 4, async l => {
    if (refused || ctx.signal.aborted) return
    const params = new URLSearchParams({ place_id: l.source_id!, fields: 'formatted_phone_number,international_phone_number,website', key })
    if (ctx.input.language) params.set('language', ctx.input.language)
    try {
      const d = parsePlaceDetailsLegacy(await fetchJson(ctx, 'Google Place Details', `${base}/maps/api/place/details/json?${params}`, {}, [key]))
      if (d.status !== 'OK') { if (d.status === 'OVER_QUERY_LIMIT' || d.status === 'REQUEST_DENIED') refused = true; return }
      l.phone ??= d.phone
      l.website ??= d.website
    } catch (err) {
      if (ctx.signal.aborted) throw err
      if (err instanceof ToolBlockedError) refused = true
    }
  })
  if (refused) ctx.warn('Google Place Details refused some look-ups; those listings have no phone or website.')
}

/**
 * Legacy Text Search: GET {base}/maps/api/place/textsearch/json, then
 * `pagetoken` (valid a couple of seconds after it is issued, so the next page
 * waits and retries on INVALID_REQUEST), 60 at most. Phone and website come
 * from Place Details unless settings.places_details is false.
 */
async function * placesLegacyPages (ctx: MapsContext, plan: SearchPlan, key: string): AsyncGenerator<MapsListing[]> {
  const base = baseUrl(ctx, 'google_places', DEFAULT_URLS.google_places_legacy)
  const delay = ctx.settings.places_page_delay_ms
  let pageToken: string | null = null
  let yielded = 0
  for (let page = 0; page < Math.min(3, pageCap(ctx, 3)); page++) {
    const params = new URLSearchParams(pageToken ? { pagetoken: pageToken } : { query: plan.search })
    if (plan.language) params.set('language', plan.language)
    if (plan.country) params.set('region', plan.country.toLowerCase())
    params.set('key', key)
    let parsed = null
    for (let attempt = 0; attempt < (pageToken ? 4 : 1); attempt++) {
      if (pageToken) await sleep(delay, ctx.signal)
      parsed = parsePlacesLegacy(await fetchJson(ctx, 'Google Places', `${base}/maps/api/place/textsearch/json?${params}`, {}, [key]))
      if (!(pageToken && parsed.status === 'INVALID_REQUEST')) break
    }
    if (!parsed || parsed.status === 'ZERO_RESULTS') return
    if (parsed.status !== 'OK') throw legacyStatusError(parsed.status, parsed.errorMessage, key)
    const listings = parsed.listings.slice(0, Math.max(0, plan.wanted - yielded))
    if (listings.length === 0) return
    if (ctx.settings.places_details) await addLegacyDetails(ctx, listings, key)
    yielded += listings.length
    yield listings
    pageToken = parsed.nextPageToken
    if (!pageToken) return
  }
}

async function * googlePlacesPages (ctx: MapsContext, plan: SearchPlan): AsyncGenerator<MapsListing[]> {
  const key = ctx.upstream.requireCredential('google_places', 'Maps search through Google Places')
  yield * (ctx.settings.google_places_api === 'legacy' ? placesLegacyPages(ctx, plan, key) : placesNewPages(ctx, plan, key))
}

// ------------------------------------------------------------------ OpenStreetMap

function osmHeaders (ctx: MapsContext, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': ctx.settings.osm_user_agent, ...extra }
  if (ctx.input.language) headers['accept-language'] = ctx.input.language
  return headers
}

/** Runs one OSM request in this host's turn: one at a time, a second apart (at least, on the public instances), across every job of the app. */
function osmTurn<T> (ctx: MapsContext, url: string, fn: () => Promise<T>): Promise<T> {
  const configured = ctx.settings.osm_min_interval_ms
  const interval = PUBLIC_OSM_HOSTS.test(new URL(url).hostname) ? Math.max(1000, configured) : configured
  return ctx.state.limiter.run(new URL(url).host, interval, ctx.signal, fn)
}

async function geocode (ctx: MapsContext, where: string, country?: string) {
  const state = ctx.state
  const cacheKey = [where.toLowerCase(), country?.toLowerCase() ?? '', ctx.input.language ?? ''].join('|')
  const ttl = ctx.settings.osm_geocode_cache_ttl_ms
  const cached = state.geocodes.get(cacheKey, ttl)
  if (cached) return cached.place
  const params = new URLSearchParams({ format: 'jsonv2', q: where, limit: '1' })
  if (country) params.set('countrycodes', country.toLowerCase())
  const url = `${baseUrl(ctx, 'nominatim')}/search?${params}`
  const place = parseNominatim(await osmTurn(ctx, url, () => fetchJson(ctx, 'Nominatim', url, { headers: osmHeaders(ctx) })))
  state.geocodes.set(cacheKey, place)
  return place
}

async function overpass (ctx: MapsContext, ql: string): Promise<MapsListing[]> {
  const url = `${baseUrl(ctx, 'overpass')}/api/interpreter`
  const json = await osmTurn(ctx, url, () => fetchJson(ctx, 'Overpass', url, {
    method: 'POST',
    headers: osmHeaders(ctx, { 'content-type': 'application/x-www-form-urlencoded' }),
    body: `data=${encodeURIComponent(ql)}`,
  }))
  const listings = parseOverpass(json)
  const remark = overpassRemark(json)
  if (remark && listings.length === 0) throw new UpstreamError(`Overpass: ${remark.slice(0, 200)}`)
  return listings
}

/**
 * Keyless: Nominatim geocodes the place to a bounding box, then Overpass
 * finds named features with the tags the "what" maps to; when tags know the
 * business but found too few, a name search tops them up (and stands alone
 * when no tag rule applies).
 */
async function * osmPages (ctx: MapsContext, plan: SearchPlan): AsyncGenerator<MapsListing[]> {
  if (!plan.where) throw new InputError('OpenStreetMap search needs a place: say where (e.g. "dentists in Austin TX") or pass location.')
  const place = await geocode(ctx, plan.where, plan.country)
  if (!place) {
    ctx.warn(`OpenStreetMap (Nominatim) does not know the place "${plan.where}".`)
    return
  }
  ctx.summary({ place: place.name })
  const { bbox, shrunk } = limitBox(place.bbox, ctx.settings.osm_max_bbox_degrees)
  if (shrunk) ctx.warn(`"${place.name}" is large; OpenStreetMap was searched within about ${ctx.settings.osm_max_bbox_degrees}° around its centre.`)
  const timeout = Math.ceil(ctx.settings.overpass_timeout_ms / 1000)
  const filters = osmFilters(plan.what)
  const byName = nameFilters(nameKeyword(plan.what))
  const first = await overpass(ctx, overpassQuery(filters.length ? filters : byName, bbox, plan.wanted, timeout))
  if (first.length) yield first
  if (filters.length && first.length < plan.wanted && nameKeyword(plan.what).length >= 3) {
    const more = await overpass(ctx, overpassQuery(byName, bbox, plan.wanted, timeout))
    if (more.length) yield more
  }
}

export const SOURCE_PAGES: Record<SourceName, (ctx: MapsContext, plan: SearchPlan) => AsyncGenerator<MapsListing[]>> = {
  serper: serperPages,
  serpapi: serpApiPages,
  google_places: googlePlacesPages,
  osm: osmPages,
}

// ------------------------------------------------------------------ helpers

async function sleep (ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return
  await wait(ms, undefined, { signal })
}

/** Runs fn over items with at most `limit` at once; results in input order. */
export async function mapPool<T, R> (items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!, i)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  return out
}
