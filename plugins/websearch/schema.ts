// The one schema per thing: REST input (also the agent input, after renames)
// and the result row shared by search, search+scrape and page scrapes.
import { Defaulted, Nullable, OneOrMany, Type, WebsiteUrl, type ListInput, type RunInput, type Static } from '../../core/tools/contract.ts'
import { ENGINE_CHOICES } from './engine-catalog.ts'

export const MAX_URLS = 1000
/** Queries per call: each is one search; the per-run row ceiling spans them all. */
export const MAX_QUERIES = 100

const searchQuery = Type.String({ minLength: 1, maxLength: 2048 })

/**
 * Queries, one search each in turn (a call gives these or urls). A query that
 * fails is a warning and the others go on; all failing is the job's failure.
 * A refusal (every engine refused or cooling down) would meet the next queries
 * too: the list stops there, the rows found kept; met first, it is the job's.
 */
export const QUERIES_LIST = { param: 'query', noun: 'queries', max: MAX_QUERIES, onItemError: 'warn-and-skip', onBlocked: 'stop-list' } satisfies ListInput

/**
 * Known pages. A page that cannot be read is its row's `error` (HTTP status,
 * content type, fetch error), made by the page scraper, which fetches several
 * at once and emits them in order, so the list is read with listItems and not
 * run by eachItem.
 */
export const URLS_LIST = { param: 'urls', noun: 'URLs', max: MAX_URLS, onItemError: 'row-error' } satisfies ListInput

export const websearchInput = Type.Object({
  query: Type.Optional(OneOrMany(searchQuery, { maxItems: MAX_QUERIES, description: 'What to search for, as typed into a search box (operators such as site: and quotes work on most engines), or a list of such queries: each is searched, up to max_results rows apiece, and each row names its query.' })),
  urls: Type.Optional(Type.Array(WebsiteUrl({ minLength: 1, maxLength: 4096 }), { minItems: 1, maxItems: MAX_URLS, description: 'Known page URLs to fetch and extract instead of searching (a bare host gets https://).' })),
  scrape_results: Defaulted(Type.Boolean({ description: 'Also fetch every result page and add its title, meta description, headings and readable text.' }), false),
  max_results: Defaulted(Type.Integer({ minimum: 1, maximum: 1000, description: 'How many results (or pages) to return; clamped to the plan\'s per-run ceiling.' }), 10),
  engine: Defaulted(Type.Enum(ENGINE_CHOICES, { type: 'string', description: '`auto` picks the first healthy engine (API providers with keys first) and moves on when one refuses.' }), 'auto'),
  country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Two-letter country code for local results, e.g. us, de, in.' })),
  language: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$', description: 'Language of results and interface, e.g. en, de, pt-BR.' })),
}, {
  // Search or scrape: exactly one of the two, refused (400, uncharged) by the kernel otherwise.
  oneOf: [{ required: ['query'] }, { required: ['urls'] }],
})
export type WebsearchInput = RunInput<typeof websearchInput>

const nullableString = (description: string) => Type.Optional(Nullable(Type.String(), { description }))

export const websearchRow = Type.Object({
  query: Type.Optional(Type.String({ description: 'Search: the query this result answered (one of the list when several were given).' })),
  position: Type.Optional(Type.Integer({ minimum: 1, description: 'Rank in the search results (or order of the given URLs).' })),
  title: nullableString('Result title from the search page; for a scraped URL, the page <title>.'),
  url: Type.String({ description: 'Result URL (search) or the URL as given (scrape).' }),
  domain: Type.Optional(Type.String({ description: 'Host without www.' })),
  snippet: Type.Optional(Type.String({ description: 'Text the engine showed under the result.' })),
  engine: Type.Optional(Type.String({ description: 'Backend that produced the row (e.g. duckduckgo_html, bing, serper).' })),
  page_title: nullableString('Search + scrape: the <title> of the fetched result page.'),
  meta_description: nullableString('<meta name="description"> of the page.'),
  canonical: nullableString('<link rel="canonical"> of the page.'),
  language: nullableString('Declared language of the page (html lang).'),
  headings: Type.Optional(Type.Object({ h1: Type.Array(Type.String()), h2: Type.Array(Type.String()), h3: Type.Array(Type.String()) })),
  text: nullableString('Readable main text of the page (Readability), cut at the configured limit.'),
  text_truncated: Type.Optional(Type.Boolean()),
  word_count: Type.Optional(Type.Integer({ minimum: 0 })),
  status: Type.Optional(Nullable(Type.Integer(), { description: 'HTTP status of the page fetch; null when the fetch failed before a response.' })),
  final_url: nullableString('URL after redirects.'),
  content_type: nullableString('Content-Type of the page (e.g. text/html, application/pdf).'),
  error: nullableString('Why the page has no text: HTTP error, not HTML, unreachable, refused target.'),
})
export type WebsearchRow = Static<typeof websearchRow>
