// The maps run: what and where from the request, then the configured sources
// in order (those with keys; OpenStreetMap needs none), paging until enough
// listings; with deep_scan each listing's website goes through the webemail
// tool inside this job. A source that fails before any row falls through to
// the next; the last failure ends the job (blocked when it refused).
import { eachItem, InputError, listItems, MissingCredentialError } from '../../core/tools/contract.ts'
// Only the tel: normaliser (cheap, inline); page scanning for deep_scan happens in webemail through ctx.extract.
import * as extract from '../lib/phones.ts'
import type { MapsListing, SourceName } from './extract.ts'
import { splitPrompt } from './prompt.ts'
import { PROMPTS_LIST, QUERIES_LIST, type MapsRow } from './schema.ts'
import { SOURCE_PAGES, mapPool, type MapsContext, type SearchPlan } from './sources.ts'

const KEYED: Partial<Record<SourceName, string>> = { serper: 'serper', serpapi: 'serpapi', google_places: 'google_places' }

/** One search of a call: a query or a prompt (a list gives several). */
export type SearchText = { query: string, prompt?: undefined } | { prompt: string, query?: undefined }

/** What, where and the one-line search text from one query / prompt and the call's location. */
export function planOf (input: Omit<MapsContext['input'], 'query' | 'prompt'> & { query?: string, prompt?: string }, wanted: number): SearchPlan {
  const text = (input.prompt ?? input.query ?? '').trim()
  const split = splitPrompt(text)
  const location = input.location?.trim()
  const where = location || split.where
  let search: string
  if (input.query) search = location && !input.query.toLowerCase().includes(location.toLowerCase()) ? `${input.query.trim()} in ${location}` : input.query.trim()
  else search = location ? `${split.subject} in ${location}` : split.search
  return { search, what: split.what, where, country: input.country, language: input.language, wanted }
}

/** The sources this run may use, in order, and why the others were left out. */
function sourcesFor (ctx: MapsContext, plan: SearchPlan): { use: SourceName[], skipped: Array<{ source: SourceName, error: Error }> } {
  const requested = ctx.input.source && ctx.input.source !== 'auto' ? ctx.input.source as SourceName : null
  if (requested) {
    // Asked for by name: a missing key or place is the answer, not a reason to try something else.
    const key = KEYED[requested]
    if (key) ctx.upstream.requireCredential(key, `Maps search through ${requested}`)
    if (requested === 'osm' && !plan.where) throw new InputError('OpenStreetMap search needs a place: say where (e.g. "dentists in Austin TX") or pass location.')
    return { use: [requested], skipped: [] }
  }
  const configured: SourceName[] = [...ctx.settings.sources]
  const use: SourceName[] = []
  const skipped: Array<{ source: SourceName, error: Error }> = []
  for (const source of configured) {
    const key = KEYED[source]
    if (key && !ctx.upstream.credential(key)) {
      skipped.push({ source, error: new MissingCredentialError(ctx.upstream.credentialNames[key] ?? `${key.toUpperCase()}_API_KEY`, `Maps search through ${source}`) })
    } else if (source === 'osm' && !plan.where) {
      skipped.push({ source, error: new InputError('No place was given, which the keyless OpenStreetMap source needs: say where (e.g. "dentists in Austin TX") or pass location.') })
    } else {
      use.push(source)
    }
  }
  return { use, skipped }
}

function listingPhones (phone: string | null, country: string): string[] {
  if (!phone) return []
  return [extract.telHrefToE164(`tel:${phone}`, country) ?? phone.trim()]
}

/** deep_scan: each website through webemail (bounded concurrency); one failing site only marks its own row. */
/** A row before it is told which search found it. */
type ListingRow = Omit<MapsRow, 'query'>

