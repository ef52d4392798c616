// run(ctx) end to end with a fake ToolContext: local node:http servers stand
// in for each engine's real path (POST /html/ for DuckDuckGo html, POST /lite/
// for lite, GET /search for Brave, Bing, Google, POST /search for Serper), one
// refuses so auto moves on, and when all refuse the job ends blocked.
import t from 'tap'
import { MissingCredentialError, ToolBlockedError, InputError, UpstreamError } from '../../../core/tools/contract.ts'
import { extractPage } from '../../../plugins/lib/page.ts'
import { createEngineHealth } from '../../../plugins/websearch/engine-health.ts'
import { createWebsearchRun } from '../../../plugins/websearch/run.ts'
import { BLOCK_PAGES } from './block-pages.ts'
import { MISSING_CAPTURES, capturesAvailable, readSerpCapture } from './captures.ts'
import { fakeContext, send, startServer } from './fake-context.ts'

const run = createWebsearchRun({ extractPage })

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;')

interface SyntheticResult { url: string, title: string, snippet: string }

/** A page in the markup of html.duckduckgo.com/html (result blocks and the "Next" form). */
function duckDuckGoHtmlPage (query: string, results: SyntheticResult[], next?: { s: number, vqd: string }): string {
  const blocks = results.map(r => `
  <div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="${escapeHtml(r.url)}">${escapeHtml(r.title)}</a></h2>
    <div class="result__extras"><div class="result__extras__url"><a class="result__url" href="${escapeHtml(r.url)}">${escapeHtml(r.url)}</a></div></div>
    <a class="result__snippet" href="${escapeHtml(r.url)}">${escapeHtml(r.snippet)}</a>
  </div></div>`).join('')
  const nextForm = next
    ? `<div class="nav-link"><form action="/html/" method="post"><input type="submit" class='btn btn--alt' value="Next" />
       <input type="hidden" name="q" value="${escapeHtml(query)}" /><input type="hidden" name="s" value="${next.s}" /><input type="hidden" name="nextParams" value="" />
       <input type="hidden" name="v" value="l" /><input type="hidden" name="o" value="json" /><input type="hidden" name="dc" value="${next.s + 1}" />
       <input type="hidden" name="api" value="d.js" /><input type="hidden" name="vqd" value="${next.vqd}" /><input name="kl" value="wt-wt" type="hidden" /></form></div>`
    : ''
  return `<!DOCTYPE html><html><head><title>${escapeHtml(query)} at DuckDuckGo</title></head><body class="body--html">
  <div class="serp__results"><div id="links" class="results">${blocks}${nextForm}</div></div></body></html>`
}

const numbered = (from: number, count: number, host = 'example.com'): SyntheticResult[] =>
  Array.from({ length: count }, (_, i) => ({ url: `https://${host}/page-${from + i}`, title: `Result ${from + i}`, snippet: `Snippet for result ${from + i}.` }))

/** Upstream URLs that all point at one local server, for every engine. */
const allUpstreams = (base: string) => Object.fromEntries(
  ['duckduckgo_html', 'duckduckgo_lite', 'bing', 'brave', 'mojeek', 'yahoo', 'google', 'serper', 'serpapi', 'google_cse'].map(name => [name, base]))

