// The websearch tool through the real kernel: buildApp + inject on a real
// database, a temp tools config whose websearch entry is the one in
// tools.config.json with `upstream` base URLs pointing at local servers that
// stand in for each engine's real path (POST /html/, POST /lite/, GET
// /search…). Covers tool-run rows and summary, auto fallback, the all-refused
// outcome (blocked, refunded), search + scrape, urls mode, CSV exports and
// GET /api/search/status (engine health kept per app across jobs).
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { parse } from 'csv-parse/sync'
import { build, signup, tempDir, PUBLIC_TOKEN } from '../../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../../helpers/jobs.ts'
import { cellText } from '../../../core/exports/exporters.ts'
import { BLOCK_PAGES } from './block-pages.ts'
import { MISSING_CAPTURES, capturesAvailable, readSerpCapture } from './captures.ts'
import { send, startServer, type RecordedRequest } from './fake-context.ts'

type Teardown = Parameters<typeof tempDir>[0]

const ENGINE_UPSTREAMS = ['duckduckgo_html', 'duckduckgo_lite', 'brave', 'mojeek', 'bing', 'yahoo', 'google', 'serper', 'serpapi', 'google_cse']

/** The websearch entry exactly as tools.config.json has it (credentials, settings). */
function realWebsearchEntry (): Record<string, any> {
  const file = JSON.parse(readFileSync(resolve('tools.config.json'), 'utf8'))
  const entry = file.tools.find((e: { key: string }) => e.key === 'websearch')
  if (!entry) throw new Error('tools.config.json has no websearch entry')
  return structuredClone(entry)
}

/** A tools config with only the websearch entry, upstream base URLs overridden, written to a temp dir. */
function writeToolsConfig (t: Teardown, upstream: Record<string, string>, settings: Record<string, unknown> = {}): string {
  const entry = realWebsearchEntry()
  entry.upstream = upstream
  entry.settings = { ...entry.settings, ...settings }
  const path = join(tempDir(t, 'ws-config-'), 'tools.config.json')
  writeFileSync(path, JSON.stringify({ tools: [entry], retired: [] }, null, 2))
  return path
}

async function buildWebsearch (t: Teardown, upstream: Record<string, string>, options: { settings?: Record<string, unknown>, env?: Record<string, string> } = {}): Promise<FastifyInstance> {
  return build(t, { env: { TOOLS_CONFIG: writeToolsConfig(t, upstream, options.settings), ALLOW_PRIVATE_TARGETS: '1', ...options.env } })
}

/** Every engine's upstream at one base (a refusing server), with overrides. */
const allAt = (base: string, overrides: Record<string, string> = {}) => ({ ...Object.fromEntries(ENGINE_UPSTREAMS.map(n => [n, base])), ...overrides })

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;')

interface SyntheticResult { url: string, title: string, snippet: string }

const numbered = (from: number, count: number, host = 'example.com'): SyntheticResult[] =>
  Array.from({ length: count }, (_, i) => ({ url: `https://${host}/page-${from + i}`, title: `Result ${from + i}`, snippet: `Snippet for result ${from + i}.` }))

/** html.duckduckgo.com/html markup: result blocks, an optional zero-click answer and related searches. */
function duckDuckGoHtmlPage (results: SyntheticResult[], extras: { answer?: { heading: string, text: string }, related?: string[] } = {}): string {
  const blocks = results.map(r => `
  <div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="${escapeHtml(r.url)}">${escapeHtml(r.title)}</a></h2>
    <a class="result__snippet" href="${escapeHtml(r.url)}">${escapeHtml(r.snippet)}</a>
  </div></div>`).join('')
  const answer = extras.answer
    ? `<div class="zci-wrapper"><div class="zci"><h1 class="zci__heading"><a class="zci__heading" href="https://en.wikipedia.org/wiki/Widget">${escapeHtml(extras.answer.heading)}</a></h1><div class="zci__result">${escapeHtml(extras.answer.text)}</div></div></div>`
    : ''
  const related = extras.related ? `<div class="related-searches">${extras.related.map(r => `<a href="/html/?q=${encodeURIComponent(r)}">${escapeHtml(r)}</a>`).join('')}</div>` : ''
  return `<!DOCTYPE html><html><head><title>DuckDuckGo</title></head><body class="body--html">${answer}
  <div class="serp__results"><div id="links" class="results">${blocks}</div>${related}</div></body></html>`
}

