// Reads each page: with META_ACCESS_TOKEN, the Graph API page fields first and
// the logged-out HTML only for what the answer lacks (or when the API refuses);
// without it, the HTML alone. Redirects are followed by hand on the configured
// base, so a login, checkpoint or consent redirect is seen as such (blocked,
// refunded) and a test's stand-in never hands the client to the real site.
// Parsing runs in the kernel's worker pool (ctx.extract.call on ./extract.ts).
import { eachItem, ExtractionError, listItems, InputError, ToolBlockedError, UpstreamError, type RunInput, type Static, type ToolContext } from '../../core/tools/contract.ts'
import { mergeDetails, missingFields, pagePath, pageRef, wallOfPath, type GraphReading, type HtmlReading, type PageDetails, type PageRef, type Wall } from './extract.ts'
import type { fbInput, fbPageRow } from './schema.ts'
import { PAGES_LIST } from './list.ts'
import type { FbSettings } from './settings.ts'

type Row = Static<typeof fbPageRow>
type Ctx = ToolContext<RunInput<typeof fbInput>, Row, FbSettings>

const EXTRACT_MODULE = new URL('./extract.ts', import.meta.url)
const DEFAULT_WWW = 'https://www.facebook.com'
const DEFAULT_GRAPH = 'https://graph.facebook.com'

const NOT_FOUND = 'not found: Facebook has no public page by this name or id'

const WALL_TEXT: Record<Wall, string> = {
  login: 'Facebook answered with its login wall instead of the page',
  checkpoint: 'Facebook answered with a security checkpoint instead of the page',
  consent: 'Facebook answered with its cookie-consent page instead of the page',
}

/** The HTML's outcome: the page, none (404), or the wall it hit. */
type HtmlOutcome = { kind: 'page', page: PageDetails } | { kind: 'missing' } | { kind: 'wall', wall: Wall }

export async function runFb (ctx: Ctx): Promise<void> {
  const given = listItems(ctx, PAGES_LIST)
  const pages = new Map<string, PageRef>()
  const rejected: string[] = []
  for (const input of given) {
    const ref = pageRef(input)
    if (ref) pages.set(input, ref)
    else rejected.push(input)
  }
  if (rejected.length) ctx.warn(`Skipped ${rejected.length} entr${rejected.length === 1 ? 'y' : 'ies'} that ${rejected.length === 1 ? 'is' : 'are'} not a Facebook page URL, name or id: ${rejected.slice(0, 5).map(r => JSON.stringify(r.slice(0, 80))).join(', ')}${rejected.length > 5 ? ', …' : ''}`)
  if (pages.size === 0) throw new InputError('No Facebook page to read: give a page URL (facebook.com/<name>, /pages/<name>/<id>, profile.php?id=), a vanity name or a numeric page id.')

  const token = ctx.upstream.credential('meta')
  const graphNotes = new Set<string>()
  let failed = 0
  let missing = 0
  await eachItem(ctx, PAGES_LIST, [...pages.keys()], async input => {
    const row = await readPage(ctx, input, pages.get(input)!, token, graphNotes)
    if (row.error === NOT_FOUND) missing++
    else if (row.error !== null) failed++
    return [row]
  }, { concurrency: ctx.settings.concurrency, stage: (index, total) => `Reading Facebook pages: ${index} of ${total}` })
  for (const note of graphNotes) ctx.warn(note)
  if (failed === pages.size) throw new UpstreamError(`Facebook failed for ${pages.size === 1 ? 'the page' : `all ${pages.size} pages`}: see each row's error`)
  if (missing) ctx.warn(`${missing} of ${pages.size} page${pages.size === 1 ? ' was' : 's were'} not found (a wrong name or id, or a page that is not public).`)
  ctx.summary({ graph_api: token ? 'used' : 'not configured' })
}

async function readPage (ctx: Ctx, input: string, ref: PageRef, token: string | undefined, graphNotes: Set<string>): Promise<Row> {
  let graph: PageDetails | null = null
  if (token) {
    const reading = await readGraph(ctx, ref, token)
    if (reading.kind === 'ok') graph = reading.page
    else if (reading.kind !== 'missing') graphNotes.add(`The Graph API was not used for every page (${reading.reason}); the public page was read instead.`)
  }
  if (graph && missingFields(graph).length === 0) return row(input, graph, 'graph')

  let html: HtmlOutcome
  try {
    html = await readHtml(ctx, ref)
  } catch (error) {
    if (ctx.signal.aborted || error instanceof ToolBlockedError) {
      // The Graph answer stands on its own: a wall on the supplement costs only the fields it would have added.
      if (graph && error instanceof ToolBlockedError) return row(input, graph, 'graph')
      throw error
    }
    if (!(error instanceof UpstreamError)) throw error
    if (graph) return row(input, graph, 'graph')
    return failedRow(input, error instanceof ExtractionError ? `the page could not be parsed: ${error.message}` : error.message)
  }
  if (html.kind === 'wall') {
    if (graph) return row(input, graph, 'graph')
    throw new ToolBlockedError(WALL_TEXT[html.wall])
  }
  if (html.kind === 'missing') return graph ? row(input, graph, 'graph') : failedRow(input, NOT_FOUND)
  return graph ? row(input, mergeDetails(graph, html.page), 'graph+html') : row(input, html.page, 'html')
}

