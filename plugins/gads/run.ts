// Looks an advertiser up in the Google Ads Transparency Center: by domain
// (SearchCreatives filtered on the domain) or by name (SearchSuggestions, then
// SearchCreatives per matching advertiser id), per region when regions are
// given. Creatives' last-shown dates say whether it is running now.
import { eachItem, InputError, listItems, ToolBlockedError, UpstreamError, type ToolContext } from '../../core/tools/contract.ts'
import type { GadsSettings } from './settings.ts'
import { DOMAINS_LIST } from './list.ts'
import { siteDomain } from '../lib/domains.ts'
import {
  creativesRequest, formBody, looksBlocked, namesMatch, parseCreatives, parseRpcBody, parseSuggestions,
  regionCode, suggestionsRequest, type AdvertiserSuggestion, type Creative,
} from './extract.ts'

export interface GadsInput {
  advertiser?: string
  domain?: string | string[]
  regions: string[]
  max_results: number
  max_creatives: number
}

export interface GadsRow {
  query: string
  source: 'domain' | 'name'
  found: boolean
  advertiser_id: string | null
  advertiser_name: string | null
  advertiser_region: string | null
  domain: string | null
  running_now: boolean
  ad_count: number | null
  ad_count_range: { lower: number | null, upper: number | null } | null
  creatives_seen: number
  regions: string[]
  regions_checked: string[]
  first_shown: string | null
  last_shown: string | null
  formats: { text: number, image: number, video: number }
  sample_creatives: Array<{ creative_id: string, format: string, first_shown: string | null, last_shown: string | null, preview_url: string | null, url: string }>
  transparency_url: string | null
}

type Ctx = ToolContext<GadsInput, GadsRow, GadsSettings>

const DAY_MS = 86_400_000