function mojeekPage (results: SyntheticResult[]): string {
  return `<html><body><ul class="results-standard">${results.map(r =>
    `<li><a class="ob" href="${r.url}"><p class="i"><span class="url">${r.url}</span></p></a><h2><a class="title" href="${r.url}">${escapeHtml(r.title)}</a></h2><p class="s">${escapeHtml(r.snippet)}</p></li>`).join('')}</ul></body></html>`
}

const ARTICLE = `<!DOCTYPE html><html lang="en-GB"><head><title>Acme Widgets | About us</title>
<meta name="description" content="Acme makes widgets in Leeds since 1952.">
<link rel="canonical" href="/about"></head>
<body><main><article><h1>About Acme Widgets</h1>
<p>Acme Widgets has made precision widgets in Leeds since 1952. Our workshop employs forty machinists and ships to thirty countries every week.</p>
<h2>Our history</h2><p>The company started in a railway arch with one lathe. Today it runs three production lines and a test laboratory for every widget we make.</p>
</article></main></body></html>`

function site (req: RecordedRequest, res: ServerResponse): void {
  switch (req.path) {
    case '/about': return send(res, 200, ARTICLE)
    case '/old-about': return send(res, 301, '', 'text/html', { location: '/about' })
    case '/brochure.pdf': return send(res, 200, '%PDF-1.7\n1 0 obj<<>>endobj\n', 'application/pdf')
    default: return send(res, 404, '<html><head><title>Not found</title></head><body>Not found</body></html>')
  }
}

const headersFor = (key: string) => ({ 'x-api-key': key })

async function runSearch (app: FastifyInstance, apiKey: string, params: Record<string, unknown>) {
  const res = await startJob(app, apiKey, params, 'websearch')
  if (res.statusCode !== 202) throw new Error(`tool-run answered ${res.statusCode}: ${res.body}`)
  const id = res.json().job_id as string
  const status = await waitForEnd(app, apiKey, id, 30_000)
  const results = (await app.inject({ url: `/api/tool-run/${id}/results?limit=1000`, headers: headersFor(apiKey) })).json()
  return { id, status, rows: (results.results ?? []) as Array<Record<string, any>>, results }
}

async function searchStatus (app: FastifyInstance, key?: string) {
  return app.inject({ url: '/api/search/status', headers: key === undefined ? {} : headersFor(key) })
}

