// Pure parsing for the Google Ads Transparency Center's RPC answers and the
// f.req payloads that ask for them.
//
// The endpoints are the ones the adstransparency.google.com web app calls:
//   POST /anji/_/rpc/SearchService/SearchSuggestions   f.req={"1":"<text>","2":10,"3":10}
//   POST /anji/_/rpc/SearchService/SearchCreatives     f.req={"2":<n>,"3":{"12":{"1":"<domain>","2":true}},"7":{"1":1}}
//                                                      f.req={"2":<n>,"3":{"12":{"1":"","2":true},"13":{"1":["AR…"]}},"7":{"1":1}}
// with "3"."8" a list of region codes and "4" the page token. Request and
// answer shapes follow the open-source scraper faniAhmed/GoogleAdsTransparencyScraper
// (GoogleAds/main.py: suggestion "1"."1" name, "1"."2" advertiser id, "1"."4"."2"
// ad count; creative "1" advertiser id, "2" creative id, "12" advertiser name,
// "2" next-page token) and other public collectors of the same endpoints
// (creative "4" format 1 text / 2 image / 3 video, "6"."1" first and "7"."1"
// last shown as Unix seconds, "3"."1"."4" preview URL; suggestion "1"."3" the
// advertiser's country and "1"."4"."2" an ad-count range {"1": low, "2": high}).
// Field numbers are protobuf tags, so every read here is defensive.

import { isRecord, readJson, textOf, type Json } from '../lib/json.ts'

const isObject = isRecord
const str = textOf
const int = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN
  return Number.isFinite(n) ? Math.trunc(n) : null
}

// Google's geo target ids for countries are 2000 + the ISO 3166-1 numeric code (US 840 -> 2840).
const ISO_NUMERIC: Record<string, number> = {
  AE: 784, AR: 32, AT: 40, AU: 36, BD: 50, BE: 56, BG: 100, BR: 76, CA: 124, CH: 756, CL: 152, CN: 156, CO: 170, CZ: 203,
  DE: 276, DK: 208, DZ: 12, EE: 233, EG: 818, ES: 724, FI: 246, FR: 250, GB: 826, GR: 300, HK: 344, HR: 191, HU: 348,
  ID: 360, IE: 372, IL: 376, IN: 356, IT: 380, JP: 392, KE: 404, KR: 410, LT: 440, LU: 442, LV: 428, MA: 504, MX: 484,
  MY: 458, NG: 566, NL: 528, NO: 578, NZ: 554, PE: 604, PH: 608, PK: 586, PL: 616, PT: 620, RO: 642, RS: 688, RU: 643,
  SA: 682, SE: 752, SG: 702, SI: 705, SK: 703, TH: 764, TR: 792, TW: 158, UA: 804, US: 840, VN: 704, ZA: 710,
}

/** The Transparency Center's numeric region code for an ISO country code, or null when unknown. */
export function regionCode (iso: string): number | null {
  const n = ISO_NUMERIC[iso.toUpperCase()]
  return n === undefined ? null : 2000 + n
}

// ---------------------------------------------------------------- requests

export function suggestionsRequest (text: string, region: number | null): string {
  const req: Json = { 1: text, 2: 10, 3: 10 }
  if (region !== null) req[4] = [region]
  return JSON.stringify(req)
}

export function creativesRequest (target: { domain: string } | { advertiserId: string }, pageSize: number, regions: number[], pageToken: string | null): string {
  const filter: Json = 'domain' in target ? { 12: { 1: target.domain, 2: true } } : { 12: { 1: '', 2: true }, 13: { 1: [target.advertiserId] } }
  if (regions.length) filter[8] = regions
  const req: Json = { 2: pageSize, 3: filter, 7: { 1: 1 } }
  if (pageToken) req[4] = pageToken
  return JSON.stringify(req)
}

/** Form body of an RPC call. */
export const formBody = (fReq: string): string => new URLSearchParams({ 'f.req': fReq }).toString()

// ---------------------------------------------------------------- answers

/** Parses an RPC body: JSON, possibly behind Google's )]}' anti-hijacking prefix. Null when not JSON. */
export function parseRpcBody (body: string): unknown {
  return readJson(body.replace(/^\s*\)\]\}'\s*/, ''))
}

/** A captcha, "unusual traffic" or sign-in page instead of JSON. */
export function looksBlocked (body: string, finalUrl: string): boolean {
  return /\/sorry\/|accounts\.google\.com\/ServiceLogin/.test(finalUrl) ||
    /unusual traffic|g-recaptcha|id="captcha-form"|recaptcha\/api\.js|\/sorry\/index/i.test(body)
}

export interface AdvertiserSuggestion {
  advertiser_id: string
  name: string
  region: string | null
  ad_count_range: { lower: number | null, upper: number | null } | null
}

export interface Suggestions { advertisers: AdvertiserSuggestion[], domains: string[] }

export function parseSuggestions (body: unknown): Suggestions {
  const out: Suggestions = { advertisers: [], domains: [] }
  if (!isObject(body) || !Array.isArray(body[1])) return out
  for (const item of body[1]) {
    if (!isObject(item)) continue
    const adv = item[1]
    if (isObject(adv)) {
      const name = str(adv[1]); const id = str(adv[2])
      if (!name || !id) continue
      const counts = isObject(adv[4]) && isObject(adv[4][2]) ? adv[4][2] : null
      const lower = counts ? int(counts[1]) : null
      const upper = counts ? int(counts[2]) : null
      out.advertisers.push({ advertiser_id: id, name, region: str(adv[3]), ad_count_range: lower === null && upper === null ? null : { lower, upper } })
      continue
    }
    const dom = item[2]
    if (isObject(dom) && str(dom[1])) out.domains.push(str(dom[1])!)
  }
  return out
}

type AdFormat = 'text' | 'image' | 'video' | 'unknown'

export interface Creative {
  advertiser_id: string | null
  advertiser_name: string | null
  creative_id: string | null
  format: AdFormat
  first_shown: string | null
  last_shown: string | null
  last_shown_ms: number | null
  preview_url: string | null
  domain: string | null
}

const FORMATS: Record<number, AdFormat> = { 1: 'text', 2: 'image', 3: 'video' }

const timestamp = (v: unknown): number | null => {
  const seconds = isObject(v) ? int(v[1]) : int(v)
  return seconds === null ? null : seconds * 1000
}
const day = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().slice(0, 10))

export function parseCreatives (body: unknown): { creatives: Creative[], nextPageToken: string | null } {
  if (!isObject(body)) return { creatives: [], nextPageToken: null }
  const list = Array.isArray(body[1]) ? body[1] : []
  const creatives: Creative[] = list.filter(isObject).map(item => {
    const first = timestamp(item[6])
    const last = timestamp(item[7])
    const render = isObject(item[3]) ? item[3] : {}
    let preview = isObject(render[1]) ? str(render[1][4]) : null
    if (!preview && isObject(render[3])) preview = /src="(https?:\/\/[^"]+)"/.exec(String(render[3][2] ?? ''))?.[1] ?? null
    return {
      advertiser_id: str(item[1]),
      advertiser_name: str(item[12]),
      creative_id: str(item[2]),
      format: FORMATS[int(item[4]) ?? 0] ?? 'unknown',
      first_shown: day(first),
      last_shown: day(last),
      last_shown_ms: last,
      preview_url: preview,
      domain: str(item[14]),
    }
  })
  return { creatives, nextPageToken: str(body[2]) }
}

// ---------------------------------------------------------------- matching

export { namesMatch } from '../lib/business-names.ts'