async function rpc (ctx: Ctx, method: 'SearchSuggestions' | 'SearchCreatives', fReq: string): Promise<unknown> {
  const base = (ctx.upstream.urls.transparency ?? 'https://adstransparency.google.com').replace(/\/+$/, '')
  const url = `${base}/anji/_/rpc/SearchService/${method}?authuser=`
  const res = await ctx.http.text(url, {
    method: 'POST',
    body: formBody(fReq),
    headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', accept: '*/*', origin: base, referer: `${base}/?region=anywhere` },
    timeoutMs: ctx.settings.timeout_ms,
  })
  if (res.status === 429 || res.status === 403) throw new ToolBlockedError(`the Ads Transparency Center answered HTTP ${res.status} to ${method}`)
  if (looksBlocked(res.body, res.url)) throw new ToolBlockedError(`the Ads Transparency Center answered ${method} with a captcha page`)
  if (res.status !== 200) throw new UpstreamError(`the Ads Transparency Center answered HTTP ${res.status} to ${method}`, res.status)
  const body = parseRpcBody(res.body)
  if (body === null) throw new UpstreamError(`the Ads Transparency Center answered ${method} with something that is not JSON: ${res.body.slice(0, 120)}`)
  return body
}

/** Creatives for one target in one region (or anywhere), paged by token up to `limit`. */
async function creativesFor (ctx: Ctx, target: { domain: string } | { advertiserId: string }, region: number | null, limit: number): Promise<Creative[]> {
  const pageSize = ctx.settings.page_size
  const out: Creative[] = []
  let token: string | null = null
  for (let page = 0; out.length < limit && page < 25; page++) {
    const body = await rpc(ctx, 'SearchCreatives', creativesRequest(target, Math.min(pageSize, limit - out.length), region === null ? [] : [region], token))
    const { creatives, nextPageToken } = parseCreatives(body)
    out.push(...creatives)
    if (!nextPageToken || creatives.length === 0) break
    token = nextPageToken
    if (ctx.signal.aborted) throw ctx.signal.reason
  }
  return out.slice(0, limit)
}

interface Found { id: string, name: string | null, region: string | null, range: AdvertiserSuggestion['ad_count_range'], creatives: Creative[], regionsWithAds: Set<string>, domain: string | null }

function rowOf (ctx: Ctx, query: string, source: 'domain' | 'name', f: Found, regionsChecked: string[], now: number): GadsRow {
  const within = ctx.settings.running_within_days * DAY_MS
  const publicBase = ctx.settings.public_base
  const unique = new Map<string, Creative>()
  for (const c of f.creatives) unique.set(c.creative_id ?? `${unique.size}`, c)
  const creatives = [...unique.values()].sort((a, b) => (b.last_shown_ms ?? 0) - (a.last_shown_ms ?? 0))
  const lastMs = Math.max(...creatives.map(c => c.last_shown_ms ?? 0))
  const firsts = creatives.map(c => c.first_shown).filter((d): d is string => d !== null).sort()
  const formats = { text: 0, image: 0, video: 0 }
  for (const c of creatives) if (c.format !== 'unknown') formats[c.format]++
  // The suggestion's count covers every ad of the advertiser; what we paged is a floor.
  const adCount = f.range?.lower ?? f.range?.upper ?? creatives.length
  return {
    query,
    source,
    found: true,
    advertiser_id: f.id,
    advertiser_name: f.name,
    advertiser_region: f.region,
    domain: f.domain,
    running_now: lastMs > 0 && now - lastMs <= within,
    ad_count: adCount,
    ad_count_range: f.range,
    creatives_seen: creatives.length,
    regions: [...f.regionsWithAds].sort(),
    regions_checked: regionsChecked,
    first_shown: firsts[0] ?? null,
    last_shown: lastMs > 0 ? new Date(lastMs).toISOString().slice(0, 10) : null,
    formats,
    sample_creatives: creatives.filter(c => c.creative_id).slice(0, 5).map(c => ({
      creative_id: c.creative_id!, format: c.format, first_shown: c.first_shown, last_shown: c.last_shown, preview_url: c.preview_url,
      url: `${publicBase}/advertiser/${f.id}/creative/${c.creative_id}?region=anywhere`,
    })),
    transparency_url: `${publicBase}/advertiser/${f.id}?region=anywhere`,
  }
}

const notFound = (query: string, source: 'domain' | 'name', domain: string | null, regionsChecked: string[]): GadsRow => ({
  query, source, found: false, advertiser_id: null, advertiser_name: null, advertiser_region: null, domain, running_now: false,
  ad_count: 0, ad_count_range: null, creatives_seen: 0, regions: [], regions_checked: regionsChecked, first_shown: null, last_shown: null,
  formats: { text: 0, image: 0, video: 0 }, sample_creatives: [], transparency_url: null,
})

type Region = { iso: string, code: number }

/**
 * One lookup per domain of the list (or one by name alone), under the list's
 * failure policy (list.ts); every row names what it looked up in `query`. The
 * per-run ceiling spans the list.
 */
export async function runGads (ctx: Ctx): Promise<void> {
  const name = ctx.input.advertiser?.trim() || null
  // The regions are every lookup's: one unknown is the call's error, before any request.
  const regions = ctx.input.regions.map(r => {
    const iso = r.toUpperCase()
    const code = regionCode(iso)
    if (code === null) throw new InputError(`Unknown region '${iso}'. Use an ISO country code such as US, GB, DE.`)
    return { iso, code }
  })
  const domains = listItems(ctx, DOMAINS_LIST)
  if (domains.length <= 1) return lookup(ctx, regions, name, domains[0] ?? null)
  let looked = 0
  await eachItem(ctx, DOMAINS_LIST, domains, async (domain, _index, push) => {
    await lookup(ctx, regions, name, domain, push)
    looked++
    return []
  })
  ctx.summary({ domains_looked_up: looked })
}

async function lookup (ctx: Ctx, codes: Region[], name: string | null, givenDomain: string | null, push: (rows: GadsRow[]) => Promise<number> = rows => ctx.push(rows)): Promise<void> {
  const input = ctx.input
  const domain = givenDomain ? siteDomain(givenDomain) : null
  if (givenDomain && !domain) throw new InputError(`'${givenDomain}' is not a domain`)
  if (!name && !domain) throw new InputError('Give an advertiser name or a domain.')
  const regionsChecked = codes.map(r => r.iso)
  // No region asked: one search "anywhere".
  const passes: Array<{ iso: string | null, code: number | null }> = codes.length ? codes : [{ iso: null, code: null }]
  const limit = input.max_creatives
  const maxAdvertisers = Math.min(input.max_results, ctx.remaining())
  const now = Date.now()
  const found = new Map<string, Found>()

  const addCreatives = (list: Creative[], iso: string | null, fallbackName: string | null, dom: string | null): void => {
    for (const c of list) {
      if (!c.advertiser_id) continue
      let f = found.get(c.advertiser_id)
      if (!f) {
        if (found.size >= maxAdvertisers) continue
        f = { id: c.advertiser_id, name: c.advertiser_name ?? fallbackName, region: null, range: null, creatives: [], regionsWithAds: new Set(), domain: dom }
        found.set(c.advertiser_id, f)
      }
      f.creatives.push(c)
      if (iso) f.regionsWithAds.add(iso)
    }
  }

  let source: 'domain' | 'name' = domain ? 'domain' : 'name'
  let query = domain ?? name!
  if (domain) {
    for (const pass of passes) {
      ctx.stage(`Ads Transparency: creatives for ${domain}${pass.iso ? ` in ${pass.iso}` : ''}`)
      addCreatives(await creativesFor(ctx, { domain }, pass.code, limit), pass.iso, null, domain)
    }
    // The suggestion for each advertiser found carries its total ad count and home country.
    for (const f of found.values()) {
      if (!f.name) continue
      try {
        const s = parseSuggestions(await rpc(ctx, 'SearchSuggestions', suggestionsRequest(f.name, null)))
        const match = s.advertisers.find(a => a.advertiser_id === f.id)
        if (match) { f.region = match.region; f.range = match.ad_count_range; f.name = match.name }
      } catch (err) {
        // The count is a nicety; a refusal still ends the job, other failures only cost the count.
        if (err instanceof ToolBlockedError || ctx.signal.aborted) throw err
        ctx.log.debug({ err }, 'suggestion lookup failed')
      }
    }
  }
  if (found.size === 0 && name) {
    source = 'name'
    query = domain ? `${domain} / ${name}` : name
    ctx.stage(`Ads Transparency: advertisers named like "${name}"`)
    const s = parseSuggestions(await rpc(ctx, 'SearchSuggestions', suggestionsRequest(name, codes.length === 1 ? codes[0]!.code : null)))
    const matching = s.advertisers.filter(a => namesMatch(a.name, name)).slice(0, maxAdvertisers)
    for (const a of matching) {
      const f: Found = { id: a.advertiser_id, name: a.name, region: a.region, range: a.ad_count_range, creatives: [], regionsWithAds: new Set(), domain }
      found.set(a.advertiser_id, f)
      for (const pass of passes) {
        ctx.stage(`Ads Transparency: creatives of ${a.name}${pass.iso ? ` in ${pass.iso}` : ''}`)
        const list = await creativesFor(ctx, { advertiserId: a.advertiser_id }, pass.code, limit)
        f.creatives.push(...list)
        if (pass.iso && list.length) f.regionsWithAds.add(pass.iso)
      }
    }
    // No advertiser by that name, but a suggested domain that is the name: search that domain.
    if (found.size === 0 && !domain) {
      const suggested = s.domains.find(d => namesMatch(d.split('.')[0]!, name))
      if (suggested) {
        source = 'domain'
        for (const pass of passes) addCreatives(await creativesFor(ctx, { domain: suggested }, pass.code, limit), pass.iso, null, suggested)
      }
    }
  }

  const rows = found.size ? [...found.values()].map(f => rowOf(ctx, query, source, f, regionsChecked, now)) : [notFound(query, source, domain, regionsChecked)]
  await push(rows)
  ctx.summary({ advertisers_found: found.size, running_now: rows.some(r => r.running_now) })
  if (found.size === 0) ctx.warn(`The Ads Transparency Center lists no advertiser for ${query}.`)
}