t.test('GET /api/search/status before any search: unmeasured; 401 without a key, 200 with a guest token', async t => {
  const server = await startServer(t, (_req, res) => send(res, 500, 'unused'))
  const app = await buildWebsearch(t, allAt(server.base))

  const anonymous = await searchStatus(app)
  t.equal(anonymous.statusCode, 401)
  t.type(anonymous.json().detail, 'string')
  t.equal((await searchStatus(app, 'sk-not-a-real-key')).statusCode, 401, 'a bad key is refused too')

  const guest = await searchStatus(app, PUBLIC_TOKEN)
  t.equal(guest.statusCode, 200, guest.body)
  const body = guest.json()
  t.same(Object.keys(body).sort(), ['engine_health', 'engine_health_observed', 'engines', 'engines_blocked', 'engines_unconfigured', 'engines_working', 'google_cooldown_active', 'google_ready', 'last_google_block_reason', 'note', 'providers', 'proxy_configured', 'proxy_health', 'recommended_engine'].sort(), 'every field of the Search status record')
  t.match(body, {
    providers: { serper: false, serpapi: false, google_cse: false },
    proxy_configured: false,
    google_ready: true,
    google_cooldown_active: false,
    last_google_block_reason: '',
    engine_health_observed: false,
    engines_working: [],
    engines_blocked: [],
    engines_unconfigured: ['serper', 'serpapi', 'google_cse'],
    recommended_engine: 'duckduckgo',
  })
  for (const engine of ['auto', 'google', 'bing', 'duckduckgo', 'brave', 'mojeek', 'yahoo']) t.ok(body.engines.includes(engine), `engines lists ${engine}`)
  t.same(Object.keys(body.engine_health).sort(), ['google_cse', 'serpapi', 'serper'], 'only the unconfigured providers: nothing else was queried')
  t.match(body.engine_health.serper, { ok: false, kind: 'unconfigured', reason: 'SERPER_API_KEY not set' })
  t.match(body.engine_health.google_cse, { ok: false, kind: 'unconfigured', reason: 'GOOGLE_CSE_API_KEY and GOOGLE_CSE_ID not set' })
  t.ok(Number.isInteger(body.engine_health.serper.age_s) && body.engine_health.serper.age_s >= 0)
  t.match(body.note, /not measured yet/)
  t.equal(server.requests.length, 0, 'the status endpoint sends no request upstream')

  const user = await signup(app)
  t.equal((await searchStatus(app, user.apiKey)).statusCode, 200, 'a personal key works too')
})

t.test('tool-run websearch: rows, summary with related searches and the answer box, status record and CSV export', async t => {
  const results = [
    { url: 'https://www.acme.example/widgets', title: 'Widgets, "gadgets" & more', snippet: 'Every widget, sorted by size; line one.\nLine two.' },
    { url: 'https://shop.example.org/w?id=1&utm_source=ddg', title: 'Widget shop', snippet: 'Buy widgets online.' },
    ...numbered(3, 10),
  ]
  const engine = await startServer(t, (req, res) => {
    if (req.method === 'POST' && req.path === '/html/') {
      return send(res, 200, duckDuckGoHtmlPage(results, { answer: { heading: 'Widget', text: 'A widget is a small gadget or mechanical device.' }, related: ['widgets for sale', 'widget definition'] }))
    }
    send(res, 404, 'no route')
  })
  const app = await buildWebsearch(t, { duckduckgo_html: engine.base })
  const user = await signup(app)

  const { id, status, rows } = await runSearch(app, user.apiKey, { query: 'widgets', max_results: 5 })
  t.match(status, { status: 'done', records: 5, error: null, blocked: false, refunded: false, warning: null })
  t.equal(rows.length, 5)
  t.same(rows.map(r => r.position), [1, 2, 3, 4, 5])
  t.same(rows[0], { query: 'widgets', position: 1, title: 'Widgets, "gadgets" & more', url: 'https://www.acme.example/widgets', domain: 'acme.example', snippet: 'Every widget, sorted by size; line one. Line two.', engine: 'duckduckgo_html' })
  t.match(rows[1], { position: 2, title: 'Widget shop', domain: 'shop.example.org', engine: 'duckduckgo_html' })
  t.same(rows.slice(2).map(r => r.url), numbered(3, 3).map(r => r.url))
  for (const row of rows) t.same(Object.keys(row).sort(), ['domain', 'engine', 'position', 'query', 'snippet', 'title', 'url'], `row ${row.position} has exactly the search fields`)

  t.match(status.summary, {
    engine: 'duckduckgo',
    engine_backend: 'duckduckgo_html',
    related_searches: ['widgets for sale', 'widget definition'],
    answer_box: { type: 'instant_answer', title: 'Widget', text: 'A widget is a small gadget or mechanical device.' },
    pages_fetched: 1,
  })
  t.match(status.summary.engines_tried, [
    { engine: 'serper', outcome: 'skipped', reason: 'SERPER_API_KEY not set' },
    { engine: 'serpapi', outcome: 'skipped' },
    { engine: 'google_cse', outcome: 'skipped' },
    { engine: 'duckduckgo_html', outcome: 'ok' },
  ])
  t.equal(status.summary.engines_tried.length, 4)

  // The real request: a form POST to /html/ with the query and DuckDuckGo's worldwide region.
  t.equal(engine.requests.length, 1)
  t.equal(engine.requests[0]!.headers['content-type'], 'application/x-www-form-urlencoded')
  t.same(Object.fromEntries(new URLSearchParams(engine.requests[0]!.body)), { q: 'widgets', b: '', kl: 'wt-wt' })

  // The status endpoint now reports what this app's runs observed.
  const health = (await searchStatus(app, user.apiKey)).json()
  t.match(health, { engine_health_observed: true, engines_working: ['duckduckgo'], engines_blocked: [], recommended_engine: 'duckduckgo', google_cooldown_active: false })
  t.same(health.engine_health.duckduckgo, { ok: true, kind: 'ok', reason: '5 results', age_s: health.engine_health.duckduckgo.age_s, backend: 'duckduckgo_html' }, 'named as callers name it; the backend that answered says which')
  // Seconds since the observation: 0, or 1 when a loaded machine's job ends across a second's edge.
  t.ok([0, 1].includes(health.engine_health.duckduckgo.age_s), 'seen just now')
  t.notOk('brave' in health.engine_health, 'an engine never queried is absent')
  t.notOk('duckduckgo_html' in health.engine_health, 'never a backend id')
  t.notMatch(health.note, /not measured yet/)

  // CSV export parses back to the JSON rows.
  const csv = await app.inject({ url: `/api/tool-run/${id}/results.csv`, headers: headersFor(user.apiKey) })
  t.equal(csv.statusCode, 200)
  t.match(csv.headers['content-type'], /text\/csv/)
  t.equal(csv.headers['content-disposition'], `attachment; filename="websearch-${id}.csv"`)
  const parsed = parse(csv.rawPayload, { bom: true, columns: true }) as Array<Record<string, string>>
  const columns = ['query', 'position', 'title', 'url', 'domain', 'snippet', 'engine']
  t.same(Object.keys(parsed[0]!), columns)
  t.same(parsed, rows.map(r => Object.fromEntries(columns.map(c => [c, cellText(r[c])]))))
  const selected = parse((await app.inject({ url: `/api/tool-run/${id}/results.csv?fields=url,position`, headers: headersFor(user.apiKey) })).rawPayload, { bom: true, columns: true }) as Array<Record<string, string>>
  t.same(selected, rows.map(r => ({ url: r.url, position: String(r.position) })))
})

