// Searches the Meta Ad Library API (GET {graph}/{version}/ads_archive) and
// pages with the `after` cursor until max_results or the last page. The access
// token travels in the query string, so every error text is scrubbed of it.
import { InputError, MissingCredentialError, ToolBlockedError, UpstreamError, type ToolContext } from '../../core/tools/contract.ts'
import type { FbadsSettings } from './settings.ts'
import { adsArchiveRecords, graphOutcome, nextCursor, parseAdRecord, type AdRow } from './extract.ts'

export interface FbadsInput {
  search_terms?: string
  search_page_ids?: string[]
  ad_reached_countries: string[]
  ad_active_status: 'ACTIVE' | 'INACTIVE' | 'ALL'
  ad_type: 'ALL' | 'POLITICAL_AND_ISSUE_ADS' | 'HOUSING_ADS' | 'EMPLOYMENT_ADS' | 'CREDIT_ADS'
  search_type: 'KEYWORD_UNORDERED' | 'KEYWORD_EXACT_PHRASE'
  publisher_platforms?: string[]
  ad_delivery_date_min?: string
  ad_delivery_date_max?: string
  max_results: number
}

export const AD_FIELDS = [
  'id', 'ad_creation_time', 'ad_creative_bodies', 'ad_creative_link_captions', 'ad_creative_link_descriptions',
  'ad_creative_link_titles', 'ad_delivery_start_time', 'ad_delivery_stop_time', 'ad_snapshot_url', 'bylines',
  'currency', 'estimated_audience_size', 'impressions', 'languages', 'page_id', 'page_name', 'publisher_platforms', 'spend',
]

type Ctx = ToolContext<FbadsInput, AdRow, FbadsSettings>

/** The ads_archive URL for one page (the token added last, by the caller). */
export function adsArchiveUrl (base: string, version: string, input: FbadsInput, limit: number, after: string | null): URL {
  const url = new URL(`${base.replace(/\/+$/, '')}/${version}/ads_archive`)
  const p = url.searchParams
  if (input.search_terms) p.set('search_terms', input.search_terms)
  if (input.search_page_ids?.length) p.set('search_page_ids', JSON.stringify(input.search_page_ids.map(id => (/^\d+$/.test(id) ? Number(id) : id))))
  p.set('ad_reached_countries', JSON.stringify(input.ad_reached_countries.map(c => c.toUpperCase())))
  p.set('ad_active_status', input.ad_active_status)
  p.set('ad_type', input.ad_type)
  if (input.search_terms) p.set('search_type', input.search_type)
  if (input.publisher_platforms?.length) p.set('publisher_platforms', JSON.stringify(input.publisher_platforms.map(x => x.toUpperCase())))
  if (input.ad_delivery_date_min) p.set('ad_delivery_date_min', input.ad_delivery_date_min)
  if (input.ad_delivery_date_max) p.set('ad_delivery_date_max', input.ad_delivery_date_max)
  p.set('fields', AD_FIELDS.join(','))
  p.set('limit', String(limit))
  if (after) p.set('after', after)
  return url
}

const scrub = (text: string, token: string) => (token ? text.split(token).join('REDACTED') : text).replace(/access_token=[^&\s"']+/g, 'access_token=REDACTED')

export async function runFbads (ctx: Ctx): Promise<void> {
  const input = ctx.input
  const terms = input.search_terms?.trim()
  if (!terms && !input.search_page_ids?.length) throw new InputError('Give search_terms (a brand or keyword) or search_page_ids (advertiser page ids).')
  // Checked before any request: no token, no call, and the error names the variable.
  const token = ctx.upstream.credential('meta')
  if (!token) throw new MissingCredentialError(ctx.upstream.credentialNames.meta ?? 'META_ACCESS_TOKEN', 'The Meta Ad Library tool (fbads)')
  const settings = ctx.settings
  const base = ctx.upstream.urls.graph ?? 'https://graph.facebook.com'
  const version = settings.api_version
  const pageSize = settings.page_size
  const wanted = Math.min(input.max_results, ctx.remaining())
  let pushed = 0
  let after: string | null = null
  let pages = 0
  const seen = new Set<string>()

  while (pushed < wanted && ctx.remaining() > 0) {
    const url = adsArchiveUrl(base, version, { ...input, search_terms: terms }, Math.min(pageSize, wanted - pushed), after)
    url.searchParams.set('access_token', token)
    ctx.stage(`Ad Library: page ${pages + 1}, ${pushed} ads so far`)
    let res: { status: number, body: string }
    try {
      res = await ctx.http.text(url, { timeoutMs: settings.timeout_ms, maxRedirects: 0, headers: { accept: 'application/json' } })
    } catch (err) {
      // The guard and the client name the URL in their messages: the token must not reach the job's error.
      if (err instanceof Error) { err.message = scrub(err.message, token); if (err.stack) err.stack = scrub(err.stack, token) }
      throw err
    }
    pages++
    let body: unknown = null
    try { body = JSON.parse(res.body) } catch {}
    const outcome = graphOutcome(res.status, body)
    if (outcome.kind === 'blocked') throw new ToolBlockedError(scrub(outcome.reason, token))
    if (outcome.kind === 'token') throw new UpstreamError(`${scrub(outcome.reason, token)}. Check ${ctx.upstream.credentialNames.meta ?? 'META_ACCESS_TOKEN'}.`, res.status)
    if (outcome.kind === 'failed') throw new UpstreamError(scrub(outcome.reason, token), res.status)
    const now = new Date()
    const rows = adsArchiveRecords(body)!.map(r => parseAdRecord(r, now)).filter(r => {
      if (!r.ad_id) return true
      if (seen.has(r.ad_id)) return false
      seen.add(r.ad_id)
      return true
    })
    if (rows.length) pushed += await ctx.push(rows.slice(0, wanted - pushed))
    after = nextCursor(body)
    if (!after || rows.length === 0) break
    if (ctx.signal.aborted) throw ctx.signal.reason
  }
  ctx.summary({ pages, api_version: version })
  if (pushed === 0) ctx.warn(`The Ad Library has no ${input.ad_active_status === 'ALL' ? '' : `${input.ad_active_status.toLowerCase()} `}ads for this search in ${input.ad_reached_countries.join(', ')}.`)
}
