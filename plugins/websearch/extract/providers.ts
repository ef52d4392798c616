// Paid search APIs that return JSON: Serper (google.serper.dev/search),
// SerpApi (serpapi.com/search.json?engine=google) and Google Programmable
// Search (www.googleapis.com/customsearch/v1). A provider's quota running out
// is a refusal (blocked); a rejected key or bad request is an error.
import { buildResults, cleanText, distinctTexts, type RawResult, type SerpPage } from './serp-page.ts'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
const asString = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '')

function rawFrom (items: unknown[], titleKey: string, urlKey: string, snippetKey: string): RawResult[] {
  return items.filter(isObject).map(item => ({ title: asString(item[titleKey]), href: asString(item[urlKey]), snippet: asString(item[snippetKey]) }))
}

/** Quota and rate messages the providers use; these mean "refused", not "broken". */
const QUOTA = /run out of searches|not enough credits|quota|rate limit|too many requests|exceeded/i

/** A provider's answer that holds no results: a refusal (blocked, so the search may go on elsewhere) or an error. */
function failedPage (failure: { blocked: string } | { blocked: null, error: string }): SerpPage {
  return { results: [], related_searches: [], answer_box: null, next_page: null, ...failure }
}

/** A provider's error message: its quota or rate limit is a refusal, anything else (a bad key, a bad request) an error. */
function providerFailure (provider: string, message: string, { refused = QUOTA.test(message), code }: { refused?: boolean, code?: number } = {}): SerpPage {
  return failedPage(refused ? { blocked: `${provider} refused: ${message}` } : { blocked: null, error: `${provider} error${code === undefined ? '' : ` ${code}`}: ${message}` })
}

/**
 * Serper's /search answer: `organic[{title, link, snippet, position}]`,
 * `relatedSearches[{query}]`, `answerBox`, `knowledgeGraph`. Its /places
 * answer (`places[]`) holds map listings without web URLs, so it yields no rows.
 */
export function parseSerper (body: unknown, pageUrl: string): SerpPage {
  if (!isObject(body)) return failedPage({ blocked: null, error: 'Serper returned a body that is not a JSON object' })
  const message = asString(body.message)
  if (message && !Array.isArray(body.organic)) {
    return providerFailure('Serper', message)
  }
  const results = buildResults(rawFrom(asArray(body.organic), 'title', 'link', 'snippet'), pageUrl)
  const answer = isObject(body.answerBox) ? body.answerBox : null
  const graph = isObject(body.knowledgeGraph) ? body.knowledgeGraph : null
  const answerBox = answer
    ? { type: 'answer_box', title: asString(answer.title) || null, text: asString(answer.answer) || asString(answer.snippet) || null, url: asString(answer.link) || null }
    : graph
      ? { type: 'knowledge_graph', title: asString(graph.title) || null, text: asString(graph.description) || null, url: asString(graph.website) || asString(graph.descriptionLink) || null }
      : null
  return {
    results,
    related_searches: distinctTexts(asArray(body.relatedSearches).filter(isObject).map(r => asString(r.query))),
    answer_box: answerBox,
    blocked: null,
    next_page: null,
  }
}

/**
 * SerpApi engine=google: `organic_results[{position, title, link, snippet}]`,
 * `related_searches[{query}]`, `answer_box`, `knowledge_graph`,
 * `serpapi_pagination.next`. A no-results search comes back as
 * `error: "Google hasn't returned any results for this query."`, which is an
 * empty page, not an error.
 */
export function parseSerpApi (body: unknown, pageUrl: string): SerpPage {
  if (!isObject(body)) return failedPage({ blocked: null, error: 'SerpApi returned a body that is not a JSON object' })
  const error = asString(body.error)
  if (error && !/hasn't returned any results|no results/i.test(error)) {
    return providerFailure('SerpApi', error)
  }
  const results = buildResults(rawFrom(asArray(body.organic_results), 'title', 'link', 'snippet'), pageUrl)
  const answer = isObject(body.answer_box) ? body.answer_box : null
  const graph = isObject(body.knowledge_graph) ? body.knowledge_graph : null
  const answerBox = answer
    ? { type: asString(answer.type) || 'answer_box', title: asString(answer.title) || null, text: asString(answer.answer) || asString(answer.snippet) || asString(answer.result) || null, url: asString(answer.link) || null }
    : graph
      ? { type: 'knowledge_graph', title: asString(graph.title) || null, text: asString(graph.description) || null, kind: asString(graph.type) || null, url: asString(graph.website) || null }
      : null
  const pagination = isObject(body.serpapi_pagination) ? body.serpapi_pagination : null
  const next = pagination ? asString(pagination.next) : ''
  let nextOffset: number | null = null
  if (next) {
    try { nextOffset = Number(new URL(next).searchParams.get('start')) || null } catch { nextOffset = null }
  }
  return {
    results,
    related_searches: distinctTexts(asArray(body.related_searches).filter(isObject).map(r => asString(r.query))),
    answer_box: answerBox,
    blocked: null,
    next_page: nextOffset && results.length ? { kind: 'offset', offset: nextOffset } : null,
  }
}

/**
 * Google Custom Search JSON API: `items[{title, link, snippet}]`,
 * `queries.nextPage[0].startIndex`, and `error{code, message, status}`
 * (429 / RESOURCE_EXHAUSTED when the daily quota is spent).
 */
export function parseGoogleCse (body: unknown, pageUrl: string): SerpPage {
  if (!isObject(body)) return failedPage({ blocked: null, error: 'Google CSE returned a body that is not a JSON object' })
  if (isObject(body.error)) {
    const message = cleanText(asString(body.error.message)) || 'unknown error'
    const code = Number(body.error.code)
    const refused = code === 429 || asString(body.error.status) === 'RESOURCE_EXHAUSTED' || QUOTA.test(message)
    return providerFailure('Google CSE', message, { refused, code: Number.isFinite(code) ? code : undefined })
  }
  const results = buildResults(rawFrom(asArray(body.items), 'title', 'link', 'snippet'), pageUrl)
  const queries = isObject(body.queries) ? body.queries : {}
  const nextPage = asArray(queries.nextPage).find(isObject)
  const nextStart = nextPage ? Number(nextPage.startIndex) : NaN
  const spelling = isObject(body.spelling) ? asString(body.spelling.correctedQuery) : ''
  return {
    results,
    related_searches: spelling ? [spelling] : [],
    answer_box: null,
    blocked: null,
    next_page: Number.isFinite(nextStart) && results.length ? { kind: 'offset', offset: nextStart } : null,
  }
}