t.test('auto: DuckDuckGo html answers with its anomaly page, lite with 429, Brave answers; rows come from Brave', async t => {
  if (!capturesAvailable()) { t.comment(MISSING_CAPTURES); t.plan(0, MISSING_CAPTURES); return }
  const brave = readSerpCapture('brave_serp_javascript-tutorial_2026.html')
  const ddgHtml = await startServer(t, (req, res) => (req.method === 'POST' && req.path === '/html/' ? send(res, 202, BLOCK_PAGES.duckduckgoAnomaly) : send(res, 404, 'no route')))
  const ddgLite = await startServer(t, (req, res) => (req.method === 'POST' && req.path === '/lite/' ? send(res, 429, 'Too Many Requests', 'text/plain') : send(res, 404, 'no route')))
  const braveServer = await startServer(t, (req, res) => (req.method === 'GET' && req.path.startsWith('/search?') ? send(res, 200, brave) : send(res, 404, 'no route')))
  const health = createEngineHealth()
  const ctx = fakeContext({ query: 'javascript tutorial', max_results: 10, language: 'de', country: 'at' }, {
    urls: { duckduckgo_html: ddgHtml.base, duckduckgo_lite: ddgLite.base, brave: braveServer.base },
    state: health,
  })
  await run(ctx)

  t.equal(ctx.rows.length, 10, 'max_results rows')
  t.same(ctx.rows.map(r => r.position), Array.from({ length: 10 }, (_, i) => i + 1))
  t.ok(ctx.rows.every(r => r.engine === 'brave'))
  t.match(ctx.rows[0], { position: 1, title: 'JavaScript Tutorial', url: 'https://www.w3schools.com/js/', domain: 'w3schools.com', snippet: /JavaScript is easy to learn/ })
  t.match(ctx.summaries[0], { engine: 'brave', engine_backend: 'brave', related_searches: ['javascript tutorialspoint', 'javascript tutorial video', 'javascript tutorial free', 'javascript tutorial pdf', 'javascript tutorial youtube', 'javascript tutorial geeksforgeeks', 'javascript tutorial for beginners', 'javascript tutorial freecodecamp'], answer_box: { type: 'infobox', title: 'W3Schools' } })
  t.match(ctx.summaries[0]!.engines_tried, [
    { engine: 'serper', outcome: 'skipped', reason: /SERPER_API_KEY not set/ },
    { engine: 'serpapi', outcome: 'skipped' },
    { engine: 'google_cse', outcome: 'skipped' },
    { engine: 'duckduckgo_html', outcome: 'blocked', reason: /anomaly/ },
    { engine: 'duckduckgo_lite', outcome: 'blocked', reason: 'HTTP 429' },
    { engine: 'brave', outcome: 'ok' },
  ])
  t.ok(ctx.stages.some(s => /duckduckgo_html refused .*trying the next engine/.test(s)), 'progress says it moved on')
  t.same(ctx.warnings, [])

  // The real requests: DuckDuckGo gets a form POST with the region; everyone gets browser headers in the caller's language.
  const ddgRequest = ddgHtml.requests[0]!
  t.equal(ddgRequest.headers['content-type'], 'application/x-www-form-urlencoded')
  t.same(Object.fromEntries(new URLSearchParams(ddgRequest.body)), { q: 'javascript tutorial', b: '', kl: 'at-de' })
  t.match(ddgRequest.headers['accept-language'], /^de-AT,de;q=0\.9/)
  t.match(ddgRequest.headers.accept, /^text\/html/)
  t.match(ddgRequest.headers['user-agent'], /Mozilla\/5\.0/)
  const braveUrl = new URL(braveServer.requests[0]!.path, braveServer.base)
  t.equal(braveUrl.searchParams.get('q'), 'javascript tutorial')
  t.match(braveServer.requests[0]!.headers.cookie, /country=at/)

  const status = health.statusRecord({ credential: () => undefined, proxyConfigured: false })
  t.same(status.engines_blocked, ['duckduckgo'], 'both DuckDuckGo backends refused: one engine, named as callers name it')
  t.same(status.engines_working, ['brave'])
  t.equal(status.recommended_engine, 'brave', 'the blocked DuckDuckGo endpoints cool down, so brave is next')
})

t.test('auto without captures: anomaly page, 429 and a Brave captcha are passed over until Mojeek answers', async t => {
  const mojeekPage = `<html><body><ul class="results-standard">${numbered(1, 3, 'mojeek.example').map(r =>
    `<li><a class="ob" href="${r.url}"><p class="i"><span class="url">${r.url}</span></p></a><h2><a class="title" href="${r.url}">${r.title}</a></h2><p class="s">${r.snippet}</p></li>`).join('')}</ul></body></html>`
  const server = await startServer(t, (req, res) => {
    if (req.method === 'POST' && req.path === '/html/') return send(res, 202, BLOCK_PAGES.duckduckgoAnomaly)
    if (req.method === 'POST' && req.path === '/lite/') return send(res, 429, 'Too Many Requests', 'text/plain')
    if (req.method === 'GET' && req.path.startsWith('/search?')) {
      // Brave and Mojeek share the path; Brave's request carries its ui_lang cookie.
      if (String(req.headers.cookie).includes('ui_lang=')) return send(res, 403, BLOCK_PAGES.braveCaptcha)
      return send(res, 200, mojeekPage)
    }
    send(res, 404, 'no route')
  })
  const health = createEngineHealth()
  const ctx = fakeContext({ query: 'widgets' }, { urls: allUpstreams(server.base), state: health })
  await run(ctx)
  t.same(ctx.rows.map(r => r.engine), ['mojeek', 'mojeek', 'mojeek'])
  t.match(ctx.summaries[0]!.engines_tried, [{}, {}, {}, { engine: 'duckduckgo_html', outcome: 'blocked' }, { engine: 'duckduckgo_lite', outcome: 'blocked', reason: 'HTTP 429' }, { engine: 'brave', outcome: 'blocked', reason: /HTTP 403: Brave captcha/ }, { engine: 'mojeek', outcome: 'ok' }])
  t.same(health.autoCandidates(() => undefined), ['mojeek', 'bing', 'yahoo', 'google'])
})