t.test('auto falls back past 202 anomaly, 429 and a captcha; engine health outlives the job', async t => {
  const server = await startServer(t, (req, res) => {
    if (req.method === 'POST' && req.path === '/html/') return send(res, 202, BLOCK_PAGES.duckduckgoAnomaly)
    if (req.method === 'POST' && req.path === '/lite/') return send(res, 429, 'Too Many Requests', 'text/plain')
    if (req.method === 'GET' && req.path.startsWith('/search?')) {
      // Brave and Mojeek share the path; Brave's request carries its ui_lang cookie.
      if (String(req.headers.cookie).includes('ui_lang=')) return send(res, 403, BLOCK_PAGES.braveCaptcha)
      return send(res, 200, mojeekPage(numbered(1, 4, 'mojeek.example')))
    }
    send(res, 404, 'no route')
  })
  const app = await buildWebsearch(t, allAt(server.base))
  const user = await signup(app)

  const first = await runSearch(app, user.apiKey, { query: 'widgets', max_results: 10 })
  t.match(first.status, { status: 'done', records: 4, blocked: false, refunded: false })
  t.same(first.rows.map(r => r.engine), ['mojeek', 'mojeek', 'mojeek', 'mojeek'])
  t.match(first.rows[0], { position: 1, title: 'Result 1', url: 'https://mojeek.example/page-1', domain: 'mojeek.example', snippet: 'Snippet for result 1.' })
  t.match(first.status.summary, { engine: 'mojeek', engine_backend: 'mojeek' })
  t.match(first.status.summary.engines_tried, [{}, {}, {},
    { engine: 'duckduckgo_html', outcome: 'blocked', reason: /anomaly/ },
    { engine: 'duckduckgo_lite', outcome: 'blocked', reason: 'HTTP 429' },
    { engine: 'brave', outcome: 'blocked', reason: /HTTP 403: Brave captcha/ },
    { engine: 'mojeek', outcome: 'ok' },
  ])

  const health = (await searchStatus(app, user.apiKey)).json()
  t.same(health.engines_blocked, ['duckduckgo', 'brave'])
  t.same(health.engines_working, ['mojeek'])
  t.equal(health.recommended_engine, 'mojeek')
  t.match(health.engine_health.brave, { ok: false, kind: 'blocked', reason: /Brave captcha/ })
  t.ok([0, 1].includes(health.engine_health.brave.age_s), 'seen just now (0, or 1 across a second\'s edge)')
  t.ok(health.engine_health.brave.cooldown_remaining_s > 590 && health.engine_health.brave.cooldown_remaining_s <= 600, 'cooldown_ms from the config (600)')
  t.match(health.engine_health.duckduckgo, { ok: false, kind: 'blocked', reason: 'HTTP 429', backend: 'duckduckgo_lite' }, 'the latest refusal of its two backends')
  t.match(health.note, /duckduckgo refused/)

  // A second job in the same app goes straight to Mojeek: the cooling engines get no request.
  const before = server.requests.length
  const second = await runSearch(app, user.apiKey, { query: 'gadgets', max_results: 2 })
  t.match(second.status, { status: 'done', records: 2 })
  t.equal(server.requests.length, before + 1, 'one request, to Mojeek')
  t.match(second.status.summary.engines_tried, [{}, {}, {},
    { engine: 'duckduckgo_html', outcome: 'skipped', reason: /cooling down/ },
    { engine: 'duckduckgo_lite', outcome: 'skipped', reason: /cooling down/ },
    { engine: 'brave', outcome: 'skipped', reason: /cooling down/ },
    { engine: 'mojeek', outcome: 'ok' },
  ])
})