async function deepScan (ctx: MapsContext, listings: MapsListing[], country: string, failures: string[]): Promise<ListingRow[]> {
  const settings = ctx.settings
  const maxPages = settings.deep_scan_max_pages
  return mapPool(listings, settings.concurrency, async (listing): Promise<ListingRow> => {
    const row: ListingRow = { ...listing, emails: [], phones: listingPhones(listing.phone, country), socials: [] }
    const website = listing.website?.trim()
    if (!website || (/^[a-z][a-z0-9+.-]*:/i.test(website) && !/^https?:\/\//i.test(website))) return row
    try {
      const [found] = await ctx.tools.run('webemail', { website, max_pages: maxPages, include_phones: true, include_socials: true }, { maxRows: 1 })
      if (!found) return row
      row.emails = found.emails
      row.phones = [...new Set([...row.phones!, ...found.phones])]
      row.socials = found.socials.map(s => ({ platform: s.platform, url: s.url, host: s.host }))
    } catch (err) {
      if (ctx.signal.aborted) throw err
      row.deep_scan_error = (err as Error).message?.slice(0, 300) || 'the website could not be scanned'
      failures.push(`${website}: ${row.deep_scan_error}`)
    }
    ctx.stage(`scanning websites: ${listing.name}`)
    return row
  })
}

const dedupeKey = (l: MapsListing) => l.source_id ?? `${l.name.toLowerCase()}|${(l.address ?? '').toLowerCase()}`

/**
 * Each search of the call's list (its query or prompt; the kernel refused a
 * call with neither) in turn, rows naming theirs, under the list's failure
 * policy (schema.ts). One search is the call's own: its summary is the job's.
 */
export async function runMaps (ctx: MapsContext): Promise<void> {
  const list = ctx.input.query !== undefined ? QUERIES_LIST : PROMPTS_LIST
  const given = listItems(ctx, list)
  const searches: SearchText[] = given.map(text => (list === QUERIES_LIST ? { query: text } : { prompt: text }))
  if (searches.length === 0) {
    if (ctx.remaining() > 0) throw new InputError('Send either query or prompt.')
    return
  }
  if (searches.length === 1) return searchOne(ctx, searches[0]!)
  const summaries: Array<Record<string, unknown>> = []
  try {
    await eachItem(ctx, list, given, async (text, index) => {
      // Each search's summary (source, sources tried…) is kept apart, under `searches`.
      const summary: Record<string, unknown> = { query: text }
      summaries.push(summary)
      try {
        await searchOne({ ...ctx, summary: data => Object.assign(summary, data) }, searches[index]!)
      } catch (err) {
        summary.error = (err as Error).message
        throw err
      }
      return []
    }, { stage: (index, total, text) => `search ${index + 1} of ${total}: "${text}"`, label: text => `"${text}" failed` })
  } finally {
    ctx.summary({ searches: summaries })
  }
}

async function searchOne (ctx: MapsContext, text: SearchText): Promise<void> {
  const wanted = Math.min(ctx.input.max_results, ctx.remaining())
  const plan = planOf({ ...ctx.input, query: text.query, prompt: text.prompt }, wanted)
  const given = (text.query ?? text.prompt)!
  if (!plan.search) throw new InputError('Send either query or prompt.')
  const phoneCountry = (ctx.input.country ?? ctx.settings.default_phone_country).toUpperCase()
  const { use, skipped } = sourcesFor(ctx, plan)
  ctx.summary({ what: plan.what, where: plan.where || null, search: plan.search })
  if (use.length === 0) {
    // Nothing usable. A missing place is the caller's to fix, so it is said first (with the keys that would have served it).
    const missingKeys = skipped.map(s => s.error).filter((e): e is MissingCredentialError => e instanceof MissingCredentialError)
    if (skipped.some(s => s.source === 'osm')) {
      throw new InputError(`No place was given: say where (e.g. "dentists in Austin TX") or pass location; the keyless OpenStreetMap source needs one.${missingKeys.length ? ` (Searching without a place needs a Google-backed source; not set here: ${missingKeys.map(e => e.variable).join(', ')}.)` : ''}`)
    }
    throw missingKeys[0] ?? new InputError('No maps source is configured (settings.sources).')
  }

  const tried: Array<{ source: SourceName, outcome: string }> = skipped.map(s => ({ source: s.source, outcome: s.error instanceof MissingCredentialError ? `skipped: ${s.error.variable} not set` : 'skipped: no place' }))
  let lastError: unknown = null
  for (const source of use) {
    const seen = new Set<string>()
    const failures: string[] = []
    let pushed = 0
    ctx.stage(`searching ${source} for "${plan.search}"`)
    try {
      for await (const page of SOURCE_PAGES[source](ctx, { ...plan, wanted })) {
        const fresh = page.filter(l => { const k = dedupeKey(l); if (seen.has(k)) return false; seen.add(k); return true })
        // A page of repeats means the source has nothing new to give.
        if (fresh.length === 0) break
        const take = fresh.slice(0, Math.min(wanted - pushed, ctx.remaining()))
        if (take.length === 0) break
        const rows: ListingRow[] = ctx.input.deep_scan ? await deepScan(ctx, take, phoneCountry, failures) : take
        pushed += await ctx.push(rows.map(row => ({ query: given, ...row })))
        ctx.stage(`${source}: ${pushed} of ${wanted} listings`)
        if (pushed >= wanted || ctx.remaining() <= 0) break
      }
    } catch (err) {
      if (ctx.signal.aborted) throw err
      const message = (err as Error).message ?? String(err)
      if (pushed > 0) {
        // Rows are stored already: keep them and say why the list is short.
        ctx.warn(`${source} failed after ${pushed} listings: ${message}`)
        tried.push({ source, outcome: `failed after ${pushed}: ${message}` })
        ctx.summary({ source, sources_tried: tried })
        return
      }
      tried.push({ source, outcome: `failed: ${message}` })
      ctx.log.info({ source, err: message }, 'maps source failed')
      lastError = err
      continue
    }
    tried.push({ source, outcome: `answered: ${pushed} listings` })
    ctx.summary({ source, sources_tried: tried })
    if (lastError) ctx.warn(`Earlier sources failed (${tried.filter(t => t.outcome.startsWith('failed')).map(t => t.source).join(', ')}); ${source} answered.`)
    if (pushed === 0) ctx.warn(`${source} found no listings for "${plan.search}".`)
    if (failures.length) ctx.warn(`${failures.length} website(s) could not be scanned; their rows carry deep_scan_error.`)
    return
  }
  ctx.summary({ sources_tried: tried })
  // Every usable source failed: the last one's outcome is the job's (blocked when it refused).
  throw lastError
}
