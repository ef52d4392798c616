// Every tool family that fetches pages, run through the kernel (job start ->
// status -> results) against the hostile upstream: webemail, websearch's URL
// scrape mode, products, and maps' deep scan (maps -> webemail). Private
// targets are refused as in production; the hostile site looks public through
// the app's network overrides (an exact address:port exception), so inward
// redirects and the inside server stay refused. Each job ends with row errors
// or a clean job error, no answer names an inside address, port or URL
// credential, and the process's memory stays bounded.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, signup, type TestUser } from '../helpers/build.ts'
import { waitForEnd } from '../helpers/jobs.ts'
import { writeMapsConfig } from '../fixtures/maps/app.ts'
import { KEYS, startUpstreams } from '../fixtures/maps/upstreams.ts'
import { CONTACT_EMAIL, URL_CREDENTIAL, startHostileUpstream, type HostileUpstream } from '../fixtures/hostile/hostile-upstream.ts'

const MB = 1024 * 1024
const CREDENTIAL_URL_PATTERN = new RegExp(`http://${URL_CREDENTIAL}@127\\.0\\.0\\.1:\\d+/fail-with-credential`, 'g')

/** The parts of a tap test the helpers below use. */
interface TapTest {
  ok (value: unknown, message: string): unknown
  notMatch (value: unknown, pattern: RegExp | string, message: string): unknown
  teardown (fn: () => unknown): void
}

interface JobOutcome { status: Record<string, any>, rows: Array<Record<string, any>>, answers: string }

async function runJob (app: FastifyInstance, user: TestUser, tool: string, params: Record<string, unknown>): Promise<JobOutcome> {
  const start = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool, params } })
  if (start.statusCode !== 202) throw new Error(`tool-run answered ${start.statusCode}: ${start.body}`)
  const id = start.json().job_id as string
  const status = await waitForEnd(app, user.apiKey, id, 120_000)
  const results = await app.inject({ url: `/api/tool-run/${id}/results?limit=1000`, headers: { 'x-api-key': user.apiKey } })
  const rows = results.statusCode === 200 ? results.json().results as Array<Record<string, any>> : []
  return { status, rows, answers: `${start.body}\n${JSON.stringify(status)}\n${results.body}` }
}

/** Nothing of the inside, no library error code, no URL credential in what the client was answered. */
function assertNothingLeaks (t: TapTest, site: HostileUpstream, outcome: JobOutcome, label: string): void {
  t.notMatch(outcome.answers, /127\.0\.0\.2|169\.254\.169\.254|ECONNREFUSED|ECONNRESET|ENOTFOUND/, `${label}: no inside address or library code`)
  t.notMatch(outcome.answers, new RegExp(`:${site.inside.port}\\b`), `${label}: not the inside port`)
  // Tools echo the input URL as given (row `url`, "no page of <website>"): the user's own text.
  // What the network layer adds (every failure text) must not carry the credential.
  const echoed = outcome.answers.replaceAll(CREDENTIAL_URL_PATTERN, '(input)')
  t.notMatch(echoed, URL_CREDENTIAL.split(':')[1]!, `${label}: the URL's credential only in the echo of the input`)
  t.notMatch(outcome.answers, /"statusCode":\s*500|Internal Server Error/, `${label}: no 500`)
  t.ok(['done', 'error'].includes(outcome.status.status), `${label} ended (${outcome.status.status}: ${outcome.status.error ?? 'rows'})`)
}

async function hostileApp (t: TapTest, site: HostileUpstream, env: Record<string, string> = {}, extraTargets: string[] = []) {
  return build(t, {
    env: { ALLOW_PRIVATE_TARGETS: '0', ...env },
    network: { allowedTargets: [`127.0.0.1:${site.port}`, `127.0.0.1:${site.httpsPort}`, ...extraTargets] },
  })
}

