// Every SERP parser on every real capture for its engine (data-driven: the
// table holds the capture, the page URL it was served at, and what to expect).
import t from 'tap'
import { parseDuckDuckGoHtml, parseDuckDuckGoLite } from '../../../plugins/websearch/extract/duckduckgo.ts'
import { parseBing } from '../../../plugins/websearch/extract/bing.ts'
import { parseBrave } from '../../../plugins/websearch/extract/brave.ts'
import { parseMojeek } from '../../../plugins/websearch/extract/mojeek.ts'
import { parseYahoo } from '../../../plugins/websearch/extract/yahoo.ts'
import { parseGoogle } from '../../../plugins/websearch/extract/google.ts'
import { parseGoogleCse, parseSerpApi, parseSerper } from '../../../plugins/websearch/extract/providers.ts'
import type { SerpPage } from '../../../plugins/websearch/extract/serp-page.ts'
import { MISSING_CAPTURES, capturesAvailable, readSerpCapture } from './captures.ts'

interface Case {
  capture: string
  parse: (body: string, url: string) => SerpPage
  pageUrl: string
  /** Least number of rows; 0 for a no-results page. */
  minResults: number
  /** Exact count when the capture is a no-results page or a short page worth pinning. */
  exactResults?: number
  firstUrl?: string
  related?: boolean
  answerBox?: string
  nextPage?: boolean
}

const json = (parse: (body: unknown, url: string) => SerpPage) => (body: string, url: string) => parse(JSON.parse(body), url)

const CASES: Case[] = [
  { capture: 'duckduckgo_html_2025_eino_query-eino_page1.html', parse: parseDuckDuckGoHtml, pageUrl: 'https://html.duckduckgo.com/html/', minResults: 10, firstUrl: 'https://github.com/cloudwego/eino', nextPage: true },
  { capture: 'duckduckgo_html_2025_eino_no_results.html', parse: parseDuckDuckGoHtml, pageUrl: 'https://html.duckduckgo.com/html/', minResults: 0, exactResults: 0 },
  // The JavaScript SERP shares the html endpoint's result__* classes, so the same parser reads it.
  { capture: 'duckduckgo_js_serp_2020_se-scraper_p1.html', parse: parseDuckDuckGoHtml, pageUrl: 'https://duckduckgo.com/', minResults: 10, firstUrl: 'https://support.smartbear.com/testcomplete/docs/keyword-testing/index.html' },
  { capture: 'duckduckgo_lite_dentists-in-mumbai_2026.html', parse: parseDuckDuckGoLite, pageUrl: 'https://lite.duckduckgo.com/lite/', minResults: 10, firstUrl: 'https://www.practo.com/mumbai/dentist', nextPage: true },
  { capture: 'bing_serp_nojs_query-bing_2021.html', parse: parseBing, pageUrl: 'https://www.bing.com/search?q=bing', minResults: 10, firstUrl: 'https://www.bing.com/', nextPage: true },
  // This page holds 4 organic results only; the rest are ads, a local pack and a video carousel, which are not web results.
  { capture: 'bing_serp_nojs_hotels_2021.html', parse: parseBing, pageUrl: 'https://www.bing.com/search?q=hotels+NYC', minResults: 4, exactResults: 4, firstUrl: 'https://www.tripadvisor.com/Hotels-g60763-New_York_City_New_York-Hotels.html' },
  { capture: 'bing_serp_nojs_no-results_2021.html', parse: parseBing, pageUrl: 'https://www.bing.com/search?q=x', minResults: 0, exactResults: 0 },
  { capture: 'brave_serp_javascript-tutorial_2026.html', parse: parseBrave, pageUrl: 'https://search.brave.com/search?q=javascript+tutorial', minResults: 20, firstUrl: 'https://www.w3schools.com/js/', related: true, answerBox: 'infobox' },
  { capture: 'mojeek_serp_javascript-tutorial_2026.html', parse: parseMojeek, pageUrl: 'https://www.mojeek.com/search?q=javascript+tutorial', minResults: 10, firstUrl: 'https://javascript.info/', nextPage: true },
  // Yahoo shows 7 organic results on this page (the other slots are a video block and "People also ask").
  { capture: 'yahoo_serp_javascript-tutorial_2026.html', parse: parseYahoo, pageUrl: 'https://search.yahoo.com/search?p=javascript+tutorial', minResults: 7, exactResults: 7, firstUrl: 'https://www.w3schools.com/Js/', related: true, nextPage: true },
  { capture: 'google_serp_desktop_query-google_2023.html', parse: parseGoogle, pageUrl: 'https://www.google.com/search?q=google', minResults: 8, firstUrl: 'https://google.com/', related: true, answerBox: 'knowledge_panel' },
  { capture: 'google_serp_desktop_featured-snippet_2023.html', parse: parseGoogle, pageUrl: 'https://www.google.com/search?q=featured+snippet', minResults: 10, firstUrl: 'https://developers.google.com/search/docs/appearance/featured-snippets', related: true, answerBox: 'featured_snippet' },
  { capture: 'google_serp_nojs_query-google_2023.html', parse: parseGoogle, pageUrl: 'https://www.google.com/search?q=google', minResults: 10, firstUrl: 'https://www.google.com/', related: true, nextPage: true },
  { capture: 'serpapi_google_engine_coffee_2022.json', parse: json(parseSerpApi), pageUrl: 'https://serpapi.com/search.json', minResults: 8, exactResults: 8, firstUrl: 'https://en.wikipedia.org/wiki/Coffee', related: true, answerBox: 'knowledge_graph', nextPage: true },
  // engine=google_maps answers with place_results (one business), not web results: no rows, and no error either.
  { capture: 'serpapi_google_maps_place_cargiant_2024.json', parse: json(parseSerpApi), pageUrl: 'https://serpapi.com/search.json', minResults: 0, exactResults: 0 },
  // Serper's /places answer lists map places without web URLs; the /search parser yields no rows from it and does not fail.
  { capture: 'serper_places_monterrico_2023.json', parse: json(parseSerper), pageUrl: 'https://google.serper.dev/search', minResults: 0, exactResults: 0 },
  { capture: 'google_cse_json_query-test_2021.json', parse: json(parseGoogleCse), pageUrl: 'https://www.googleapis.com/customsearch/v1', minResults: 10, firstUrl: 'https://www.speedtest.net/', nextPage: true },
  { capture: 'google_cse_json_query-test123_2022.json', parse: json(parseGoogleCse), pageUrl: 'https://www.googleapis.com/customsearch/v1', minResults: 10, nextPage: true },
]

