// adleads jobs through the kernel: the real maps plugin (plugins/maps, or a
// test-only stand-in while it does not exist) against a Serper /places
// stand-in, and the real fbads and gads plugins against Ad Library and
// Transparency Center stand-ins, all on 127.0.0.1.
import t from 'tap'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { ServerResponse } from 'node:http'
import { jobHarness, PLUGINS, send, sendJson, startServer, type RecordedRequest, type ToolEntry } from '../products/_harness.ts'
import { creative, suggestionAdvertiser } from '../gads/fixtures.ts'

// ADLEADS_MAPS_STANDIN=1 forces the stand-in (to check the fallback path itself).
const REAL_MAPS = process.env.ADLEADS_MAPS_STANDIN !== '1' && existsSync(resolve('plugins/maps/index.ts'))
const MAPS_PLUGIN = REAL_MAPS ? `${PLUGINS}/maps` : resolve('test/plugins/adleads/maps-standin')
t.comment(REAL_MAPS ? 'adleads tests use the real maps plugin (plugins/maps)' : 'adleads tests use the test-only maps stand-in (plugins/maps absent, or ADLEADS_MAPS_STANDIN=1)')

const TOKEN = 'EAAB-adleads-token'
const SERPER_KEY = 'serper-test-key'

const PLACES = [
  { title: 'Bright Smile Dental', category: 'Dentist', address: '1 Congress Ave, Austin, TX', phoneNumber: '(512) 555-0101', website: 'https://www.brightsmile.test/', rating: 4.8, ratingCount: 210, cid: '111' },
  { title: 'Austin Family Dentistry', category: 'Dentist', address: '2 Lamar Blvd, Austin, TX', phoneNumber: '(512) 555-0102', website: 'http://austinfamily.test', rating: 4.5, ratingCount: 80, cid: '222' },
  { title: 'Lone Star Orthodontics', category: 'Orthodontist', address: '3 6th St, Austin, TX', phoneNumber: '(512) 555-0103', website: 'https://www.facebook.com/lonestarortho', rating: 4.9, ratingCount: 35, cid: '333' },
]

function serper (req: RecordedRequest, res: ServerResponse) {
  if (req.method !== 'POST' || !['/places', '/maps'].includes(req.url.pathname)) return sendJson(res, 404, { message: 'no route' })
  if (req.headers['x-api-key'] !== SERPER_KEY) return sendJson(res, 403, { message: 'Unauthorized' })
  const body = JSON.parse(req.body)
  sendJson(res, 200, { searchParameters: { q: body.q }, places: body.page === 1 ? PLACES : [] })
}

const fbAd = (id: string, pageId: string, pageName: string, caption: string) => ({
  id, page_id: pageId, page_name: pageName, ad_creative_bodies: ['Book now'], ad_creative_link_captions: [caption],
  ad_delivery_start_time: '2026-01-01T00:00:00+0000', ad_snapshot_url: `https://www.facebook.com/ads/archive/render_ad/?id=${id}&access_token=${TOKEN}`,
})

function adLibrary (req: RecordedRequest, res: ServerResponse) {
  if (req.url.pathname !== '/v19.0/ads_archive') return sendJson(res, 404, { error: { message: 'Unknown path', code: 803 } })
  const terms = req.url.searchParams.get('search_terms')
  const data = terms === 'Bright Smile Dental'
    ? [fbAd('1', '501', 'Bright Smile Dental', 'brightsmile.test'), fbAd('2', '501', 'Bright Smile Dental', 'brightsmile.test'), fbAd('3', '900', 'Smile Toothpaste Co', 'toothpaste.test')]
    : terms === 'Austin Family Dentistry'
      ? [fbAd('4', '502', 'AFD Austin', 'austinfamily.test'), fbAd('5', '901', 'Family Dentistry Supplies', 'supplies.test')]
      : []
  sendJson(res, 200, { data, paging: { cursors: { after: 'x' } } })
}

function transparency (req: RecordedRequest, res: ServerResponse) {
  const q = JSON.parse(new URLSearchParams(req.body).get('f.req') ?? '{}')
  if (req.url.pathname.endsWith('SearchSuggestions')) {
    const text = String(q[1])
    if (text === 'Bright Smile Dental PLLC') return sendJson(res, 200, { 1: [suggestionAdvertiser('Bright Smile Dental PLLC', 'AR100', 'US', 12, 15)] })
    return sendJson(res, 200, {})
  }
  const domain = q[3]?.[12]?.[1]
  const list = domain === 'brightsmile.test' ? [creative('AR100', 'CR1', 'Bright Smile Dental PLLC', { lastDaysAgo: 0 })]
    : domain === 'austinfamily.test' ? [creative('AR200', 'CR2', 'Austin Family Dentistry', { lastDaysAgo: 90 })]
      : []
  sendJson(res, 200, list.length ? { 1: list } : {})
}

