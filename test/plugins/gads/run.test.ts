// gads jobs through the kernel against a local stand-in for the Transparency
// Center's RPC paths (form-encoded f.req, JSON answers, page tokens), including
// a 429 and a captcha page that end the job blocked and refunded.
import t from 'tap'
import type { ServerResponse } from 'node:http'
import { jobHarness, PLUGINS, send, startServer, type RecordedRequest, type ToolEntry } from '../products/_harness.ts'
import { waitForEnd } from '../../helpers/jobs.ts'
import { creative, suggestionAdvertiser, suggestionDomain } from './fixtures.ts'

const gadsTool = (base: string, settings: Record<string, unknown> = {}): ToolEntry => ({ key: 'gads', plugin: `${PLUGINS}/gads`, enabled: true, upstream: { transparency: base }, settings })

const fReq = (req: RecordedRequest): any => JSON.parse(new URLSearchParams(req.body).get('f.req') ?? 'null')
const rpcJson = (res: ServerResponse, body: unknown) => send(res, 200, `)]}'\n${JSON.stringify(body)}`, 'application/json; charset=utf-8')

/** A small Transparency Center: two advertisers, one running (last shown yesterday), one stale; 5 creatives paged by 2. */
function transparencyCenter () {
  const running = Array.from({ length: 5 }, (_, i) => creative('AR111', `CR11${i}`, 'Acme Coffee Roasters LLC', { format: (i % 3) + 1, lastDaysAgo: i === 0 ? 1 : 30 + i, firstDaysAgo: 300 - i }))
  const stale = [creative('AR999', 'CR990', 'Old Brand Inc', { lastDaysAgo: 120 })]
  return (req: RecordedRequest, res: ServerResponse) => {
    if (req.method !== 'POST' || !/^\/anji\/_\/rpc\/SearchService\/(SearchSuggestions|SearchCreatives)$/.test(req.url.pathname)) return send(res, 404, 'no route')
    if (!/application\/x-www-form-urlencoded/.test(String(req.headers['content-type']))) return send(res, 400, 'form body expected')
    const q = fReq(req)
    if (req.url.pathname.endsWith('SearchSuggestions')) {
      const text = String(q[1]).toLowerCase()
      if (text.startsWith('acme')) return rpcJson(res, { 1: [suggestionAdvertiser('Acme Coffee Roasters LLC', 'AR111', 'US', 20, 30), suggestionAdvertiser('Acme Tools GmbH', 'AR222', 'DE', 4000, 5000), suggestionDomain('acmecoffee.test')] })
      if (text.startsWith('old brand')) return rpcJson(res, { 1: [suggestionAdvertiser('Old Brand Inc', 'AR999', 'GB', 1, 1)] })
      if (text.startsWith('bluefin')) return rpcJson(res, { 1: [suggestionDomain('bluefin.test')] })
      return rpcJson(res, {})
    }
    const filter = q[3]
    const regions: number[] = filter[8] ?? []
    let pool: any[] = []
    if (filter[13]) pool = filter[13][1][0] === 'AR111' ? running : filter[13][1][0] === 'AR999' ? stale : []
    else if (filter[12][1] === 'acmecoffee.test') pool = running
    else if (filter[12][1] === 'oldbrand.test') pool = stale
    else if (filter[12][1] === 'bluefin.test') pool = [creative('AR555', 'CR555', 'Bluefin Sushi', { lastDaysAgo: 0 })]
    // The stand-in serves Acme in the US only.
    if (regions.length && !regions.includes(2840)) pool = []
    const start = q[4] ? Number(String(q[4]).slice(4)) : 0
    const page = pool.slice(start, start + Math.min(q[2], 2))
    const end = start + page.length
    rpcJson(res, page.length ? { 1: page, ...(end < pool.length ? { 2: `page${end}` } : {}) } : {})
  }
}

t.test('by domain: creatives paged by token, count and country from the suggestion, running now', async t => {
  const tc = await startServer(t, transparencyCenter())
  const h = await jobHarness(t, [gadsTool(tc.base)])
  const { status, rows } = await h.run('gads', { domain: 'https://www.acmecoffee.test/menu' })
  t.match(status, { status: 'done', records: 1 })
  t.match(rows[0], {
    query: 'acmecoffee.test', source: 'domain', found: true, advertiser_id: 'AR111', advertiser_name: 'Acme Coffee Roasters LLC', advertiser_region: 'US',
    domain: 'acmecoffee.test', running_now: true, ad_count: 20, ad_count_range: { lower: 20, upper: 30 }, creatives_seen: 5, formats: { text: 2, image: 2, video: 1 },
    transparency_url: 'https://adstransparency.google.com/advertiser/AR111?region=anywhere',
  })
  t.equal(rows[0].last_shown, new Date(Date.now() - 86_400_000).toISOString().slice(0, 10))
  t.equal(rows[0].sample_creatives.length, 5)
  t.equal(rows[0].sample_creatives[0].creative_id, 'CR110', 'most recently shown first')
  const creativesCalls = tc.requests.filter(r => r.url.pathname.endsWith('SearchCreatives'))
  t.equal(creativesCalls.length, 3, 'three pages of two')
  t.same(creativesCalls.map(r => fReq(r)[4] ?? null), [null, 'page2', 'page4'])
  t.equal(tc.requests[0]!.url.searchParams.get('authuser'), '')
})

