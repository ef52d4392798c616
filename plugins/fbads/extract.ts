// Pure parsing of Meta Ad Library API (`ads_archive`) answers: ad records ->
// rows, Graph error bodies -> outcomes, paging -> the next cursor. Handles the
// current field names (ad_creative_bodies, bylines, id) and the v3.x ones
// (ad_creative_body, funding_entity, no id: it is read from the snapshot URL).

import { isRecord, textOf, type Json } from '../lib/json.ts'

const isObject = isRecord

interface Range { lower: number | null, upper: number | null }

export interface AdRow {
  ad_id: string | null
  page_id: string | null
  page_name: string | null
  ad_creation_time: string | null
  delivery_start: string | null
  delivery_stop: string | null
  active: boolean | null
  creative_bodies: string[]
  link_titles: string[]
  link_captions: string[]
  link_descriptions: string[]
  snapshot_url: string | null
  ad_library_url: string | null
  platforms: string[]
  languages: string[]
  currency: string | null
  spend: Range | null
  impressions: Range | null
  audience_size: Range | null
  funded_by: string | null
  reached_countries: string[]
}

const str = textOf

/** Plural field (v4+) or its singular v3 ancestor, as a de-duplicated list. */
function texts (record: Json, plural: string, singular: string): string[] {
  const raw = Array.isArray(record[plural]) ? record[plural] as unknown[] : record[singular] !== undefined ? [record[singular]] : []
  return [...new Set(raw.map(str).filter((s): s is string => s !== null))]
}

function range (v: unknown): Range | null {
  if (!isObject(v)) return null
  const num = (x: unknown) => { const n = typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN; return Number.isFinite(n) ? n : null }
  const lower = num(v.lower_bound)
  const upper = num(v.upper_bound)
  return lower === null && upper === null ? null : { lower, upper }
}

/**
 * The snapshot URL embeds the caller's access token (`&access_token=...`);
 * rows are stored and exported, so the token never goes with them.
 */
export function stripAccessToken (url: string | null): string | null {
  if (!url) return null
  try {
    const u = new URL(url)
    u.searchParams.delete('access_token')
    return u.toString()
  } catch {
    return url.replace(/([?&])access_token=[^&#]*(&?)/gi, (_m, lead: string, tail: string) => (tail ? lead : '')).replace(/[?&]$/, '')
  }
}

function idFromSnapshot (url: string | null): string | null {
  if (!url) return null
  try { return new URL(url).searchParams.get('id') } catch { return /[?&]id=(\d+)/.exec(url)?.[1] ?? null }
}

/** Graph times look like 2019-05-13T15:30:04+0000; rows carry ISO 8601 UTC. */
export function graphTime (v: unknown): string | null {
  const s = str(v)
  if (!s) return null
  const normalised = s.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')
  const d = new Date(normalised)
  return Number.isNaN(d.getTime()) ? s : d.toISOString()
}

export function parseAdRecord (record: Json, now: Date = new Date()): AdRow {
  const snapshot = stripAccessToken(str(record.ad_snapshot_url))
  const id = str(record.id) ?? idFromSnapshot(snapshot)
  const stop = graphTime(record.ad_delivery_stop_time)
  const start = graphTime(record.ad_delivery_start_time)
  return {
    ad_id: id,
    page_id: str(record.page_id),
    page_name: str(record.page_name),
    ad_creation_time: graphTime(record.ad_creation_time),
    delivery_start: start,
    delivery_stop: stop,
    // No stop time means the ad is still delivering; a stop time in the future, too.
    active: start === null && stop === null ? null : stop === null ? true : new Date(stop).getTime() > now.getTime(),
    creative_bodies: texts(record, 'ad_creative_bodies', 'ad_creative_body'),
    link_titles: texts(record, 'ad_creative_link_titles', 'ad_creative_link_title'),
    link_captions: texts(record, 'ad_creative_link_captions', 'ad_creative_link_caption'),
    link_descriptions: texts(record, 'ad_creative_link_descriptions', 'ad_creative_link_description'),
    snapshot_url: snapshot,
    ad_library_url: id ? `https://www.facebook.com/ads/library/?id=${encodeURIComponent(id)}` : null,
    platforms: texts(record, 'publisher_platforms', 'publisher_platform').map(p => p.toLowerCase()),
    languages: texts(record, 'languages', 'language'),
    currency: str(record.currency),
    spend: range(record.spend),
    impressions: range(record.impressions),
    audience_size: range(record.estimated_audience_size),
    funded_by: str(record.bylines) ?? str(record.funding_entity),
    reached_countries: texts(record, 'reached_countries', 'reached_country'),
  }
}

/** The `data` records of an ads_archive page (or a bare array of records). */
export function adsArchiveRecords (body: unknown): Json[] | null {
  if (Array.isArray(body)) return body.filter(isObject)
  if (isObject(body) && Array.isArray(body.data)) return body.data.filter(isObject)
  return null
}

/** The `after` cursor of the next page, or null on the last page (no `paging.next`). */
export function nextCursor (body: unknown): string | null {
  if (!isObject(body) || !isObject(body.paging)) return null
  const paging = body.paging
  const next = str(paging.next)
  if (!next) return null
  const cursors = isObject(paging.cursors) ? paging.cursors : {}
  const after = str(cursors.after)
  if (after) return after
  try { return new URL(next).searchParams.get('after') } catch { return null }
}

// Graph codes for throttling: 4 app, 17 user, 32 page, 613 custom rate limit, 80000-80014 business use case.
const RATE_LIMIT_CODES = new Set([4, 17, 32, 341, 368, 613])

export type GraphOutcome =
  | { kind: 'ok' }
  | { kind: 'blocked', reason: string }
  | { kind: 'token', reason: string }
  | { kind: 'failed', reason: string }

/** What an ads_archive answer means: data, a refusal (blocked), a rejected token, or a failure. */
export function graphOutcome (status: number, body: unknown): GraphOutcome {
  const error = isObject(body) && isObject(body.error) ? body.error : null
  const code = error && typeof error.code === 'number' ? error.code : null
  const sub = error && typeof error.error_subcode === 'number' ? error.error_subcode : null
  const message = error ? str(error.message) ?? 'no message' : null
  const detail = error ? `${message} (code ${code ?? '?'}${sub ? `, subcode ${sub}` : ''})` : `HTTP ${status}`
  if (error && code !== null && (RATE_LIMIT_CODES.has(code) || (code >= 80000 && code <= 80014))) return { kind: 'blocked', reason: `the Ad Library API is rate-limiting this app: ${detail}` }
  if (status === 429) return { kind: 'blocked', reason: `the Ad Library API answered HTTP 429: ${detail}` }
  if (error && code === 190) return { kind: 'token', reason: `the Ad Library API rejected the access token: ${detail}` }
  if (status === 403) return { kind: 'blocked', reason: `the Ad Library API refused the request (HTTP 403): ${detail}` }
  if (error) return { kind: 'failed', reason: `the Ad Library API answered an error: ${detail}` }
  if (status !== 200) return { kind: 'failed', reason: `the Ad Library API answered HTTP ${status}` }
  if (adsArchiveRecords(body) === null) return { kind: 'failed', reason: 'the Ad Library API answered without a data list' }
  return { kind: 'ok' }
}
