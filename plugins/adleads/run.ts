// The lead finder: a maps search for niche + city (the maps tool, inside this
// job), then per business, with bounded concurrency, the Meta Ad Library
// (fbads) and the Google Ads Transparency Center (gads). A check that cannot
// run leaves its verdict null with the reason; a source that refuses or lacks
// its credential is not asked again for the other businesses.
import { InputError, JobOutcomeError, ToolBlockedError, type NestedRow, type ToolContext } from '../../core/tools/contract.ts'
import type { AdleadsSettings } from './settings.ts'
import { googleVerdict, metaAdsOf, ownDomain } from './match.ts'

export interface AdleadsInput {
  niche?: string
  city?: string
  query?: string
  country: string
  max_results: number
  check_meta: boolean
  check_google: boolean
  meta_active_only: boolean
}

export interface AdleadsRow {
  name: string
  category: string | null
  address: string | null
  phone: string | null
  website: string | null
  domain: string | null
  rating: number | null
  review_count: number | null
  maps_source: string | null
  maps_id: string | null
  runs_meta_ads: boolean | null
  meta_ads_count: number | null
  meta_page_ids: string[]
  meta_page_name: string | null
  meta_reason: string | null
  runs_google_ads: boolean | null
  google_ads_count: number | null
  google_advertiser_id: string | null
  google_advertiser_name: string | null
  google_last_shown: string | null
  google_matched_by: 'domain' | 'name' | null
  google_reason: string | null
}

type Ctx = ToolContext<AdleadsInput, AdleadsRow, AdleadsSettings>
/** A `maps` row: its declaration's row type (NestedTools), checked against maps' row schema by the kernel. */
type Listing = NestedRow<'maps'>

const s = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null)
const n = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/**
 * One source's health across the run: after a refusal or a missing key it is not
 * asked again. (A disabled fbads or gads cannot happen: `uses` makes boot refuse it.)
 */
class SourceGate {
  stopped: string | null = null
  constructor (readonly label: string) {}
  /** The reason a failure gives the row; stops the gate when the failure will repeat for every business. */
  failure (err: unknown): string {
    const message = ((err as Error)?.message ?? String(err)).slice(0, 300)
    // A missing key, a bad setting or a tool not enabled here fails every business alike.
    if (err instanceof JobOutcomeError && err.needsOperator) {
      this.stopped ??= `not checked: ${message}`
      return this.stopped
    }
    if (err instanceof ToolBlockedError) {
      this.stopped ??= `not checked: ${this.label} refused an earlier request (${message})`
      return `${this.label} refused the request: ${message}`
    }
    return `${this.label} check failed: ${message}`
  }

  /** One business's check of this source: why it was not read (the check's failure, or the gate already stopped), or null. */
  async check (signal: AbortSignal, read: () => Promise<void>): Promise<string | null> {
    if (this.stopped) return this.stopped
    try {
      await read()
      return null
    } catch (err) {
      if (signal.aborted) throw err
      return this.failure(err)
    }
  }
}

async function checkMeta (ctx: Ctx, gate: SourceGate, row: AdleadsRow): Promise<void> {
  const settings = ctx.settings
  row.meta_reason = await gate.check(ctx.signal, async () => {
    const ads = await ctx.tools.run('fbads', {
      search_terms: row.name.slice(0, 100),
      ad_reached_countries: [ctx.input.country.toUpperCase()],
      ad_active_status: ctx.input.meta_active_only ? 'ACTIVE' : 'ALL',
      max_results: settings.meta_max_ads,
    }, { maxRows: settings.meta_max_ads })
    const verdict = metaAdsOf(ads, row.name, row.domain)
    row.runs_meta_ads = verdict.count > 0
    row.meta_ads_count = verdict.count
    row.meta_page_ids = verdict.page_ids
    row.meta_page_name = verdict.page_name
  })
}

