// run(ctx) for the websearch key: search, search + scrape, or scrape known URLs.
// The engine-health object comes from the kernel as ctx.state (one per app,
// made by the declaration's createState; README.md, Engine health state).
import { batchOf, InputError, ToolBlockedError, type ToolContext } from '../../core/tools/contract.ts'
import { choiceFor, type EngineChoice } from './engine-catalog.ts'
import type { EngineHealth } from './engine-health.ts'
import type { SerpPage } from './extract/serp-page.ts'
import { hostOf } from '../lib/domains.ts'
import { pageScanner } from '../lib/page-scanner.ts'
import { scrapePages, type PageExtractor, type ScrapedPage } from './page-scraper.ts'
import { searchWeb } from './search.ts'
import type { WebsearchInput, WebsearchRow } from './schema.ts'
import type { WebsearchSettings } from './settings.ts'

/** ctx.state is the app's EngineHealth, made by the declaration's createState. */
export type WebsearchContext = ToolContext<WebsearchInput, WebsearchRow, WebsearchSettings, EngineHealth>

export interface RunDeps {
  /** Page reading; default the library's pageScanner(ctx.extract).page (the kernel's worker pool). Tests pass extractPage itself. */
  extractPage?: PageExtractor
}

/** The engine answer parsers, run in the worker pool (engines.ts parseEngineAnswer). */
const ENGINES_MODULE = new URL('./engines.ts', import.meta.url)

function pageFields (page: ScrapedPage) {
  return {
    meta_description: page.meta_description,
    canonical: page.canonical,
    language: page.language,
    headings: page.headings,
    text: page.text,
    text_truncated: page.text_truncated,
    word_count: page.word_count,
    status: page.status,
    final_url: page.final_url,
    content_type: page.content_type,
    error: page.error,
  }
}

function scrapeOptions (ctx: WebsearchContext, deps: RunDeps) {
  return {
    http: ctx.http,
    extractPage: deps.extractPage ?? ((html: string, url: string) => pageScanner(ctx.extract).page(html, url)),
    signal: ctx.signal,
    concurrency: ctx.settings.concurrency,
    maxTextChars: ctx.settings.max_text_chars,
  }
}

async function scrapeKnownUrls (ctx: WebsearchContext, deps: RunDeps, urls: string[]): Promise<void> {
  // max_results is not applied here: the kernel defaults it to 10, and a caller who lists URLs wants them all.
  const limit = Math.min(urls.length, ctx.remaining())
  if (limit < urls.length) ctx.warn(`Only the first ${limit} of ${urls.length} URLs were scraped (the plan's per-run ceiling).`)
  let readable = 0
  await scrapePages(urls.slice(0, limit), scrapeOptions(ctx, deps), async (page, index) => {
    ctx.stage(`scraped ${index + 1} of ${limit} pages`)
    if (page.text !== null) readable++
    const kept = await ctx.push([{ position: index + 1, url: page.url, domain: hostOf(page.final_url ?? page.url), title: page.title, ...pageFields(page) }])
    return kept > 0 && ctx.remaining() > 0
  })
  if (limit > 0 && readable === 0) ctx.warn('None of the pages could be read as HTML; each row says why (HTTP status, content type or fetch error).')
}