t.test('auto over the real Brave capture: related searches and the answer box reach the job summary', async t => {
  if (!capturesAvailable()) { t.comment(MISSING_CAPTURES); t.plan(0, MISSING_CAPTURES); return }
  const brave = readSerpCapture('brave_serp_javascript-tutorial_2026.html')
  const server = await startServer(t, (req, res) => {
    if (req.method === 'POST') return send(res, 429, 'Too Many Requests', 'text/plain')
    if (req.method === 'GET' && req.path.startsWith('/search?')) return send(res, 200, brave)
    send(res, 404, 'no route')
  })
  const app = await buildWebsearch(t, allAt(server.base))
  const user = await signup(app)
  const { status, rows } = await runSearch(app, user.apiKey, { query: 'javascript tutorial', max_results: 10 })
  t.match(status, { status: 'done', records: 10 })
  t.ok(rows.every(r => r.engine === 'brave'))
  t.match(rows[0], { position: 1, title: 'JavaScript Tutorial', url: 'https://www.w3schools.com/js/', domain: 'w3schools.com', snippet: /JavaScript is easy to learn/ })
  t.match(status.summary, { engine: 'brave', related_searches: ['javascript tutorialspoint', 'javascript tutorial video'], answer_box: { type: 'infobox', title: 'W3Schools' } })
})

