// Each source against its local stand-in, through the kernel: real paths,
// keys, paging, the configured order and fall-through.
import t from 'tap'
import { signup } from '../../helpers/build.ts'
import { ALL_KEYS, buildMapsApp, runMaps } from '../../fixtures/maps/app.ts'
import { business, KEYS, startUpstreams } from '../../fixtures/maps/upstreams.ts'

t.test('Serper first: POST /places with X-API-KEY, paged by `page` up to max_results', async t => {
  const up = await startUpstreams({ total: 25 })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: ALL_KEYS })
  const user = await signup(app)
  const { status, rows } = await runMaps(app, user.apiKey, { prompt: 'Find me dentists in Austin TX', max_results: 25 })
  t.match(status, { status: 'done', records: 25 })
  t.same(up.serper.hits.map(h => JSON.parse(h.body).page), [1, 2, 3])
  t.ok(up.serper.hits.every(h => h.path === '/places' && h.headers['x-api-key'] === KEYS.serper))
  t.equal(JSON.parse(up.serper.hits[0]!.body).q, 'dentists in Austin TX')
  t.equal(up.serpapi.hits.length + up.places.hits.length + up.nominatim.hits.length + up.overpass.hits.length, 0, 'later sources untouched')
  t.same(rows[0], {
    query: 'Find me dentists in Austin TX', name: 'Austin Dental 1', category: 'Dentist', address: '1 Congress Ave, Austin, TX 78701', phone: '(512) 555-0101', website: 'https://biz-1.example',
    rating: 4.1, review_count: 10, latitude: business(1, {}).lat, longitude: business(1, {}).lng, source_id: 'cid-1', source: 'serper',
  })
  t.same(rows.map(r => r.name), Array.from({ length: 25 }, (_, i) => `Austin Dental ${i + 1}`))
})

t.test('max_results stops paging early; the SerpApi key stays out of errors and rows', async t => {
  const up = await startUpstreams({ total: 100 })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: { SERPAPI_API_KEY: KEYS.serpapi } })
  const user = await signup(app)
  const { status, rows } = await runMaps(app, user.apiKey, { query: 'dentists in Austin TX', max_results: 30, country: 'us', language: 'en' })
  t.match(status, { status: 'done', records: 30 })
  t.same(up.serpapi.hits.map(h => h.query.get('start')), [null, '20'], 'start=0 is implied, then 20')
  const q = up.serpapi.hits[0]!.query
  t.same([q.get('engine'), q.get('type'), q.get('q'), q.get('gl'), q.get('hl'), q.get('api_key')], ['google_maps', 'search', 'dentists in Austin TX', 'us', 'en', KEYS.serpapi])
  t.match(rows[0], { name: 'Austin Dental 1', source_id: 'place-1', source: 'serpapi', review_count: 10, phone: '(512) 555-0101' })
  t.equal(rows.at(-1)!.name, 'Austin Dental 30')
  t.equal(up.serper.hits.length, 0, 'no Serper key: skipped without a request')
})

t.test('a failing source (5xx) falls through to the next; the answer says which', async t => {
  const up = await startUpstreams({ total: 5, fail: { serper: 503 } })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: ALL_KEYS })
  const user = await signup(app)
  const { id, status, rows } = await runMaps(app, user.apiKey, { prompt: 'dentists in Austin TX' })
  t.match(status, { status: 'done', records: 5 })
  t.ok(rows.every(r => r.source === 'serpapi'))
  t.equal(up.serper.hits.length, 1)
  t.match(status.warning, /serper/)
  const job = await app.services.db.job.findUniqueOrThrow({ where: { id } })
  t.match(JSON.parse(job.summary!), { source: 'serpapi', what: 'dentists', where: 'Austin TX', sources_tried: [{ source: 'serper', outcome: /failed.*503/ }, { source: 'serpapi', outcome: /answered/ }] })
})