t.test('every engine refuses: the job ends blocked, and a second run does not knock on cooling engines', async t => {
  const refusing = await startServer(t, (req, res) => send(res, 429, 'Too Many Requests', 'text/plain'))
  const health = createEngineHealth()
  const first = fakeContext({ query: 'anything' }, { urls: allUpstreams(refusing.base), state: health })
  await t.rejects(run(first), ToolBlockedError)
  await t.rejects(run(first), /Every search engine refused/)
  const requestsAfterFirst = refusing.requests.length
  t.equal(requestsAfterFirst, 7, 'one request per scraped engine, providers without keys skipped')
  const status = health.statusRecord({ credential: () => undefined, proxyConfigured: false })
  t.equal(status.engines_blocked.length, 6, 'six engines (DuckDuckGo counts once for its two backends)')
  t.equal(status.google_cooldown_active, true)
  t.equal(status.last_google_block_reason, 'HTTP 429')

  const second = fakeContext({ query: 'anything' }, { urls: allUpstreams(refusing.base), state: health })
  await t.rejects(run(second), /cooling down/)
  t.equal(refusing.requests.length, requestsAfterFirst, 'no request during the cooldown')
  t.same(second.rows, [])
})

t.test('pagination up to max_results with de-duplication by normalised URL', async t => {
  const page1 = numbered(1, 10)
  // Page 2 repeats three page-1 results in other spellings (scheme, www, trailing slash, tracking parameter).
  const page2 = [
    { url: 'http://www.example.com/page-1/', title: 'Result 1 again', snippet: 'dup' },
    { url: 'https://example.com/page-2?utm_source=ddg', title: 'Result 2 again', snippet: 'dup' },
    { url: 'https://EXAMPLE.com/page-3#top', title: 'Result 3 again', snippet: 'dup' },
    ...numbered(11, 10),
  ]
  const server = await startServer(t, (req, res) => {
    if (req.method !== 'POST' || req.path !== '/html/') return send(res, 404, 'no route')
    const form = new URLSearchParams(req.body)
    if (!form.get('s')) return send(res, 200, duckDuckGoHtmlPage('widgets', page1, { s: 10, vqd: '4-1234567890' }))
    if (form.get('s') === '10' && form.get('vqd') === '4-1234567890') return send(res, 200, duckDuckGoHtmlPage('widgets', page2, { s: 25, vqd: '4-1234567890' }))
    return send(res, 400, 'unexpected page request')
  })
  const ctx = fakeContext({ query: 'widgets', max_results: 15, engine: 'duckduckgo' }, { urls: { duckduckgo_html: server.base }, state: createEngineHealth() })
  await run(ctx)
  t.equal(server.requests.length, 2, 'two pages fetched')
  t.equal(ctx.rows.length, 15)
  t.same(ctx.rows.map(r => r.url), [...page1.map(r => r.url), ...numbered(11, 5).map(r => r.url)])
  t.same(ctx.rows.map(r => r.position), Array.from({ length: 15 }, (_, i) => i + 1))
  t.ok(ctx.stages.some(s => /page 2/.test(s)))
})

t.test('a later page refused: the rows so far are kept, the engine is marked blocked and the run warns', async t => {
  const server = await startServer(t, (req, res) => {
    const form = new URLSearchParams(req.body)
    if (!form.get('s')) return send(res, 200, duckDuckGoHtmlPage('widgets', numbered(1, 10), { s: 10, vqd: '4-1' }))
    return send(res, 202, BLOCK_PAGES.duckduckgoAnomaly)
  })
  const health = createEngineHealth()
  const ctx = fakeContext({ query: 'widgets', max_results: 20, engine: 'duckduckgo' }, { urls: { duckduckgo_html: server.base }, state: health })
  await run(ctx)
  t.equal(ctx.rows.length, 10)
  t.match(ctx.warnings, [/Only 10 of 20 results for "widgets": duckduckgo_html page 2: DuckDuckGo anomaly/])
  t.equal(health.observation('duckduckgo_html')?.kind, 'blocked')
})

t.test('no results: no rows and a warning that says why', async t => {
  const server = await startServer(t, (req, res) => send(res, 200, duckDuckGoHtmlPage('zzqxv', [])))
  const ctx = fakeContext({ query: 'zzqxv' }, { urls: { duckduckgo_html: server.base }, state: createEngineHealth() })
  await run(ctx)
  t.same(ctx.rows, [])
  t.match(ctx.warnings, [/duckduckgo_html found no results for "zzqxv"/])
  t.match(ctx.summaries[0], { engine: 'duckduckgo', related_searches: [], answer_box: null })
})