if (!capturesAvailable()) {
  t.comment(MISSING_CAPTURES)
  t.test('SERP parsers on real captures', { skip: MISSING_CAPTURES }, async () => {})
} else {
  for (const c of CASES) {
    t.test(c.capture, async t => {
      const page = c.parse(readSerpCapture(c.capture), c.pageUrl)
      t.equal(page.blocked, null, 'not taken for a block page')
      t.notOk(page.error, 'no provider error')
      if (c.exactResults !== undefined) t.equal(page.results.length, c.exactResults, `exactly ${c.exactResults} rows`)
      t.ok(page.results.length >= c.minResults, `at least ${c.minResults} rows (got ${page.results.length})`)
      page.results.forEach((r, i) => {
        t.equal(r.position, i + 1, 'positions run 1..n')
        t.ok(r.title.length > 0, `row ${i + 1} has a title`)
        t.match(r.url, /^https?:\/\/[^/]+/, `row ${i + 1} URL is absolute`)
        t.equal(r.domain, new URL(r.url).hostname.replace(/^www\./, ''), `row ${i + 1} domain`)
        t.notMatch(r.url, /duckduckgo\.com\/l\/|google\.[a-z]+\/url\?|r\.search\.yahoo\.com|bing\.com\/ck\/a/, 'no engine redirect wrapper left')
      })
      t.equal(new Set(page.results.map(r => r.url)).size, page.results.length, 'no duplicate URL on a page')
      if (c.firstUrl) t.equal(page.results[0]?.url, c.firstUrl, 'first result')
      if (c.related) t.ok(page.related_searches.length > 0, 'related searches')
      if (c.answerBox) t.equal(page.answer_box?.type, c.answerBox, 'answer box')
      if (c.nextPage) t.ok(page.next_page, 'a next page is advertised')
      if (c.minResults === 0) t.same(page.results, [], 'a no-results page yields no rows (the run then warns)')
    })
  }

  t.test('snippets are read, not left empty, on engines that show them', async t => {
    for (const c of CASES.filter(c => c.minResults >= 8)) {
      const page = c.parse(readSerpCapture(c.capture), c.pageUrl)
      const withSnippet = page.results.filter(r => r.snippet.length > 20).length
      t.ok(withSnippet >= page.results.length * 0.7, `${c.capture}: ${withSnippet}/${page.results.length} rows have a snippet`)
    }
  })

  t.test('the DuckDuckGo next-page form carries the fields the endpoint needs', async t => {
    const page = parseDuckDuckGoHtml(readSerpCapture('duckduckgo_html_2025_eino_query-eino_page1.html'), 'https://html.duckduckgo.com/html/')
    t.match(page.next_page, { kind: 'form', fields: { q: 'eino', s: '10', dc: '11', vqd: /^4-\d+$/ } })
  })

  t.test('Google featured snippet: answer box text and the source row\'s snippet', async t => {
    const page = parseGoogle(readSerpCapture('google_serp_desktop_featured-snippet_2023.html'), 'https://www.google.com/search?q=featured+snippet')
    t.match(page.answer_box, { type: 'featured_snippet', text: /^Featured snippets are special boxes/, url: 'https://developers.google.com/search/docs/appearance/featured-snippets' })
    t.match(page.results[0]!.snippet, /^Featured snippets are special boxes/)
  })
}