t.test('Google Places legacy text search: next_page_token is retried until valid, up to 60', async t => {
  const up = await startUpstreams({ total: 45, placesTokenDelayMs: 300 })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: { GOOGLE_PLACES_API_KEY: KEYS.places }, settings: { google_places_api: 'legacy', places_page_delay_ms: 200, places_details: false } })
  const user = await signup(app)
  const { status, rows } = await runMaps(app, user.apiKey, { prompt: 'dentists in Austin TX', max_results: 45, language: 'en' })
  t.match(status, { status: 'done', records: 45 })
  const searches = up.places.hits.filter(h => h.path === '/maps/api/place/textsearch/json')
  t.equal(searches[0]!.query.get('query'), 'dentists in Austin TX')
  t.equal(searches[0]!.query.get('key'), KEYS.places)
  t.equal(searches[0]!.query.get('language'), 'en')
  const pageTokens = searches.filter(h => h.query.has('pagetoken')).map(h => h.query.get('pagetoken')!.split('-').slice(0, 2).join('-'))
  t.same(pageTokens, ['token-1', 'token-1', 'token-2', 'token-2'], 'each token is asked for too early once (INVALID_REQUEST), then again')
  t.equal(up.places.hits.filter(h => h.path === '/maps/api/place/details/json').length, 0, 'details off')
  t.match(rows[44], { name: 'Austin Dental 45', category: 'Dentist', source_id: 'gp-45', phone: null, website: null, source: 'google_places' })
})

t.test('Google Places legacy: Place Details adds phone and website', async t => {
  const up = await startUpstreams({ total: 3 })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: { GOOGLE_PLACES_API_KEY: KEYS.places }, settings: { google_places_api: 'legacy' } })
  const user = await signup(app)
  const { status, rows } = await runMaps(app, user.apiKey, { prompt: 'dentists in Austin TX' })
  t.match(status, { status: 'done', records: 3 })
  const details = up.places.hits.filter(h => h.path === '/maps/api/place/details/json')
  t.same(details.map(h => h.query.get('place_id')).sort(), ['gp-1', 'gp-2', 'gp-3'])
  t.match(details[0]!.query.get('fields'), /website/)
  t.match(rows[2], { name: 'Austin Dental 3', phone: '(512) 555-0103', website: 'https://biz-3.example', rating: 4.3, review_count: 30 })
})

t.test('Google Places (New) places:searchText with a field mask and pageToken', async t => {
  const up = await startUpstreams({ total: 25 })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: { GOOGLE_PLACES_API_KEY: KEYS.places } })
  const user = await signup(app)
  const { status, rows } = await runMaps(app, user.apiKey, { query: 'dentists', location: 'Austin, TX', country: 'us', max_results: 25 })
  t.match(status, { status: 'done', records: 25 })
  const bodies = up.places.hits.map(h => JSON.parse(h.body))
  t.same(bodies.map(b => b.pageToken ?? null), [null, 'p1'])
  t.match(bodies[0], { textQuery: 'dentists in Austin, TX', regionCode: 'US', pageSize: 20 })
  t.match(rows[0], { name: 'Austin Dental 1', source_id: 'gpn-1', category: 'Dentist', website: 'https://biz-1.example', source: 'google_places' })
})

t.test('a 429 from the last source ends the job blocked and refunded', async t => {
  const up = await startUpstreams({ fail: { serper: 429 } })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: { SERPER_API_KEY: KEYS.serper }, settings: { sources: ['serper', 'osm'] } })
  const user = await signup(app)
  // A prompt without a place: OSM cannot serve it, so Serper is the only source.
  const { status } = await runMaps(app, user.apiKey, { prompt: 'dentists' })
  t.match(status, { status: 'error', blocked: true, refunded: true, records: 0 })
  t.match(status.error, /Serper answered HTTP 429/)
  t.equal((await app.inject({ url: '/api/auth/me', headers: { 'x-api-key': user.apiKey } })).json().usage.calls_today, 0, 'refunded')

  // With a place, OSM comes after the refusal and answers.
  const next = await runMaps(app, user.apiKey, { prompt: 'dentists in Austin TX', max_results: 3 })
  t.match(next.status, { status: 'done', records: 3 })
  t.ok(next.rows.every(r => r.source === 'osm'))
})

t.test('a 403 from an explicitly requested source is blocked too', async t => {
  const up = await startUpstreams({ fail: { serpapi: 403 } })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: ALL_KEYS })
  const user = await signup(app)
  const { status } = await runMaps(app, user.apiKey, { prompt: 'dentists in Austin TX', source: 'serpapi' })
  t.match(status, { status: 'error', blocked: true, refunded: true })
  t.equal(up.serper.hits.length, 0, 'only the requested source was asked')
})