async function checkGoogle (ctx: Ctx, gate: SourceGate, row: AdleadsRow): Promise<void> {
  row.google_reason = await gate.check(ctx.signal, async () => {
    // The website's domain identifies the advertiser; a name alone may match a namesake elsewhere.
    const args = row.domain ? { domain: row.domain } : { advertiser: row.name.slice(0, 200) }
    row.google_matched_by = row.domain ? 'domain' : 'name'
    const found = await ctx.tools.run('gads', { ...args, max_results: 1, max_creatives: ctx.settings.google_max_creatives }, { maxRows: 3 })
    const verdict = googleVerdict(found)
    row.runs_google_ads = verdict.running
    row.google_ads_count = verdict.count
    row.google_advertiser_id = verdict.advertiser_id
    row.google_advertiser_name = verdict.advertiser_name
    row.google_last_shown = verdict.last_shown
  })
}

function rowOf (listing: Listing): AdleadsRow {
  return {
    name: s(listing.name) ?? '',
    category: s(listing.category),
    address: s(listing.address),
    phone: s(listing.phone),
    website: s(listing.website),
    domain: ownDomain(listing.website),
    rating: n(listing.rating),
    review_count: n(listing.review_count) === null ? null : Math.trunc(n(listing.review_count)!),
    maps_source: s(listing.source),
    maps_id: s(listing.source_id),
    runs_meta_ads: null,
    meta_ads_count: null,
    meta_page_ids: [],
    meta_page_name: null,
    meta_reason: null,
    runs_google_ads: null,
    google_ads_count: null,
    google_advertiser_id: null,
    google_advertiser_name: null,
    google_last_shown: null,
    google_matched_by: null,
    google_reason: null,
  }
}

export async function runAdleads (ctx: Ctx): Promise<void> {
  const input = ctx.input
  const niche = input.niche?.trim()
  const city = input.city?.trim()
  const query = input.query?.trim() || (niche && city ? `${niche} in ${city}` : null)
  if (!query) throw new InputError('Give niche and city (e.g. "dentists", "Austin TX"), or query ("dentists in Austin TX").')
  const wanted = Math.min(input.max_results, ctx.remaining())
  ctx.stage(`maps: searching "${query}"`)
  // A failing maps search ends the job: there is nothing to check without listings.
  const listings = await ctx.tools.run('maps', { query, max_results: wanted, country: input.country.toLowerCase() }, { maxRows: wanted })
  const rows = listings.map(rowOf).filter(r => r.name !== '')
  if (rows.length === 0) {
    ctx.warn(`The maps search for "${query}" found no businesses.`)
    return
  }
  if (!input.check_meta) for (const r of rows) r.meta_reason = 'not checked: check_meta is false'
  if (!input.check_google) for (const r of rows) r.google_reason = 'not checked: check_google is false'

  const meta = new SourceGate('Meta Ad Library')
  const google = new SourceGate('Google Ads Transparency Center')
  const concurrency = ctx.settings.concurrency
  let done = 0
  // Businesses are checked a few at a time and pushed in listing order as each batch completes.
  for (let i = 0; i < rows.length && ctx.remaining() > 0; i += concurrency) {
    const batch = rows.slice(i, i + concurrency)
    await Promise.all(batch.map(async row => {
      await Promise.all([
        input.check_meta ? checkMeta(ctx, meta, row) : undefined,
        input.check_google ? checkGoogle(ctx, google, row) : undefined,
      ])
      done++
      ctx.stage(`checked ${done} of ${rows.length} businesses for ads`)
    }))
    if (ctx.signal.aborted) throw ctx.signal.reason
    await ctx.push(batch)
  }
  const metaCount = rows.filter(r => r.runs_meta_ads === true).length
  const googleCount = rows.filter(r => r.runs_google_ads === true).length
  ctx.summary({ query, businesses: rows.length, runs_meta_ads: metaCount, runs_google_ads: googleCount, meta_unchecked: meta.stopped, google_unchecked: google.stopped })
  if (meta.stopped) ctx.warn(`Meta ads ${meta.stopped}.`)
  if (google.stopped) ctx.warn(`Google ads ${google.stopped}.`)
}
