// fb jobs through the kernel against a local stand-in for www.facebook.com and
// graph.facebook.com serving the real paths: /<vanity>, /profile.php?id=,
// redirects to the vanity URL (absolute, to the real host: the tool must stay
// on its configured base), the login-wall and checkpoint redirects, the
// cookie-consent page, a 404; and /{version}/{page}?fields=… with the real
// 2019 Graph answer, a permission refusal and the token check.
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { readCapture } from '../../extract/captures.ts'
import { jobHarness, PLUGINS, send, sendJson, startServer, withFreshAccount, type RecordedRequest, type ToolEntry } from '../products/_harness.ts'
import { CONSENT_PAGE, modernPageHtml } from './pages.ts'

const TOKEN = 'EAAB-fb-test-token-0987654321'
const ACME = { name: 'Acme Roasters', vanity: 'AcmeRoasters', id: '104512345678901', followers: '12K', likes: '11,874' }

const fbTool = (www: string, graph = 'http://127.0.0.1:1', settings: Record<string, unknown> = {}): ToolEntry => ({
  key: 'fb', plugin: `${PLUGINS}/fb`, enabled: true, upstream: { www, graph }, credentials: { meta: 'META_ACCESS_TOKEN' }, settings,
})

/** www.facebook.com as a logged-out visitor meets it (/Nintendo: the capture `nintendo()` gives, once a test read it). */
function facebookSite (nintendo: () => string | null) {
  return (req: RecordedRequest, res: Parameters<Parameters<typeof startServer>[1]>[1]) => {
    const path = req.url.pathname.replace(/\/+$/, '')
    const id = req.url.searchParams.get('id')
    const nintendoPage = nintendo()
    if (path === '/Nintendo' && nintendoPage !== null) return send(res, 200, nintendoPage)
    if (path === '/AcmeRoasters' || path === '/facebookapp') return send(res, 200, modernPageHtml(ACME))
    // A numeric id is sent on to the vanity URL, on the real host.
    if (path === '/profile.php' && id === '119240841493711') return send(res, 302, '', 'text/html', { location: 'https://www.facebook.com/Nintendo/' })
    if (path === '/profile.php' && id === '104512345678901') return send(res, 301, '', 'text/html', { location: 'https://m.facebook.com/AcmeRoasters' })
    if (path === '/walled') return send(res, 302, '', 'text/html', { location: 'https://www.facebook.com/login/?next=https%3A%2F%2Fwww.facebook.com%2Fwalled' })
    if (path === '/checkpointed') return send(res, 302, '', 'text/html', { location: '/checkpoint/?next' })
    if (path === '/consented') return send(res, 200, CONSENT_PAGE)
    if (path === '/offsite') return send(res, 302, '', 'text/html', { location: 'https://elsewhere.example/' })
    if (path === '/broken') return send(res, 503, 'unavailable')
    return send(res, 404, '<html><head><title>Page not found | Facebook</title></head><body>This content isn\'t available right now</body></html>')
  }
}

/** graph.facebook.com/{version}/{page}: the real 2019 answer for facebookapp, a permission refusal for "private". */
function graphApi (answer: string) {
  return (req: RecordedRequest, res: Parameters<Parameters<typeof startServer>[1]>[1]) => {
    if (req.url.searchParams.get('access_token') !== TOKEN) return sendJson(res, 400, { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } })
    if (req.url.pathname === '/v19.0/facebookapp') return send(res, 200, answer, 'application/json')
    if (req.url.pathname === '/v19.0/AcmeRoasters') return sendJson(res, 400, { error: { message: '(#10) This endpoint requires the \'pages_read_engagement\' permission or the \'Page Public Metadata Access\' feature.', type: 'OAuthException', code: 10 } })
    return sendJson(res, 404, { error: { message: 'Some of the aliases you requested do not exist', code: 803 } })
  }
}