t.test('the real DuckDuckGo no-results capture through the run gives the same warning', async t => {
  if (!capturesAvailable()) { t.comment(MISSING_CAPTURES); t.plan(0, MISSING_CAPTURES); return }
  const page = readSerpCapture('duckduckgo_html_2025_eino_no_results.html')
  const server = await startServer(t, (req, res) => send(res, 200, page))
  const ctx = fakeContext({ query: 'eino' }, { urls: { duckduckgo_html: server.base }, state: createEngineHealth() })
  await run(ctx)
  t.same(ctx.rows, [])
  t.match(ctx.warnings, [/found no results/])
})

t.test('providers: Serper with its key, and a missing key named when asked for by name', async t => {
  const server = await startServer(t, (req, res) => {
    if (req.method !== 'POST' || req.path !== '/search') return send(res, 404, 'no route')
    if (req.headers['x-api-key'] !== 'serper-test-key') return send(res, 403, JSON.stringify({ message: 'Unauthorized.', statusCode: 403 }), 'application/json')
    const body = JSON.parse(req.body)
    send(res, 200, JSON.stringify({
      searchParameters: { q: body.q, gl: body.gl, hl: body.hl, num: body.num, page: body.page, type: 'search', engine: 'google' },
      answerBox: { title: 'Boiling point of water', answer: '100 °C' },
      organic: numbered(1, 10, 'serper.example').map((r, i) => ({ title: r.title, link: r.url, snippet: r.snippet, position: i + 1 })),
      relatedSearches: [{ query: 'boiling point at altitude' }],
    }), 'application/json')
  })
  const ctx = fakeContext({ query: 'boiling point of water', max_results: 10, country: 'GB', language: 'en' }, { urls: { serper: server.base }, credentials: { serper: 'serper-test-key' }, state: createEngineHealth() })
  await run(ctx)
  t.equal(ctx.rows.length, 10)
  t.ok(ctx.rows.every(r => r.engine === 'serper' && r.domain === 'serper.example'))
  t.match(JSON.parse(server.requests[0]!.body), { q: 'boiling point of water', gl: 'gb', hl: 'en', num: 10, page: 1 })
  t.match(ctx.summaries[0], { engine: 'serper', related_searches: ['boiling point at altitude'], answer_box: { type: 'answer_box', text: '100 °C' } })

  const missing = fakeContext({ query: 'x', engine: 'serpapi' }, { state: createEngineHealth() })
  await t.rejects(run(missing), MissingCredentialError)
  await t.rejects(run(missing), /SERPAPI_API_KEY/)
})

t.test('Google: a redirect to /sorry/ blocks it; while it cools down an explicit request is refused without a fetch', async t => {
  const server = await startServer(t, (req, res) => {
    if (req.path.startsWith('/search?')) return send(res, 302, '', 'text/html', { location: `/sorry/index?continue=${encodeURIComponent(req.path)}` })
    if (req.path.startsWith('/sorry/')) return send(res, 429, BLOCK_PAGES.googleSorry)
    send(res, 404, 'no route')
  })
  const health = createEngineHealth()
  const ctx = fakeContext({ query: 'x', engine: 'google' }, { urls: { google: server.base }, state: health })
  await t.rejects(run(ctx), /unusual-traffic captcha/)
  const status = health.statusRecord({ credential: () => undefined, proxyConfigured: false })
  t.equal(status.google_cooldown_active, true)
  t.match(status.last_google_block_reason, /HTTP 429: Google unusual-traffic captcha/)

  const before = server.requests.length
  await t.rejects(run(fakeContext({ query: 'y', engine: 'google' }, { urls: { google: server.base }, state: health })), /google: cooling down for \d+ s/)
  t.equal(server.requests.length, before)
})

t.test('all engines failing with 5xx is an upstream error, not a block', async t => {
  const server = await startServer(t, (req, res) => send(res, 503, 'Service Unavailable', 'text/plain'))
  const ctx = fakeContext({ query: 'x', engine: 'duckduckgo' }, { urls: { duckduckgo_html: server.base, duckduckgo_lite: server.base }, state: createEngineHealth() })
  await t.rejects(run(ctx), UpstreamError)
})

t.test('input: query or urls, not both, not neither', async t => {
  await t.rejects(run(fakeContext({ query: 'x', urls: ['https://example.com'] })), InputError)
  await t.rejects(run(fakeContext({})), InputError)
})

t.test('given no state, the run gets the declaration\'s createState (the test kit makes it as the kernel does)', async t => {
  const server = await startServer(t, (req, res) => send(res, 200, duckDuckGoHtmlPage('q', numbered(1, 3))))
  const ctx = fakeContext({ query: 'q' }, { urls: { duckduckgo_html: server.base } })
  await run(ctx)
  t.equal(ctx.rows.length, 3)
})
