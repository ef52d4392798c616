// fbads jobs through the kernel against a local stand-in for
// graph.facebook.com/{version}/ads_archive: paging.next / cursors.after, a
// rate-limit error, HTTP 429, a rejected token, and no token at all.
import t from 'tap'
import { jobHarness, PLUGINS, sendJson, startServer, type RecordedRequest, type ToolEntry } from '../products/_harness.ts'

const TOKEN = 'EAAB-test-token-1234567890'
const fbadsTool = (graph: string, settings: Record<string, unknown> = {}): ToolEntry => ({
  key: 'fbads', plugin: `${PLUGINS}/fbads`, enabled: true, upstream: { graph }, credentials: { meta: 'META_ACCESS_TOKEN' }, settings,
})

const ad = (n: number) => ({
  id: String(9000 + n), page_id: '77', page_name: 'Acme Coffee', ad_creation_time: '2026-01-01T10:00:00+0000',
  ad_creative_bodies: [`Fresh roast #${n}`], ad_creative_link_titles: ['Acme Coffee'], ad_creative_link_captions: ['acmecoffee.test'],
  ad_delivery_start_time: '2026-01-02T00:00:00+0000', publisher_platforms: ['facebook', 'instagram'], languages: ['en'],
  ad_snapshot_url: `https://www.facebook.com/ads/archive/render_ad/?id=${9000 + n}&access_token=${TOKEN}`,
})

/** Pages of `per` ads from `total`, linked by paging.next with the cursor "p<N>". */
function adLibrary (total: number) {
  return (req: RecordedRequest, res: Parameters<Parameters<typeof startServer>[1]>[1]) => {
    if (req.url.pathname !== '/v19.0/ads_archive') return sendJson(res, 404, { error: { message: 'Unknown path', code: 803 } })
    if (req.url.searchParams.get('access_token') !== TOKEN) return sendJson(res, 400, { error: { message: 'Invalid OAuth access token.', code: 190 } })
    const limit = Number(req.url.searchParams.get('limit'))
    const after = req.url.searchParams.get('after')
    const start = after ? Number(after.slice(1)) : 0
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_, i) => ad(start + i + 1))
    const end = start + data.length
    const next = new URL(`http://${req.headers.host}/v19.0/ads_archive`)
    next.searchParams.set('access_token', TOKEN)
    next.searchParams.set('after', `p${end}`)
    sendJson(res, 200, { data, paging: end < total ? { cursors: { before: `p${start}`, after: `p${end}` }, next: next.toString() } : { cursors: { before: `p${start}`, after: `p${end}` } } })
  }
}

t.test('search by terms, paging with the after cursor up to max_results; the token stays out of rows', async t => {
  const graph = await startServer(t, adLibrary(7))
  const h = await jobHarness(t, [fbadsTool(graph.base, { page_size: 3 })], { META_ACCESS_TOKEN: TOKEN })
  const { status, rows } = await h.run('fbads', { search_terms: 'acme coffee', ad_reached_countries: ['us', 'CA'], ad_active_status: 'ACTIVE', max_results: 5 })
  t.match(status, { status: 'done', records: 5 })
  t.same(rows.map(r => r.ad_id), ['9001', '9002', '9003', '9004', '9005'])
  t.match(rows[0], { page_name: 'Acme Coffee', page_id: '77', creative_bodies: ['Fresh roast #1'], link_captions: ['acmecoffee.test'], active: true, platforms: ['facebook', 'instagram'] })
  t.notOk(JSON.stringify(rows).includes(TOKEN), 'no access token in any row')
  t.equal(graph.requests.length, 2)
  const q = graph.requests[0]!.url.searchParams
  t.equal(q.get('search_terms'), 'acme coffee')
  t.equal(q.get('ad_reached_countries'), '["US","CA"]')
  t.equal(q.get('ad_active_status'), 'ACTIVE')
  t.equal(q.get('ad_type'), 'ALL')
  t.match(q.get('fields'), /ad_creative_bodies/)
  t.equal(q.get('limit'), '3')
  t.equal(graph.requests[1]!.url.searchParams.get('after'), 'p3')
  t.equal(graph.requests[1]!.url.searchParams.get('limit'), '2', 'the last page asks only for what is left')
})