async function upstreams (t: Parameters<typeof startServer>[0], overrides: { graph?: Parameters<typeof startServer>[1], transparency?: Parameters<typeof startServer>[1] } = {}) {
  const [maps, graph, tc] = await Promise.all([startServer(t, serper), startServer(t, overrides.graph ?? adLibrary), startServer(t, overrides.transparency ?? transparency)])
  const tools = (omit: string[] = []): ToolEntry[] => ([
    { key: 'adleads', plugin: `${PLUGINS}/adleads`, enabled: true, settings: { concurrency: 2 } },
    { key: 'maps', plugin: MAPS_PLUGIN, enabled: true, upstream: { serper: maps.base }, credentials: { serper: 'SERPER_API_KEY' }, settings: { sources: ['serper'], max_pages_per_source: 1 } },
    { key: 'fbads', plugin: `${PLUGINS}/fbads`, enabled: true, upstream: { graph: graph.base }, credentials: { meta: 'META_ACCESS_TOKEN' } },
    { key: 'gads', plugin: `${PLUGINS}/gads`, enabled: true, upstream: { transparency: tc.base } },
    // The real maps plugin uses webemail (deep_scan), so boot wants it enabled beside maps.
    ...(REAL_MAPS ? [{ key: 'webemail', plugin: `${PLUGINS}/webemail`, enabled: true }] : []),
  ] as ToolEntry[]).filter(e => !omit.includes(e.key))
  return { maps, graph, tc, tools }
}

t.test('niche + city: one row per business with runs_meta_ads and runs_google_ads', async t => {
  const u = await upstreams(t)
  const h = await jobHarness(t, u.tools(), { META_ACCESS_TOKEN: TOKEN, SERPER_API_KEY: SERPER_KEY })
  const { status, rows } = await h.run('adleads', { niche: 'dentists', city: 'Austin TX', max_results: 10 }, 60_000)
  t.match(status, { status: 'done', records: 3, summary: { businesses: 3, runs_meta_ads: 2, runs_google_ads: 1 } })
  t.same(rows.map(r => r.name), PLACES.map(p => p.title), 'listing order kept')
  t.match(rows[0], {
    name: 'Bright Smile Dental', category: 'Dentist', website: 'https://www.brightsmile.test/', domain: 'brightsmile.test', rating: 4.8, review_count: 210,
    runs_meta_ads: true, meta_ads_count: 2, meta_page_ids: ['501'], meta_page_name: 'Bright Smile Dental', meta_reason: null,
    runs_google_ads: true, google_ads_count: 12, google_advertiser_id: 'AR100', google_matched_by: 'domain', google_reason: null,
  })
  t.match(rows[1], { domain: 'austinfamily.test', runs_meta_ads: true, meta_ads_count: 1, meta_page_ids: ['502'], runs_google_ads: false, google_advertiser_id: 'AR200' }, 'Meta matched by the linked domain; Google ads stale')
  t.match(rows[2], { domain: null, runs_meta_ads: false, meta_ads_count: 0, runs_google_ads: false, google_ads_count: 0, google_matched_by: 'name' }, 'a Facebook page is not the business\'s own site')
  const mapsCall = u.maps.requests.find(r => r.method === 'POST')!
  t.match(JSON.parse(mapsCall.body).q, /^dentists in Austin TX/)
  const terms = u.graph.requests.map(r => r.url.searchParams.get('search_terms')).sort()
  t.same(terms, PLACES.map(p => p.title).sort())
  t.ok(u.graph.requests.every(r => r.url.searchParams.get('ad_active_status') === 'ACTIVE' && r.url.searchParams.get('ad_reached_countries') === '["US"]'))
  t.notOk(JSON.stringify(rows).includes(TOKEN))
  t.equal((await h.usage()).calls_today, 1, 'one call, however many nested runs')
})

t.test('without META_ACCESS_TOKEN the Meta check is null with the reason, asked once; 429 from Google stops its checks', async t => {
  const u = await upstreams(t, { transparency: (_req, res) => send(res, 429, 'Too Many Requests', 'text/plain') })
  const h = await jobHarness(t, u.tools(), { SERPER_API_KEY: SERPER_KEY, META_ACCESS_TOKEN: undefined })
  const { status, rows } = await h.run('adleads', { query: 'dentists in Austin TX', max_results: 10 }, 60_000)
  t.match(status, { status: 'done', records: 3 })
  t.equal(u.graph.requests.length, 0, 'no Ad Library request without a token')
  t.ok(rows.every(r => r.runs_meta_ads === null && /META_ACCESS_TOKEN/.test(r.meta_reason)), 'every row says why')
  t.ok(rows.every(r => r.runs_google_ads === null && typeof r.google_reason === 'string'))
  t.ok(rows.some(r => /refused/.test(r.google_reason)))
  t.ok(u.tc.requests.length <= 2, `the refusing source was not asked for every business (${u.tc.requests.length} requests)`)
  t.match(status.warning, /META_ACCESS_TOKEN/)
})

t.test('enabled without a tool it uses (maps, fbads, gads), adleads stops the boot naming both', async t => {
  const u = await upstreams(t)
  for (const missing of ['maps', 'fbads', 'gads']) {
    await t.rejects(jobHarness(t, u.tools([missing]), { META_ACCESS_TOKEN: TOKEN, SERPER_API_KEY: SERPER_KEY }),
      { name: 'ConfigError', message: new RegExp(`"adleads", which uses the tool "${missing}", but "${missing}" is not enabled`) }, missing)
  }
})

t.test('neither niche + city nor query is a 400 naming both, before any charge', async t => {
  const u = await upstreams(t)
  const h = await jobHarness(t, u.tools(), { SERPER_API_KEY: SERPER_KEY })
  const { status, started } = await h.run('adleads', { niche: 'dentists' })
  t.equal(started, 400)
  t.match(status.detail, /params\.query or params\.niche with params\.city is required/)
  t.equal((await h.usage()).calls_today, 0)
})