t.test('every engine refuses: error, blocked, refunded; the next search is refused without a request', async t => {
  const refusing = await startServer(t, (_req, res) => send(res, 429, 'Too Many Requests', 'text/plain'))
  const app = await buildWebsearch(t, allAt(refusing.base))
  const user = await signup(app)

  const first = await runSearch(app, user.apiKey, { query: 'anything' })
  t.match(first.status, { status: 'error', blocked: true, refunded: true, records: 0, stage: 'blocked' })
  t.match(first.status.error, /^The source refused the request: Every search engine refused or is cooling down after a block/)
  t.same(first.rows, [])
  t.equal(refusing.requests.length, 7, 'one request per scraped engine; providers without keys are skipped')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0, 'the call was refunded')

  const health = (await searchStatus(app, user.apiKey)).json()
  t.equal(health.engine_health_observed, true)
  t.same(health.engines_working, [])
  t.same(health.engines_blocked, ['duckduckgo', 'bing', 'brave', 'mojeek', 'yahoo', 'google'])
  t.match(health, { google_ready: false, google_cooldown_active: true, last_google_block_reason: 'HTTP 429', recommended_engine: 'auto' })
  for (const engine of health.engines_blocked) t.match(health.engine_health[engine], { ok: false, kind: 'blocked', reason: 'HTTP 429' })
  t.ok(health.engine_health.google.cooldown_remaining_s > 1790, 'google_cooldown_ms from the config (1800)')
  t.match(health.note, /Every configured engine is cooling down/)

  const second = await runSearch(app, user.apiKey, { query: 'anything else' })
  t.match(second.status, { status: 'error', blocked: true, refunded: true })
  t.match(second.status.error, /cooling down/)
  t.equal(refusing.requests.length, 7, 'no request during the cooldown')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0)
})

t.test('Google redirects to /sorry/: blocked with the reason; google_cooldown_active uses google_cooldown_ms', async t => {
  const server = await startServer(t, (req, res) => {
    if (req.path.startsWith('/search?')) return send(res, 302, '', 'text/html', { location: `/sorry/index?continue=${encodeURIComponent(req.path)}` })
    if (req.path.startsWith('/sorry/')) return send(res, 429, BLOCK_PAGES.googleSorry)
    send(res, 404, 'no route')
  })
  const app = await buildWebsearch(t, { google: server.base }, { settings: { google_cooldown_ms: 120_000 } })
  const user = await signup(app)

  const { status } = await runSearch(app, user.apiKey, { query: 'x', engine: 'google' })
  t.match(status, { status: 'error', blocked: true, refunded: true })
  t.match(status.error, /unusual-traffic captcha/)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0)

  const health = (await searchStatus(app, PUBLIC_TOKEN)).json()
  t.match(health, { google_cooldown_active: true, google_ready: false, last_google_block_reason: /^HTTP 429: Google unusual-traffic captcha/ })
  t.same(health.engines_blocked, ['google'])
  t.match(health.engine_health.google, { ok: false, kind: 'blocked', reason: /unusual-traffic/ })
  t.ok([0, 1].includes(health.engine_health.google.age_s), 'seen just now (0, or 1 across a second\'s edge)')
  t.ok(health.engine_health.google.cooldown_remaining_s > 110 && health.engine_health.google.cooldown_remaining_s <= 120, `cooldown from settings: ${health.engine_health.google.cooldown_remaining_s}`)
  t.match(health.note, /Google is blocking this server's address/)

  // Asked for by name while it cools down: refused without a request.
  const before = server.requests.length
  const again = await runSearch(app, user.apiKey, { query: 'y', engine: 'google' })
  t.match(again.status, { status: 'error', blocked: true })
  t.match(again.status.error, /google: cooling down for \d+ s/)
  t.equal(server.requests.length, before)
})