t.test('by name: only matching advertisers, per-region checks', async t => {
  const tc = await startServer(t, transparencyCenter())
  const h = await jobHarness(t, [gadsTool(tc.base)])
  const { status, rows } = await h.run('gads', { advertiser: 'Acme Coffee Roasters', regions: ['us', 'GB'], max_creatives: 3 })
  t.match(status, { status: 'done', records: 1 })
  t.match(rows[0], { source: 'name', advertiser_id: 'AR111', running_now: true, regions: ['US'], regions_checked: ['US', 'GB'], creatives_seen: 3 })
  t.notOk(tc.requests.some(r => r.url.pathname.endsWith('SearchCreatives') && JSON.stringify(fReq(r)).includes('AR222')), 'Acme Tools was not a match')
  const regionsAsked = tc.requests.filter(r => r.url.pathname.endsWith('SearchCreatives')).map(r => fReq(r)[3][8][0])
  t.ok(regionsAsked.includes(2840) && regionsAsked.includes(2826))
})

t.test('a stale advertiser is found but not running; an unknown one gives found=false', async t => {
  const tc = await startServer(t, transparencyCenter())
  const h = await jobHarness(t, [gadsTool(tc.base)])
  const stale = await h.run('gads', { advertiser: 'Old Brand' })
  t.match(stale.rows[0], { found: true, advertiser_id: 'AR999', running_now: false, ad_count: 1 })
  const none = await h.run('gads', { advertiser: 'Nobody Here', domain: 'nobody.test' })
  t.match(none.status, { status: 'done', records: 1 })
  t.match(none.rows[0], { found: false, running_now: false, ad_count: 0, advertiser_id: null, domain: 'nobody.test' })
  t.match(none.status.warning, /no advertiser/)
  const viaDomain = await h.run('gads', { advertiser: 'Bluefin' })
  t.match(viaDomain.rows[0], { found: true, source: 'domain', advertiser_id: 'AR555', domain: 'bluefin.test', running_now: true }, 'the suggested domain named like the business')
})

t.test('HTTP 429 and a captcha page end the job blocked and refunded', async t => {
  const limited = await startServer(t, (_req, res) => send(res, 429, 'Too Many Requests', 'text/plain'))
  const h = await jobHarness(t, [gadsTool(limited.base)])
  const a = await h.run('gads', { domain: 'acme.test' })
  t.match(a.status, { status: 'error', blocked: true, refunded: true })
  t.match(a.status.error, /429/)
  const captcha = await startServer(t, (_req, res) => send(res, 200, '<html><body><div id="captcha-form">Our systems have detected unusual traffic from your computer network.</div></body></html>'))
  const h2 = await jobHarness(t, [gadsTool(captcha.base)])
  const b = await h2.run('gads', { advertiser: 'Acme' })
  t.match(b.status, { status: 'error', blocked: true, refunded: true })
  t.match(b.status.error, /captcha/)
  t.equal((await h2.usage()).calls_today, 0)
})

t.test('input errors: nothing to look up, an unknown region', async t => {
  const h = await jobHarness(t, [gadsTool('http://127.0.0.1:1')])
  const a = await h.run('gads', {})
  t.equal(a.started, 400, 'nothing to look up: refused before any charge')
  t.match(a.status.detail, /params\.advertiser or params\.domain is required/)
  const b = await h.run('gads', { domain: 'acme.com', regions: ['XX'] })
  t.match(b.status, { status: 'error', refunded: false, error: /Unknown region/ })
})

t.test('a list of domains: a lookup each, rows name their domain, max_results above 20 clamped, one charge', async t => {
  const tc = await startServer(t, transparencyCenter())
  const h = await jobHarness(t, [gadsTool(tc.base)])
  const res = await h.app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': h.user.apiKey }, payload: { tool: 'gads', params: { domain: ['acmecoffee.test', 'https://www.oldbrand.test/'], max_results: 50 } } })
  t.equal(res.statusCode, 202, res.body)
  const id = res.json().job_id
  const job = await h.app.services.db.job.findUniqueOrThrow({ where: { id } })
  t.equal(JSON.parse(job.input).max_results, 20, 'clamped to the tool\'s own maximum, not refused')
  const status = await waitForEnd(h.app, h.user.apiKey, id, 30_000)
  t.match(status, { status: 'done', records: 2 })
  const rows = (await h.app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': h.user.apiKey } })).json().results
  t.same(rows.map((r: any) => [r.query, r.found, r.advertiser_id, r.running_now]), [['acmecoffee.test', true, 'AR111', true], ['oldbrand.test', true, 'AR999', false]])
  t.equal((await h.usage()).calls_today, 1)
})
