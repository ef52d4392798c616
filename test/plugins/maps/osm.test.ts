// Keyless OpenStreetMap: Nominatim then Overpass, with a real User-Agent and
// at most one request a second per host, measured on the fixture servers.
import t from 'tap'
import { signup } from '../../helpers/build.ts'
import { buildMapsApp, runMaps } from '../../fixtures/maps/app.ts'
import { startUpstreams } from '../../fixtures/maps/upstreams.ts'

const UA = 'extraction-jobs-tests/1.0 (maps plugin tests; contact: tests@example.invalid)'

t.test('no keys: Nominatim bbox, Overpass tags, name fallback, one request a second per host', async t => {
  const up = await startUpstreams({ osmTagged: 3 })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls })
  const user = await signup(app)
  const { id, status, rows } = await runMaps(app, user.apiKey, { prompt: 'dentists in Austin TX', max_results: 10 })
  t.match(status, { status: 'done', records: 4 })

  t.equal(up.nominatim.hits.length, 1)
  const geo = up.nominatim.hits[0]!
  t.same([geo.path, geo.query.get('format'), geo.query.get('q'), geo.query.get('limit')], ['/search', 'jsonv2', 'Austin TX', '1'])
  t.equal(geo.headers['user-agent'], UA, 'the configured User-Agent identifies the service')

  t.equal(up.overpass.hits.length, 2, 'tag search, then the name search to top up')
  const [tagQl, nameQl] = up.overpass.hits.map(h => new URLSearchParams(h.body).get('data')!)
  t.match(tagQl, /^\[out:json\]\[timeout:25\]\[bbox:30\.098665,-97\.938383,30\.516625,-97\.561489\];/)
  t.match(tagQl, /nwr\["amenity"="dentist"\]\["name"\];/)
  t.match(tagQl, /nwr\["healthcare"="dentist"\]\["name"\];/)
  t.match(tagQl, /out center tags 10;$/)
  t.match(nameQl, /nwr\["healthcare"\]\["name"~"dentist",i\]\["name"\];/, 'the name search asks for business-tagged features only')
  t.notMatch(nameQl, /nwr\["name"~/, 'never for any named feature')
  t.ok(up.overpass.hits.every(h => h.headers['user-agent'] === UA && h.method === 'POST' && h.path === '/api/interpreter'))
  const gap = up.overpass.hits[1]!.at - up.overpass.hits[0]!.at
  t.ok(gap >= 950, `second Overpass request ${gap} ms after the first`)

  t.same(rows.map(r => r.source_id), ['node/1', 'node/2', 'node/3', 'way/500'], 'the name search adds only what the tag search missed; the road and the dock are no listings')
  t.same(rows[0], { query: 'dentists in Austin TX', name: 'Congress Dental', category: 'Dentist', address: '101 Congress Ave, 78701 Austin', phone: '+1 512 555 0201', website: null, rating: null, review_count: null, latitude: 30.27, longitude: -97.74, source_id: 'node/1', source: 'osm' })
  t.match(rows[3], { name: 'Dentistry on Sixth', address: '600 E 6th St, Austin', latitude: 30.3, longitude: -97.7 }, 'a way without center is placed by its nodes')
  const job = await app.services.db.job.findUniqueOrThrow({ where: { id } })
  t.match(JSON.parse(job.summary!), { source: 'osm', place: 'austin tx, United States' })
})

t.test('the limiter spans jobs: a second job waits for the host\'s next slot; geocodes are cached', async t => {
  const up = await startUpstreams({ osmTagged: 2 })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls })
  const user = await signup(app)
  const a = await runMaps(app, user.apiKey, { prompt: 'plumbers Denver', max_results: 2 })
  const b = await runMaps(app, user.apiKey, { query: 'plumbers', location: 'Boston', max_results: 2 })
  t.match(a.status, { status: 'done' })
  t.match(b.status, { status: 'done' })
  t.same(up.nominatim.hits.map(h => h.query.get('q')), ['Denver', 'Boston'])
  const gap = up.nominatim.hits[1]!.at - up.nominatim.hits[0]!.at
  t.ok(gap >= 950, `second Nominatim request ${gap} ms after the first`)
  t.match(new URLSearchParams(up.overpass.hits[0]!.body).get('data'), /\["craft"="plumber"\]/)
  const c = await runMaps(app, user.apiKey, { prompt: 'plumbers in Denver', max_results: 2 })
  t.match(c.status, { status: 'done' })
  t.equal(up.nominatim.hits.length, 2, 'Denver came from the cache')
})

t.test('an unknown place is an empty run with a reason; no place at all is refused for OSM', async t => {
  const up = await startUpstreams()
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, settings: { osm_min_interval_ms: 0 } })
  const user = await signup(app)
  const unknown = await runMaps(app, user.apiKey, { prompt: 'dentists in Atlantis' })
  t.match(unknown.status, { status: 'done', records: 0 })
  t.match(unknown.status.warning, /does not know the place "Atlantis"/)
  t.equal(up.overpass.hits.length, 0)
  const nowhere = await runMaps(app, user.apiKey, { prompt: 'dentists' })
  t.match(nowhere.status, { status: 'error', refunded: false })
  t.match(nowhere.status.error, /needs.*place|place.*needs/i)
})

t.test('an Overpass 429 as the only source ends blocked and refunded', async t => {
  const up = await startUpstreams({ fail: { overpass: 429 } })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, settings: { osm_min_interval_ms: 0 } })
  const user = await signup(app)
  const { status } = await runMaps(app, user.apiKey, { prompt: 'dentists in Austin TX' })
  t.match(status, { status: 'error', blocked: true, refunded: true })
  t.match(status.error, /Overpass answered HTTP 429/)
})