t.test('search by page ids ends on the page without paging.next', async t => {
  const graph = await startServer(t, adLibrary(4))
  const h = await jobHarness(t, [fbadsTool(graph.base, { page_size: 3 })], { META_ACCESS_TOKEN: TOKEN })
  const { status, rows } = await h.run('fbads', { search_page_ids: ['77'], max_results: 50 })
  t.match(status, { status: 'done', records: 4 })
  t.equal(rows.length, 4)
  t.equal(graph.requests[0]!.url.searchParams.get('search_page_ids'), '[77]')
  t.equal(graph.requests[0]!.url.searchParams.get('search_terms'), null)
  t.equal(graph.requests.length, 2)
})

t.test('without META_ACCESS_TOKEN the job fails fast naming the variable, refunded, no request sent', async t => {
  const graph = await startServer(t, adLibrary(3))
  const h = await jobHarness(t, [fbadsTool(graph.base)], { META_ACCESS_TOKEN: undefined })
  const { status } = await h.run('fbads', { search_terms: 'acme' })
  t.match(status, { status: 'error', refunded: true, blocked: false })
  t.match(status.error, /META_ACCESS_TOKEN/)
  t.equal(graph.requests.length, 0)
  t.equal((await h.usage()).calls_today, 0)
})

t.test('rate-limit error code 613 and HTTP 429 end the job blocked and refunded', async t => {
  const limited = await startServer(t, (_req, res) => sendJson(res, 400, { error: { message: 'Calls to this api have exceeded the rate limit.', type: 'OAuthException', code: 613 } }))
  const h = await jobHarness(t, [fbadsTool(limited.base)], { META_ACCESS_TOKEN: TOKEN })
  const a = await h.run('fbads', { search_terms: 'acme' })
  t.match(a.status, { status: 'error', blocked: true, refunded: true })
  t.match(a.status.error, /rate/)

  const tooMany = await startServer(t, (_req, res) => sendJson(res, 429, { error: { message: 'Too many calls', code: 80004 } }))
  const h2 = await jobHarness(t, [fbadsTool(tooMany.base)], { META_ACCESS_TOKEN: TOKEN })
  const b = await h2.run('fbads', { search_terms: 'acme' })
  t.match(b.status, { status: 'error', blocked: true, refunded: true })
  t.notOk(JSON.stringify(b.status).includes(TOKEN))
})

t.test('a rejected token is an upstream error naming the variable; nothing leaks the token', async t => {
  const graph = await startServer(t, adLibrary(3))
  const h = await jobHarness(t, [fbadsTool(graph.base)], { META_ACCESS_TOKEN: 'wrong-token-value' })
  const { status } = await h.run('fbads', { search_terms: 'acme' })
  t.match(status, { status: 'error', refunded: true, blocked: false })
  t.match(status.error, /rejected the access token.*META_ACCESS_TOKEN/)
  t.notOk(status.error.includes('wrong-token-value'))
})

t.test('an unreachable Graph host: the error text does not carry the token', async t => {
  const h = await jobHarness(t, [fbadsTool('http://127.0.0.1:1')], { META_ACCESS_TOKEN: TOKEN })
  const { status } = await h.run('fbads', { search_terms: 'acme' })
  t.match(status, { status: 'error', refunded: true })
  t.notOk(status.error.includes(TOKEN), status.error)
})

t.test('neither search_terms nor search_page_ids is a 400 naming both, before any charge', async t => {
  const h = await jobHarness(t, [fbadsTool('http://127.0.0.1:1')], { META_ACCESS_TOKEN: TOKEN })
  const { status, started } = await h.run('fbads', { ad_reached_countries: ['US'] })
  t.equal(started, 400)
  t.match(status.detail, /params\.search_terms or params\.search_page_ids is required/)
  t.equal((await h.usage()).calls_today, 0)
})
