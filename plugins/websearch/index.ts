// The websearch tool: one REST key, three agent tools (web_search,
// web_search_scrape, scrape_web_pages). Engine health outlives jobs: the
// kernel calls `createState` once per app, hands the EngineHealth to every run
// as ctx.state, serves GET /api/search/status from it (`endpoints`) and draws it in the
// dashboard (`dashboardViews`).
import { Defaulted, defineTool, Type } from '../../core/tools/contract.ts'
import { researchTopic } from './research-prompt.ts'
import { ENGINE_CHOICES } from './engine-catalog.ts'
import { SearchStatusSchema, createEngineHealth } from './engine-health.ts'
import { MAX_QUERIES, MAX_URLS, QUERIES_LIST, URLS_LIST, websearchInput, websearchRow } from './schema.ts'
import { WebsearchSettingsSchema } from './settings.ts'

const agentQuery = Type.Union([
  Type.String({ minLength: 1, maxLength: 2048 }),
  Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { minItems: 1, maxItems: MAX_QUERIES }),
], { description: 'The search query, as you would type it into a search engine (quotes and site: work), or a list of queries: each is searched, up to limit results apiece, and every row names its query.' })
const agentLimit = Defaulted(Type.Integer({ minimum: 1, maximum: 1000, description: 'How many results to return (default 10).' }), 10)
const agentEngine = Defaulted(Type.Enum(ENGINE_CHOICES, { type: 'string', description: 'Leave as auto unless asked: it picks a working engine and falls back when one refuses.' }), 'auto')
const agentCountry = Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Two-letter country for local results, e.g. us, gb, de.' }))
const agentLanguage = Type.Optional(Type.String({ pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$', description: 'Result language, e.g. en, de, fr.' }))

// The run module loads with the first job, not at boot; pages and engine answers are
// parsed in the kernel's worker pool (ctx.extract), so the DOM library never loads here.
let run: ((ctx: Parameters<ReturnType<typeof import('./run.ts')['createWebsearchRun']>>[0]) => Promise<void>) | undefined
async function loadRun () {
  if (!run) {
    const { createWebsearchRun } = await import('./run.ts')
    run = createWebsearchRun({})
  }
  return run
}

const declaration = defineTool({
  key: 'websearch',
  agentName: 'web_search',
  title: 'Web search and page scraper',
  description: 'Searches the web (DuckDuckGo, Brave, Mojeek, Bing, Yahoo, Google, or the Serper, SerpApi and Google Custom Search APIs when keys are set) and returns ranked results with title, URL, domain and snippet; related searches and the answer box go in the job summary. With scrape_results it also fetches every result page; with urls it scrapes known pages (title, meta description, canonical, language, headings, readable text, HTTP status, final URL).',
  input: websearchInput,
  row: websearchRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['query', 'url'],
  watch: ['position', 'title', 'snippet'],
  renames: { limit: 'max_results' },
  agentTools: [
    {
      name: 'web_search',
      title: 'Web search',
      description: [
        'Search the web and get ranked results: one row per result with query, position, title, url, domain and snippet, plus the engine that answered.',
        'query may be a list of queries, searched one after the other in one call.',
        'Related searches and the answer box (featured snippet or knowledge panel) come in the job summary.',
        'Use it to find pages, sources, companies or facts on the open web when you do not yet know the URL.',
        'If you also need what the pages say, use web_search_scrape instead; if you already have the URLs, use scrape_web_pages.',
        'Example: {"query": "best CRM for small business 2025", "limit": 10, "country": "us"}.',
      ].join(' '),
      input: Type.Object({ query: agentQuery, limit: agentLimit, engine: agentEngine, country: agentCountry, language: agentLanguage }),
      examples: [
        { task: 'find the top 10 web results for a query', args: { query: 'best CRM for small business 2025', limit: 10 } },
        { task: 'search the web in German for results from Germany', args: { query: 'Steuerberater Berlin', country: 'de', language: 'de', limit: 20 } },
      ],
      keywords: ['google', 'google it', 'look up', 'look up facts', 'founder', 'who owns', 'search results', 'top results', 'links', 'find websites', 'find pages', 'reviews', 'news', 'rankings', 'web results', 'mentions'],
      cues: ['google', 'search results', 'search online', 'look up online', 'web query', 'snippets', 'rank for', 'titles and links', 'result links', 'find sources'],
      notFor: ['read', 'text', 'content', 'open the pages', 'open the results', 'what they say', 'summarise', 'scrape'],
    },
    {
      name: 'web_search_scrape',
      title: 'Web search and read the result pages',
      description: [
        'Search the web, then fetch every result page and extract it, in one call.',
        'Each row has the search fields (position, title, url, domain, snippet) plus the page: page_title, meta_description, canonical, language, headings {h1,h2,h3}, readable text, word_count, HTTP status, final_url and content_type; a page that could not be read has an error instead of text.',
        'Use it for research questions where the snippets are not enough. It is slower than web_search; keep limit small (5 to 10).',
        'Example: {"query": "EU AI Act obligations for providers", "limit": 5}.',
      ].join(' '),
      input: Type.Object({ query: agentQuery, limit: agentLimit, engine: agentEngine, country: agentCountry, language: agentLanguage }),
      fixed: { scrape_results: true },
      examples: [
        { task: 'search and read the top result pages about a topic', args: { query: 'EU AI Act obligations for providers', limit: 5 } },
        { task: 'compare what several sources say about a question', args: { query: 'is a four-day work week more productive', limit: 8 } },
      ],
      keywords: ['research', 'deep research', 'research a topic', 'in-depth research', 'information from multiple sources', 'read the results', 'full text of search results', 'content of the top pages', 'page text of each result', 'summarise sources', 'articles about', 'what the web says', 'search and read', 'search and scrape'],
      cues: ['search and read', 'read the results', 'text of each result', 'search and scrape', 'open every result', 'content of the results', 'research', 'what the articles say', 'articles', 'several sources', 'look up the text'],
      notFor: ['already have', 'given urls', 'no search', 'without searching'],
    },
    {
      name: 'scrape_web_pages',
      title: 'Scrape known web pages',
      description: [
        'Fetch web pages you already have the URLs of and extract: title, meta_description, canonical, language, headings {h1,h2,h3}, readable main text (Mozilla Readability), word_count, HTTP status, final_url after redirects and content_type.',
        'One row per URL in the order given; a PDF, image, 404 or unreachable page gives a row with status and error instead of text.',
        `Use it to read specific pages (up to ${MAX_URLS} per call, capped by the plan). To find pages first, use web_search.`,
        'Example: {"urls": ["https://example.com/about", "example.org"]}.',
      ].join(' '),
      input: Type.Object({ urls: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { minItems: 1, maxItems: MAX_URLS, description: 'Page URLs; a bare host gets https://.' }) }),
      examples: [
        { task: 'read the text of a list of web pages', args: { urls: ['https://example.com/about', 'https://example.org/pricing'] } },
        { task: 'get title, meta description and headings of a website', args: { urls: ['example.com'] } },
      ],
      keywords: ['read a page', 'page text', 'article text', 'fetch a url', 'open this link', 'known urls', 'given urls', 'title tag', 'meta description', 'headings', 'h1', 'word count', 'http status', 'redirects', 'final url', 'main content', 'readability', 'extract text from a page', 'text of a link', 'blog post', 'scrape a url', 'page content', 'seo audit'],
      cues: ['already have', 'given urls', 'fetch a url', 'open a link', 'read a link', 'scrape a url', 'text of a link', 'content of a url', 'no search', 'without searching', 'meta description', 'title tag', 'headings', 'status code', 'word count', 'redirect'],
      notFor: ['search', 'research', 'top results', 'search results', 'ranking', 'youtube', 'video', 'instagram', 'tiktok', 'facebook', 'tweets'],
    },
  ],
  examples: [
    { task: 'search the web', args: { query: 'open source web scraping frameworks', max_results: 10 } },
    { task: 'search with a specific engine and country', args: { query: 'coffee roasters', engine: 'brave', country: 'gb', max_results: 20 } },
    { task: 'search and scrape every result page', args: { query: 'how to self-host a search engine', scrape_results: true, max_results: 5 } },
    { task: 'scrape known pages', args: { urls: ['https://example.com/', 'https://example.org/contact'] } },
  ],
  keywords: ['search engine', 'serp', 'duckduckgo', 'bing', 'brave search', 'google search', 'yahoo', 'mojeek', 'web'],
  notFor: ['google maps', 'map listings', 'nearby', 'near'],
  prompts: [researchTopic],
  settings: WebsearchSettingsSchema,
  list: [QUERIES_LIST, URLS_LIST],
  renamedSettings: { cooldown_s: { to: 'cooldown_ms', fromSeconds: true }, google_cooldown_s: { to: 'google_cooldown_ms', fromSeconds: true }, scrape_concurrency: { to: 'concurrency' } },
  createState: (settings, { shared }) => createEngineHealth({ cooldownSeconds: settings.cooldown_ms / 1000, googleCooldownSeconds: settings.google_cooldown_ms / 1000, shared }),
  // The engines' health, readable (#search).
  dashboardViews: [{ name: 'search', title: 'Search engines', module: new URL('./dashboard/search-status.ts', import.meta.url) }],
  endpoints: [
    {
      method: 'GET',
      path: '/api/search/status',
      summary: 'Search status record: configured providers, proxy, per-engine health observed since start, cooldowns and the engine auto would use now.',
      auth: 'key',
      response: SearchStatusSchema,
      handle: async ({ state, upstream, proxyConfigured, proxies }) => {
        // Read keys the way a run does (core/jobs/job-runner.ts upstreamConfig: trimmed, blank = unset),
        // so a blank SERPER_API_KEY is not reported configured and recommended while every run skips it.
        const credential = (name: string) => upstream.credential(name)?.trim() || undefined
        // Every process's observations (REDIS_URL), not only this one's.
        await state.refresh()
        return state.statusRecord({ credential, credentialNames: upstream.credentialNames, proxyConfigured, proxies })
      },
    },
  ],
  run: async (ctx) => (await loadRun())(ctx),
})

export default declaration