// The tests without a Graph token share one stand-in and one app, each under its own account
// and seeing only the requests made since it began (an app per test was most of their time).
// They are the parent test's, not the file's root (a top-level app would be shared with the other
// files of a test group, test/groups/).
t.test('fb jobs through the kernel, one app for the tests without a Graph token', async t => {
  let nintendoCapture: string | null = null
  const sharedSite = await startServer(t, facebookSite(() => nintendoCapture))
  const withoutToken = await jobHarness(t, [fbTool(sharedSite.base)], { META_ACCESS_TOKEN: undefined })
  /** The shared stand-in as one test sees it: the requests from now on. */
  function siteSinceNow () {
    const from = sharedSite.requests.length
    return { base: sharedSite.base, get requests () { return sharedSite.requests.slice(from) } }
  }

  t.test('the public page by vanity name, by URL of another host and by id (redirects followed on the configured base)', async t => {
    nintendoCapture = readCapture(t, 'social/facebook_m_page_posts_logged_out_2021.html')
    if (nintendoCapture === null) return
    const site = siteSinceNow()
    const h = await withFreshAccount(withoutToken)
    const { status, rows } = await h.run('fb', { page: ['Nintendo', 'https://m.facebook.com/AcmeRoasters/', '119240841493711', 'https://www.facebook.com/profile.php?id=104512345678901'] })
    t.match(status, { status: 'done', records: 4, blocked: false })
    t.same(rows.map(r => r.input_url), ['Nintendo', 'https://m.facebook.com/AcmeRoasters/', '119240841493711', 'https://www.facebook.com/profile.php?id=104512345678901'])
    t.match(rows[0], { found: true, source: 'html', page_id: '119240841493711', name: 'Nintendo', likes: 5411563, verified: true, website: 'https://www.nintendo.com/', error: null })
    t.match(rows[1], { found: true, source: 'html', page_id: '104512345678901', email: 'hello@acmeroasters.example', phone: '+1 503-555-0142', followers: 12000 })
    t.match(rows[2], { found: true, name: 'Nintendo', page_id: '119240841493711' }, 'the id redirected to https://www.facebook.com/Nintendo/, read on the stand-in')
    t.match(rows[3], { found: true, name: 'Acme Roasters' }, 'a redirect to m.facebook.com is read on the configured base too')
    t.ok(site.requests.every(r => r.headers['accept-language'] === 'en-US,en;q=0.9'), 'counts are asked for in English')
    t.ok(site.requests.some(r => r.path === '/Nintendo/'), 'the redirect target was asked of the stand-in')
  })

  t.test('a login-wall redirect, a checkpoint and the cookie-consent page end the job blocked and refunded', async t => {
    const site = siteSinceNow()
    const h = await withFreshAccount(withoutToken)
    for (const [page, words] of [['walled', /login wall/], ['checkpointed', /checkpoint/], ['consented', /cookie-consent/]] as const) {
      const { status } = await h.run('fb', { page })
      t.match(status, { status: 'error', blocked: true, refunded: true }, page)
      t.match(status.error, words, page)
    }
    t.equal((await h.usage()).calls_today, 0, 'every blocked call was given back')
    t.notOk(site.requests.some(r => r.path.startsWith('/login')), 'the login page itself is never fetched')
  })

  t.test('a missing page is a row saying so; a failing one is its row\'s error; another site is skipped with a warning', async t => {
    const site = siteSinceNow()
    const h = await withFreshAccount(withoutToken)
    const { status, rows } = await h.run('fb', { page: ['nosuchpage123', 'https://example.com/AcmeRoasters', 'broken', 'offsite', 'AcmeRoasters'] })
    t.match(status, { status: 'done', records: 4 })
    t.match(status.warning, /not a Facebook page URL, name or id/)
    t.match(rows[0], { input_url: 'nosuchpage123', found: false, source: null, error: /^not found/ })
    t.match(rows[1], { input_url: 'broken', found: false, error: /HTTP 503/ })
    t.match(rows[2], { input_url: 'offsite', found: false, error: /off Facebook/ })
    t.match(rows[3], { input_url: 'AcmeRoasters', found: true })
    t.notOk(site.requests.some(r => r.path.includes('elsewhere')))

    const none = await h.run('fb', { page: 'https://example.com/x' })
    t.match(none.status, { status: 'error', refunded: false })
    const empty = await h.run('fb', { page: '  ' })
    t.equal(empty.started, 400, 'a blank page is refused before any charge')
  })

  t.test('with META_ACCESS_TOKEN: the Graph fields first, the HTML for what they lack, the HTML alone when the API refuses', async t => {
    const answer = readCapture(t, 'social/facebook_graph_page_default_fields_2019.json')
    if (answer === null) return
    const site = await startServer(t, facebookSite(() => null))
    const graph = await startServer(t, graphApi(answer))
    const h = await jobHarness(t, [fbTool(site.base, graph.base)], { META_ACCESS_TOKEN: TOKEN })
    const { status, rows } = await h.run('fb', { page: ['facebookapp', 'AcmeRoasters'] })
    t.match(status, { status: 'done', records: 2 })
    t.match(rows[0], {
      source: 'graph+html', page_id: '20531316728', name: 'Facebook', likes: 214507731, category: '网站', website: 'http://www.facebook.com',
      followers: 12000, email: 'hello@acmeroasters.example', // only the HTML had these
    }, 'the Graph values win; the page fills the gaps')
    t.match(rows[1], { source: 'html', name: 'Acme Roasters' }, 'a permission refusal falls back to the page')
    t.match(status.warning, /Graph API was not used for every page .*Page Public Metadata Access/)
    const q = graph.requests[0]!.url.searchParams
    t.match(q.get('fields'), /fan_count/)
    t.notOk(JSON.stringify({ status, rows }).includes(TOKEN), 'the token is in no row, warning or error')
  })

  t.test('the same job through tool-run and the agent endpoint gives the same rows', async t => {
    const h = await withFreshAccount(withoutToken)
    const rest = await h.run('fb', { page: ['AcmeRoasters', 'nosuchpage123'] })
    t.equal(rest.status.status, 'done')
    await h.app.listen({ port: 0, host: '127.0.0.1' })
    const address = h.app.server.address() as { port: number }
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${address.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${h.user.apiKey}` } } })
    const client = new Client({ name: 'fb-test', version: '0.0.0' })
    await client.connect(transport)
    t.teardown(() => client.close())
    await client.listTools()
    const result = await client.callTool({ name: 'socialA_page_scrape', arguments: { page: ['AcmeRoasters', 'nosuchpage123'] } }) as CallToolResult
    t.notOk(result.isError)
    const content = result.structuredContent as Record<string, any>
    t.match(content, { tool: 'fb', status: 'done', records: 2 })
    t.same(content.results, rest.rows)
  })
})