t.test('webemail, websearch urls mode and products through the kernel: row errors or clean job errors, bounded memory', async t => {
  const site = await startHostileUpstream(t)
  const app = await hostileApp(t, site)
  const user = await signup(app)
  // Loads crawlee and the extraction libraries before the baseline: they are not what is measured.
  const warm = await runJob(app, user, 'webemail', { website: `${site.origin}/contact`, max_pages: 1 })
  t.match(warm.status, { status: 'done' })
  const before = process.memoryUsage().rss

  const crawl = await runJob(app, user, 'webemail', { website: `${site.origin}/`, max_pages: 20 })
  assertNothingLeaks(t, site, crawl, 'webemail crawl')
  t.match(crawl.status, { status: 'done', records: 1 })
  t.ok(crawl.rows[0]!.emails.includes(CONTACT_EMAIL), 'the good pages were read around the bombs')

  for (const path of ['/gzip-bomb', '/brotli-bomb', '/big-page', '/redirect-inside']) {
    const alone = await runJob(app, user, 'webemail', { website: `${site.origin}${path}`, max_pages: 1 })
    assertNothingLeaks(t, site, alone, `webemail ${path}`)
    t.match(alone.status, { status: 'error', error: /larger than the|Refused to connect to an IP address/ }, `webemail ${path}: a clean job error`)
  }
  const tls = await runJob(app, user, 'webemail', { website: `${site.httpsOrigin}/contact`, max_pages: 1 })
  assertNothingLeaks(t, site, tls, 'webemail https')
  t.match(tls.status, { status: 'error', error: /TLS certificate not valid/ })
  const credential = await runJob(app, user, 'webemail', { website: `http://${URL_CREDENTIAL}@127.0.0.1:${site.port}/fail-with-credential`, max_pages: 1 })
  assertNothingLeaks(t, site, credential, 'webemail credential URL')

  // /nested and /phone-flood are extraction CPU cases (the worker pool's tests), not fetch ones.
  const urls = ['/gzip-bomb', '/deflate-bomb', '/brotli-bomb', '/big-page', '/big-page-chunked', '/redirect-inside', '/redirect-metadata', '/reset', '/contact']
    .map(path => `${site.origin}${path}`)
  const scrape = await runJob(app, user, 'websearch', { urls: [...urls, `${site.httpsOrigin}/contact`, `http://${URL_CREDENTIAL}@127.0.0.1:${site.port}/fail-with-credential`] })
  assertNothingLeaks(t, site, scrape, 'websearch urls')
  t.match(scrape.status, { status: 'done' })
  const byUrl = new Map(scrape.rows.map(row => [new URL(row.url).pathname + (row.url.startsWith('https') ? ' https' : ''), row]))
  for (const path of ['/gzip-bomb', '/deflate-bomb', '/brotli-bomb', '/big-page', '/big-page-chunked']) {
    t.match(byUrl.get(path), { text: null, error: /larger than the \d+-byte limit/ }, `websearch ${path}`)
  }
  t.match(byUrl.get('/redirect-inside'), { error: /Refused to connect/ })
  t.match(byUrl.get('/contact'), { error: null })
  t.match(byUrl.get('/contact https'), { error: /TLS certificate not valid/ })

  const products = await runJob(app, user, 'products', { url: site.origin, max_results: 10 })
  assertNothingLeaks(t, site, products, 'products')
  const bombStore = await runJob(app, user, 'products', { url: `${site.origin}/gzip-bomb`, max_results: 10 })
  assertNothingLeaks(t, site, bombStore, 'products from a bomb')

  const growth = process.memoryUsage().rss - before
  t.ok(growth < 150 * MB, `RSS grew ${Math.round(growth / MB)} MB over the hostile jobs`)
  t.same(site.inside.hits, [], 'the inside was never reached')
})

t.test('maps deep scan (maps -> webemail) on hostile websites: the listings stay, each scan fails alone', async t => {
  const site = await startHostileUpstream(t)
  const websites: Record<number, string> = { 1: `${site.origin}/`, 2: `${site.origin}/gzip-bomb`, 3: `${site.origin}/redirect-inside` }
  const up = await startUpstreams({ total: 3, website: i => websites[i] ?? null })
  t.teardown(() => up.close())
  const upstreamTargets = Object.values(up.urls).map(base => new URL(base).host)
  const app = await build(t, {
    env: { TOOLS_CONFIG: writeMapsConfig(t, { urls: up.urls }), ALLOW_PRIVATE_TARGETS: '0', SERPER_API_KEY: KEYS.serper },
    network: { allowedTargets: [`127.0.0.1:${site.port}`, ...upstreamTargets] },
  })
  const user = await signup(app)
  const outcome = await runJob(app, user, 'maps', { prompt: 'dentists in Austin TX', deep_scan: true })
  assertNothingLeaks(t, site, outcome, 'maps deep scan')
  t.match(outcome.status, { status: 'done', records: 3 })
  const [good, bomb, inward] = outcome.rows
  t.ok(good!.emails.includes(CONTACT_EMAIL), 'the crawlable site was scanned')
  t.type(bomb!.deep_scan_error, 'string')
  t.type(inward!.deep_scan_error, 'string')
  t.same(site.inside.hits, [])
})
