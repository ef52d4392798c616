// run(ctx) for the websearch key: search, search + scrape, or scrape known URLs.
// The engine-health object comes from the kernel as ctx.state (one per app,
// made by the declaration's createState; README.md, Engine health state).
import { eachItem, InputError, listItems, type ToolContext } from '../../core/tools/contract.ts'
import { choiceFor, type EngineChoice } from './engine-catalog.ts'
import type { EngineHealth } from './engine-health.ts'
import type { SerpPage } from './extract/serp-page.ts'
import { hostOf } from '../lib/domains.ts'
import { pageScanner } from '../lib/page-scanner.ts'
import { scrapePages, type PageExtractor, type ScrapedPage } from './page-scraper.ts'
import { searchWeb } from './search.ts'
import { QUERIES_LIST, URLS_LIST, type WebsearchInput, type WebsearchRow } from './schema.ts'
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
  // max_results is not applied here: the kernel defaults it to 10, and a caller who lists URLs wants them all
  // (listItems has cut the list to the rows the run may push).
  const limit = urls.length
  let readable = 0
  await scrapePages(urls, scrapeOptions(ctx, deps), async (page, index) => {
    ctx.stage(`scraped ${index + 1} of ${limit} pages`)
    if (page.text !== null) readable++
    const kept = await ctx.push([{ position: index + 1, url: page.url, domain: hostOf(page.final_url ?? page.url), title: page.title, ...pageFields(page) }])
    return kept > 0 && ctx.remaining() > 0
  })
  if (limit > 0 && readable === 0) ctx.warn('None of the pages could be read as HTML; each row says why (HTTP status, content type or fetch error).')
}

/** One query: up to max_results rows (each naming the query), and the search's summary. Throws ToolBlockedError when every engine refused. */
async function search (ctx: WebsearchContext, deps: RunDeps, query: string, push: (rows: WebsearchRow[]) => Promise<number> = rows => ctx.push(rows)): Promise<Record<string, unknown> | null> {
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
    await push(outcome.results.map(r => ({ query, position: r.position, title: r.title, url: r.url, domain: r.domain, snippet: r.snippet, engine: r.engine })))
    return summary
  }
  ctx.stage(`scraping ${outcome.results.length} result pages`)
  await scrapePages(outcome.results.map(r => r.url), scrapeOptions(ctx, deps), async (page, index) => {
    const result = outcome.results[index]!
    ctx.stage(`scraped ${index + 1} of ${outcome.results.length} result pages`)
    const kept = await push([{
      query, position: result.position, title: result.title, url: result.url, domain: result.domain, snippet: result.snippet, engine: result.engine,
      page_title: page.title, ...pageFields(page),
    }])
    return kept > 0 && ctx.remaining() > 0
  })
  return summary
}

/**
 * One query or a list of them, one after the other, under the list's failure
 * policy (schema.ts). A list's summary keeps each search's extras under
 * `searches`; one query's is the job's.
 */
async function searchAll (ctx: WebsearchContext, deps: RunDeps, queries: string[]): Promise<void> {
  const searches: Array<Record<string, unknown>> = []
  if (queries.length === 1) {
    const summary = await search(ctx, deps, queries[0]!)
    if (summary) searches.push({ query: queries[0], ...summary })
  } else {
    await eachItem(ctx, QUERIES_LIST, queries, async (query, _index, push) => {
      const summary = await search(ctx, deps, query, push)
      if (summary) searches.push({ query, ...summary })
      return []
    }, { stage: (index, total, query) => `query ${index + 1} of ${total}: "${query}"`, label: query => `"${query}" failed` })
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
    if (ctx.input.query !== undefined && ctx.input.urls !== undefined) throw new InputError('Give either query (to search the web) or urls (to scrape known pages), not both.')
    if (ctx.input.urls !== undefined) return scrapeKnownUrls(ctx, deps, listItems(ctx, URLS_LIST))
    if (ctx.input.query === undefined) throw new InputError('Give a query to search for, or urls to scrape.')
    return searchAll(ctx, deps, listItems(ctx, QUERIES_LIST))
  }
}