/** One query: up to max_results rows (each naming the query), and the search's summary. Throws ToolBlockedError when every engine refused. */
async function search (ctx: WebsearchContext, deps: RunDeps, query: string): Promise<Record<string, unknown> | null> {
  const input = ctx.input
  const wanted = Math.min(input.max_results, ctx.remaining())
  if (wanted <= 0) {
    ctx.warn('The per-run row ceiling was already reached; nothing was searched.')
    return null
  }
  const choice = input.engine as EngineChoice
  const outcome = await searchWeb(
    {
      http: ctx.http, upstream: ctx.upstream, health: ctx.state, stage: text => ctx.stage(text), signal: ctx.signal,
      // A context without the pool (a script or test driving run directly) parses on its own thread.
      parse: ctx.extract ? (engine, body, url) => ctx.extract.call<SerpPage>(ENGINES_MODULE, 'parseEngineAnswer', [engine, body, url]) : undefined,
    },
    { query, country: input.country?.toLowerCase(), language: input.language?.split(/[-_]/)[0]!.toLowerCase(), wanted },
    choice,
  )

  const summary = {
    engine: choiceFor(outcome.engine),
    engine_backend: outcome.engine,
    related_searches: outcome.related_searches,
    answer_box: outcome.answer_box,
    pages_fetched: outcome.pages,
    engines_tried: outcome.attempts,
  }
  if (!outcome.results.length) {
    ctx.warn(`${outcome.engine} found no results for "${query}".`)
    return summary
  }
  if (outcome.stopped_early && outcome.results.length < wanted) {
    ctx.warn(`Only ${outcome.results.length} of ${wanted} results for "${query}": ${outcome.stopped_early}.`)
  }

  if (!input.scrape_results) {
    await ctx.push(outcome.results.map(r => ({ query, position: r.position, title: r.title, url: r.url, domain: r.domain, snippet: r.snippet, engine: r.engine })))
    return summary
  }
  ctx.stage(`scraping ${outcome.results.length} result pages`)
  await scrapePages(outcome.results.map(r => r.url), scrapeOptions(ctx, deps), async (page, index) => {
    const result = outcome.results[index]!
    ctx.stage(`scraped ${index + 1} of ${outcome.results.length} result pages`)
    const kept = await ctx.push([{
      query, position: result.position, title: result.title, url: result.url, domain: result.domain, snippet: result.snippet, engine: result.engine,
      page_title: page.title, ...pageFields(page),
    }])
    return kept > 0 && ctx.remaining() > 0
  })
  return summary
}

/**
 * One query or a list of them, one after the other. A list's summary keeps
 * each search's extras under `searches`. A query that fails after earlier ones
 * gave rows stops the list with a warning (the rows stay); before any row, its
 * failure is the job's (blocked when every engine refused).
 */
async function searchAll (ctx: WebsearchContext, deps: RunDeps, queries: string[]): Promise<void> {
  const searches: Array<Record<string, unknown>> = []
  for (const [index, query] of queries.entries()) {
    if (ctx.signal.aborted) break
    if (ctx.remaining() <= 0) {
      ctx.warn(`Only ${index} of ${queries.length} queries were searched: the per-run row limit was reached.`)
      break
    }
    if (queries.length > 1) ctx.stage(`query ${index + 1} of ${queries.length}: "${query}"`)
    try {
      const summary = await search(ctx, deps, query)
      if (summary) searches.push({ query, ...summary })
    } catch (error) {
      if (ctx.signal.aborted) throw error
      if (index > 0 && !(error instanceof InputError)) {
        ctx.warn(`Stopped after ${index} of ${queries.length} queries: "${query}" failed (${(error as Error).message}).`)
        break
      }
      if (error instanceof ToolBlockedError) ctx.blocked(error.message)
      throw error
    }
  }
  if (queries.length === 1) {
    const { query: _query, ...only } = searches[0] ?? {}
    if (searches.length) ctx.summary(only)
  } else {
    ctx.summary({ engine: searches.at(-1)?.engine ?? null, searches })
  }
}

export function createWebsearchRun (deps: RunDeps) {
  return async function run (ctx: WebsearchContext): Promise<void> {
    // The kernel has already refused a call with neither or both (the schema's oneOf).
    const given = ctx.input.query
    const queries = given === undefined ? [] : batchOf(ctx, typeof given === 'string' ? [given] : given, 'queries')
    const urls = ctx.input.urls?.filter(u => u.trim()) ?? []
    if (queries.length && urls.length) throw new InputError('Give either query (to search the web) or urls (to scrape known pages), not both.')
    if (urls.length) return scrapeKnownUrls(ctx, deps, urls)
    if (!queries.length) throw new InputError('Give a query to search for, or urls to scrape.')
    return searchAll(ctx, deps, queries)
  }
}