function row (input: string, d: PageDetails, source: Row['source']): Row {
  return { input_url: input, found: true, ...d, source, error: null }
}

function failedRow (input: string, error: string): Row {
  return {
    input_url: input, found: false, page_id: null, username: null, name: null, url: null, category: null, categories: [], about: null,
    website: null, websites: [], phone: null, email: null, address: null, followers: null, likes: null, talking_about: null,
    verified: null, profile_image: null, cover_image: null, source: null, error,
  }
}

// ---------------------------------------------------------------- Graph API

const scrub = (textValue: string, token: string) => textValue.split(token).join('[redacted]').replace(/access_token=[^&\s"']+/g, 'access_token=[redacted]')

async function readGraph (ctx: Ctx, ref: PageRef, token: string): Promise<GraphReading> {
  const base = (ctx.upstream.urls.graph ?? DEFAULT_GRAPH).replace(/\/+$/, '')
  const url = new URL(`${base}/${ctx.settings.api_version}/${encodeURIComponent(ref.value)}`)
  url.searchParams.set('fields', ctx.settings.graph_fields.join(','))
  url.searchParams.set('access_token', token)
  let res: { status: number, body: string }
  try {
    res = await ctx.http.text(url, { timeoutMs: ctx.settings.timeout_ms, maxRedirects: 0, headers: { accept: 'application/json' } })
  } catch (error) {
    if (ctx.signal.aborted || !(error instanceof UpstreamError)) throw error
    // The client's message names the URL, whose query holds the token.
    return { kind: 'failed', reason: `the Graph API could not be reached: ${scrub(error.message, token)}` }
  }
  const reading = await ctx.extract.call<GraphReading>(EXTRACT_MODULE, 'readGraphPage', [res.status, res.body])
  return reading.kind === 'ok' ? reading : { ...reading, reason: scrub(reading.reason, token) }
}

// ---------------------------------------------------------------- the public page

async function readHtml (ctx: Ctx, ref: PageRef): Promise<HtmlOutcome> {
  const base = new URL((ctx.upstream.urls.www ?? DEFAULT_WWW).replace(/\/+$/, ''))
  let url = new URL(pagePath(ref), base)
  for (let hop = 0; ; hop++) {
    const res = await ctx.http.text(url, {
      timeoutMs: ctx.settings.timeout_ms,
      redirect: 'manual',
      headers: {
        accept: 'text/html,application/xhtml+xml',
        'accept-language': ctx.settings.accept_language,
        // A logged-out request without these gets the login page (apankowski/garcon's notes on fetching pages).
        'sec-fetch-dest': 'document',
        'sec-fetch-mode': 'navigate',
        'sec-fetch-site': 'none',
        'sec-fetch-user': '?1',
        'upgrade-insecure-requests': '1',
      },
    })
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get('location')
      if (!location) throw new UpstreamError(`Facebook answered HTTP ${res.status} without a Location`, res.status)
      let next: URL
      try { next = new URL(location, url) } catch { throw new UpstreamError('Facebook redirected to an invalid URL', res.status) }
      const facebookHost = /(^|\.)facebook\.com$/i.test(next.hostname) || next.host === base.host
      if (!facebookHost) throw new UpstreamError(`Facebook redirected the page off Facebook (to ${next.hostname})`, res.status)
      const wall = wallOfPath(next.pathname)
      if (wall) return { kind: 'wall', wall }
      // Facebook sends a missing page home.
      if (next.pathname === '/' || next.pathname === '/home.php') return { kind: 'missing' }
      if (hop >= ctx.settings.max_redirects) throw new UpstreamError(`Too many redirects (more than ${ctx.settings.max_redirects}) for the page`, res.status)
      // Another facebook.com host (m., www., a locale) or path: the same request on the configured base.
      url = new URL(`${next.pathname}${next.search}`, base)
      continue
    }
    if (res.status === 404 || res.status === 410) return { kind: 'missing' }
    if (res.status === 403 || res.status === 429) throw new ToolBlockedError(`Facebook answered HTTP ${res.status}`)
    if (res.status !== 200) throw new UpstreamError(`Facebook answered HTTP ${res.status}`, res.status)
    const reading = await ctx.extract.call<HtmlReading>(EXTRACT_MODULE, 'readPageHtml', [res.body, res.url || url.toString()])
    if (reading.page) return { kind: 'page', page: reading.page }
    if (reading.wall) return { kind: 'wall', wall: reading.wall }
    return { kind: 'missing' }
  }
}