t.test('scrape_results: every result row carries its page', async t => {
  const pages = await startServer(t, site)
  const engine = await startServer(t, (_req, res) => send(res, 200, duckDuckGoHtmlPage([
    { url: `${pages.base}/about`, title: 'About Acme', snippet: 'Acme makes widgets.' },
    { url: `${pages.base}/brochure.pdf`, title: 'Acme brochure (PDF)', snippet: 'Download.' },
    { url: `${pages.base}/gone`, title: 'Gone', snippet: 'Missing page.' },
  ])))
  const app = await buildWebsearch(t, { duckduckgo_html: engine.base })
  const user = await signup(app)
  const { id, status, rows } = await runSearch(app, user.apiKey, { query: 'acme widgets leeds', scrape_results: true, max_results: 5 })
  t.match(status, { status: 'done', records: 3, summary: { engine: 'duckduckgo' } })
  t.match(rows[0], {
    position: 1, title: 'About Acme', url: `${pages.base}/about`, domain: '127.0.0.1', snippet: 'Acme makes widgets.', engine: 'duckduckgo_html',
    page_title: 'Acme Widgets | About us', meta_description: 'Acme makes widgets in Leeds since 1952.', canonical: `${pages.base}/about`, language: 'en-GB',
    headings: { h1: ['About Acme Widgets'], h2: ['Our history'] }, text: /precision widgets in Leeds/, status: 200, final_url: `${pages.base}/about`, error: null,
  })
  t.ok(rows[0]!.word_count > 30)
  t.match(rows[1], { position: 2, content_type: 'application/pdf', text: null, error: 'not an HTML page (application/pdf)', status: 200 })
  t.match(rows[2], { position: 3, status: 404, text: null, error: 'HTTP 404' })

  // Nested headings go to CSV as JSON text and parse back.
  const parsed = parse((await app.inject({ url: `/api/tool-run/${id}/results.csv`, headers: headersFor(user.apiKey) })).rawPayload, { bom: true, columns: true }) as Array<Record<string, string>>
  t.equal(parsed.length, 3)
  t.same(JSON.parse(parsed[0]!.headings!), rows[0]!.headings)
  t.equal(parsed[0]!.text, rows[0]!.text)
  t.equal(parsed[1]!.text, '', 'null is an empty cell')
})

t.test('urls mode: one row per URL in input order; a non-http(s) address, or query and urls together, are a 400, not charged', async t => {
  const pages = await startServer(t, site)
  const app = await buildWebsearch(t, {})
  const user = await signup(app)
  const urls = [`${pages.base}/old-about`, `${pages.base}/brochure.pdf`, `${pages.base}/about`]
  const { status, rows } = await runSearch(app, user.apiKey, { urls })
  t.match(status, { status: 'done', records: 3, warning: null })
  t.same(rows.map(r => r.url), urls)
  t.same(rows.map(r => r.position), [1, 2, 3])
  t.match(rows[0], { title: 'Acme Widgets | About us', final_url: `${pages.base}/about`, status: 200, domain: '127.0.0.1', text: /railway arch/ })
  t.match(rows[1], { content_type: 'application/pdf', error: /not an HTML page/ })

  const ftp = await startJob(app, user.apiKey, { urls: [...urls, 'ftp://files.example.com/x'] }, 'websearch')
  t.equal(ftp.statusCode, 400, 'an address that is no website: refused before the job starts')
  t.match(ftp.json().detail, /^params\.urls\.3 must be a website address/)

  const both = await startJob(app, user.apiKey, { query: 'x', urls }, 'websearch')
  t.equal(both.statusCode, 400, 'query and urls together: refused before the job starts')
  t.match(both.json().detail, /params\.query or params\.urls, not both/)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'only the scrape was charged')
})

t.test('urls mode without ALLOW_PRIVATE_TARGETS: the guard refuses loopback on each row', async t => {
  const pages = await startServer(t, site)
  const app = await build(t, { env: { TOOLS_CONFIG: writeToolsConfig(t, {}) } })
  const user = await signup(app)
  const { status, rows } = await runSearch(app, user.apiKey, { urls: [`${pages.base}/about`] })
  t.match(status, { status: 'done', records: 1, warning: /None of the pages could be read/ })
  t.match(rows[0], { status: null, text: null, error: /Refused to connect/ })
  t.equal(pages.requests.length, 0, 'no request reached the site')
})

t.test('a provider asked for by name without its key ends in error naming the variable, refunded; with the key it answers', async t => {
  const serper = await startServer(t, (req, res) => {
    if (req.method !== 'POST' || req.path !== '/search') return send(res, 404, 'no route')
    if (req.headers['x-api-key'] !== 'serper-test-key') return send(res, 403, JSON.stringify({ message: 'Unauthorized.', statusCode: 403 }), 'application/json')
    const body = JSON.parse(req.body)
    send(res, 200, JSON.stringify({
      searchParameters: { q: body.q, type: 'search', engine: 'google' },
      answerBox: { title: 'Boiling point of water', answer: '100 °C' },
      organic: numbered(1, 3, 'serper.example').map((r, i) => ({ title: r.title, link: r.url, snippet: r.snippet, position: i + 1 })),
      relatedSearches: [{ query: 'boiling point at altitude' }],
    }), 'application/json')
  })
  const without = await buildWebsearch(t, { serper: serper.base })
  const user = await signup(without)
  const missing = await runSearch(without, user.apiKey, { query: 'x', engine: 'serpapi' })
  t.match(missing.status, { status: 'error', blocked: false, refunded: true })
  t.match(missing.status.error, /SERPAPI_API_KEY/)

  const withKey = await buildWebsearch(t, { serper: serper.base }, { env: { SERPER_API_KEY: 'serper-test-key' } })
  const other = await signup(withKey)
  const before = (await searchStatus(withKey, other.apiKey)).json()
  t.match(before, { providers: { serper: true, serpapi: false, google_cse: false }, recommended_engine: 'serper' })
  t.same(before.engines_unconfigured, ['serpapi', 'google_cse'])
  t.notMatch(JSON.stringify(before), /serper-test-key/, 'the key never appears in the status record')
  const { status, rows } = await runSearch(withKey, other.apiKey, { query: 'boiling point of water', max_results: 3 })
  t.match(status, { status: 'done', records: 3, summary: { engine: 'serper', related_searches: ['boiling point at altitude'], answer_box: { type: 'answer_box', text: '100 °C' } } })
  t.ok(rows.every(r => r.engine === 'serper' && r.domain === 'serper.example'))
  t.same((await searchStatus(withKey, other.apiKey)).json().engines_working, ['serper'])
})

t.test('max_results is clamped to the plan ceiling (registered: 200)', async t => {
  const engine = await startServer(t, (_req, res) => send(res, 200, duckDuckGoHtmlPage(numbered(1, 3))))
  const app = await buildWebsearch(t, { duckduckgo_html: engine.base })
  const user = await signup(app)
  const res = await startJob(app, user.apiKey, { query: 'widgets', max_results: 1000 }, 'websearch')
  t.equal(res.statusCode, 202)
  const stored = await app.services.db.job.findUniqueOrThrow({ where: { id: res.json().job_id } })
  t.equal(JSON.parse(stored.input).max_results, 200)
  const status = await waitForEnd(app, user.apiKey, res.json().job_id, 30_000)
  t.match(status, { status: 'done', records: 3 })
})

t.test('a blank provider key is unset for the status record as it is for runs', async t => {
  const engine = await startServer(t, (_req, res) => send(res, 200, duckDuckGoHtmlPage(numbered(1, 2))))
  const serper = await startServer(t, (_req, res) => send(res, 500, 'must not be asked'))
  const app = await buildWebsearch(t, { duckduckgo_html: engine.base, serper: serper.base }, { env: { SERPER_API_KEY: '   ' } })
  const user = await signup(app)
  const before = (await searchStatus(app, user.apiKey)).json()
  t.match(before, { providers: { serper: false }, recommended_engine: 'duckduckgo' })
  t.ok(before.engines_unconfigured.includes('serper'))
  const { status } = await runSearch(app, user.apiKey, { query: 'widgets' })
  t.match(status, { status: 'done', records: 2, summary: { engine: 'duckduckgo', engines_tried: [{ engine: 'serper', outcome: 'skipped', reason: 'SERPER_API_KEY not set' }] } })
  t.equal(serper.requests.length, 0)
})
