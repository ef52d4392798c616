// The pure parsers on real captured answers, plus the Overpass query builder.
import t from 'tap'
import { isBusiness, parseNominatim, parseOverpass, parsePlaceDetailsLegacy, parsePlacesLegacy, parsePlacesNew, parseSerpApi, parseSerper, overpassRemark } from '../../../plugins/maps/extract.ts'
import { limitBox, nameFilters, nameKeyword, osmFilters, overpassQuery } from '../../../plugins/maps/osm-query.ts'
import { captureAvailable, missing, readCapture } from '../../fixtures/maps/captures.ts'

const withCapture = (name: string, title: string, fn: (body: unknown, t: any) => void | Promise<void>) =>
  t.test(title, { skip: captureAvailable(name) ? false : missing(name) }, async t => fn(readCapture(name), t))


withCapture('serp/serper_places_monterrico_2023.json', 'Serper /places (monterrico, gl=pe)', (body, t) => {
  const rows = parseSerper(body)
  t.equal(rows.length, 5)
  t.same(rows[0], {
    name: 'Monterrico Racecourse', category: 'Racecourse', address: 'Santiago de Surco', phone: null, website: null,
    rating: 4.3, review_count: 1751, latitude: -12.092340199999999, longitude: -76.977334, source_id: '16917156524996281151', source: 'serper',
  })
  t.match(rows[2], { name: 'MONTERRICO', category: 'Garden', rating: null, review_count: null })
  t.ok(rows.every(r => r.source_id && r.latitude !== null))
})

withCapture('serp/serpapi_google_maps_place_cargiant_2024.json', 'SerpApi google_maps resolved to one place', (body, t) => {
  const page = parseSerpApi(body)
  t.equal(page.error, null)
  t.equal(page.hasNext, false)
  t.same(page.listings, [{
    name: 'Cargiant', category: 'Used car dealer', address: '44-45 Hythe Rd, London NW10 6RS, United Kingdom', phone: '+44 20 8969 5511',
    website: 'http://www.cargiant.co.uk/', rating: 3.9, review_count: 9464, latitude: 51.5271429, longitude: -0.23896669999999998,
    source_id: 'ChIJ4Si7uc0RdkgR7vAZiQNcvyQ', source: 'serpapi',
  }])
})

t.test('SerpApi local_results, paging and errors', async t => {
  const page = parseSerpApi({ local_results: [{ title: 'A', place_id: 'p1', type: 'Dentist', reviews: 12, gps_coordinates: { latitude: 1, longitude: 2 } }], serpapi_pagination: { next: 'https://serpapi.com/search.json?start=20' } })
  t.match(page, { hasNext: true, error: null, listings: [{ name: 'A', source_id: 'p1', category: 'Dentist', review_count: 12, latitude: 1 }] })
  t.same(parseSerpApi({ error: "Google hasn't returned any results for this query." }), { listings: [], hasNext: false, error: null })
  t.equal(parseSerpApi({ error: 'Invalid API key.' }).error, 'Invalid API key.')
})

withCapture('geo/google_places_textsearch_legacy_2020.json', 'Google Places legacy text search', (body, t) => {
  const page = parsePlacesLegacy(body)
  t.equal(page.status, 'OK')
  t.equal(page.nextPageToken, null)
  t.equal(page.listings.length, 2)
  t.same(page.listings[0], {
    name: 'Casbah London Kebab Time Square', category: 'Restaurant', address: 'Times Square Shopping Centre, Bandar Seri Begawan BB2713, Brunei',
    phone: null, website: null, rating: 3.3, review_count: 4, latitude: 4.9393036, longitude: 114.9393672, source_id: 'ChIJwc5He6X1IjIRUQJxOsnFnb4', source: 'google_places',
  })
  t.match(page.listings[1], { name: 'London', address: 'London, UK', latitude: 51.5073509 })
})

t.test('Google Places details and the new API', async t => {
  t.same(parsePlaceDetailsLegacy({ status: 'OK', result: { formatted_phone_number: '(512) 555-0100', website: 'https://a.test/' } }), { phone: '(512) 555-0100', website: 'https://a.test/', status: 'OK' })
  const page = parsePlacesNew({ places: [{ id: 'X1', displayName: { text: 'Smile Dental', languageCode: 'en' }, formattedAddress: '1 Main St', location: { latitude: 30.2, longitude: -97.7 }, rating: 4.8, userRatingCount: 210, internationalPhoneNumber: '+1 512-555-0100', websiteUri: 'https://smile.test/', primaryType: 'dentist', primaryTypeDisplayName: { text: 'Dentist' } }], nextPageToken: 'tok' })
  t.same(page.listings[0], { name: 'Smile Dental', category: 'Dentist', address: '1 Main St', phone: '+1 512-555-0100', website: 'https://smile.test/', rating: 4.8, review_count: 210, latitude: 30.2, longitude: -97.7, source_id: 'X1', source: 'google_places' })
  t.equal(page.nextPageToken, 'tok')
  t.match(parsePlacesNew({ error: { code: 403, status: 'PERMISSION_DENIED', message: 'API key not valid' } }), { listings: [], status: 'PERMISSION_DENIED' })
})

withCapture('geo/nominatim_search_jsonv2_portland_head_light.json', 'Nominatim jsonv2 search: centre and bounding box', (body, t) => {
  t.same(parseNominatim(body), {
    name: 'Portland Head Light, Captain Strout Circle, Cape Elizabeth, Cumberland County, Maine, 04107, United States',
    lat: 43.6231093, lon: -70.2078663,
    bbox: { south: 43.6230777, north: 43.6231433, west: -70.2079123, east: -70.2078207 },
  })
  t.equal(parseNominatim([]), null)
})

withCapture('geo/overpass_example_singlenode.json', 'Overpass cafes (nodes with tags)', (body, t) => {
  const rows = parseOverpass(body)
  t.ok(rows.length > 50, `${rows.length} named cafes`)
  t.same(rows[0], { name: 'Café Sincera', category: 'Cafe', address: null, phone: null, website: null, rating: null, review_count: null, latitude: -15.7526149, longitude: -47.8900512, source_id: 'node/830609255', source: 'osm' })
  t.match(rows.find(r => r.name === 'Gentil'), { category: 'Cafe (pizza)', address: 'Cls 410', source_id: 'node/2691239509' })
  t.ok(rows.every(r => r.source === 'osm' && r.latitude !== null && /^node\/\d+$/.test(r.source_id!)))
  t.equal(overpassRemark(body), null)
})

t.test('Overpass ways with centres, addresses and runtime remarks', async t => {
  const rows = parseOverpass({ elements: [
    { type: 'way', id: 7, center: { lat: 30.1, lon: -97.1 }, tags: { name: 'Bright Smiles', amenity: 'dentist', 'addr:housenumber': '12', 'addr:street': 'Oak St', 'addr:city': 'Austin', 'addr:postcode': '78701', phone: '+1 512 555 0101;+1 512 555 0102', 'contact:website': 'https://bright.test' } },
    { type: 'node', id: 8, lat: 1, lon: 2, tags: { amenity: 'dentist' } },
  ] })
  t.same(rows, [{ name: 'Bright Smiles', category: 'Dentist', address: '12 Oak St, 78701 Austin', phone: '+1 512 555 0101', website: 'https://bright.test', rating: null, review_count: null, latitude: 30.1, longitude: -97.1, source_id: 'way/7', source: 'osm' }])
  t.match(overpassRemark({ elements: [], remark: 'runtime error: Query timed out in "query" at line 3 after 26 seconds.' }), /timed out/)
})

t.test('OSM: only named elements with a business tag are listings, and every listing has a position', async t => {
  const rows = parseOverpass({ elements: [
    // Named, but a road, a dock, a parking lot and a park: not businesses.
    { type: 'way', id: 1, center: { lat: 30.2, lon: -97.7 }, tags: { name: 'Dentist Lane', highway: 'residential' } },
    { type: 'way', id: 2, center: { lat: 30.2, lon: -97.7 }, tags: { name: 'Dentist Dock', waterway: 'dock' } },
    { type: 'node', id: 3, lat: 30.2, lon: -97.7, tags: { name: 'Dental Parking', amenity: 'parking' } },
    { type: 'way', id: 4, center: { lat: 30.2, lon: -97.7 }, tags: { name: 'Dentist Park', leisure: 'park' } },
    // A way without `center`: placed at the mean of its nodes, given in the same answer.
    { type: 'way', id: 10, nodes: [100, 101, 102, 103], tags: { name: 'Smile Studio', healthcare: 'dentist' } },
    { type: 'node', id: 100, lat: 30.0, lon: -97.0 },
    { type: 'node', id: 101, lat: 30.0, lon: -97.2 },
    { type: 'node', id: 102, lat: 30.2, lon: -97.2 },
    { type: 'node', id: 103, lat: 30.2, lon: -97.0 },
    // A relation without `center`: through its way member's nodes.
    { type: 'relation', id: 20, members: [{ type: 'way', ref: 10, role: 'outer' }], tags: { name: 'Dental Campus', amenity: 'dentist' } },
    // Bounds (out bb) and geometry (out geom) serve as well.
    { type: 'way', id: 30, bounds: { minlat: 1, minlon: 2, maxlat: 3, maxlon: 4 }, tags: { name: 'Bound Shop', shop: 'books' } },
    { type: 'way', id: 40, geometry: [{ lat: 5, lon: 6 }, { lat: 7, lon: 8 }], tags: { name: 'Geom Office', office: 'lawyer' } },
    // No position anywhere: not a listing.
    { type: 'way', id: 50, nodes: [999], tags: { name: 'Nowhere Dental', amenity: 'dentist' } },
    { type: 'node', id: 60, lat: 9, lon: 9, tags: { name: 'Grand Hotel', tourism: 'hotel' } },
    { type: 'node', id: 61, lat: 9, lon: 9, tags: { name: 'Viewpoint', tourism: 'viewpoint' } },
    { type: 'node', id: 62, lat: 9, lon: 9, tags: { name: 'Harbour Marina', leisure: 'marina' } },
  ] })
  t.same(rows.map(r => r.source_id), ['way/10', 'relation/20', 'way/30', 'way/40', 'node/60', 'node/62'])
  t.match(rows[0], { name: 'Smile Studio', category: 'Dentist', latitude: 30.1, longitude: -97.1 })
  t.match(rows[1], { name: 'Dental Campus', latitude: 30.1, longitude: -97.1 })
  t.match(rows[2], { latitude: 2, longitude: 3 })
  t.match(rows[3], { latitude: 6, longitude: 7 })
  t.ok(rows.every(r => typeof r.latitude === 'number' && typeof r.longitude === 'number'))
  t.ok(isBusiness({ shop: 'yes' }) && isBusiness({ craft: 'plumber' }) && isBusiness({ amenity: 'cafe' }))
  t.notOk(isBusiness({ amenity: 'bench' }) || isBusiness({ highway: 'primary' }) || isBusiness({ building: 'yes' }) || isBusiness({ leisure: 'pitch' }))
})

t.test('what → OSM tags, name fallback and the QL', async t => {
  t.same(osmFilters('dentists'), ['["amenity"="dentist"]', '["healthcare"="dentist"]'])
  t.same(osmFilters('coffee shops'), ['["amenity"="cafe"]'])
  t.same(osmFilters('restaurants'), ['["amenity"="restaurant"]'])
  t.match(osmFilters('vegan restaurants')[0], /diet:vegan/)
  t.match(osmFilters('pizza')[0], /cuisine"~"pizza"/)
  t.match(osmFilters('Italian restaurants')[0], /cuisine"~"italian"/)
  t.same(osmFilters('plumbers'), ['["craft"="plumber"]'])
  t.same(osmFilters('law firms'), ['["office"="lawyer"]'])
  t.same(osmFilters('hair salons'), ['["shop"="hairdresser"]'])
  t.same(osmFilters('car repair'), ['["shop"="car_repair"]'])
  t.same(osmFilters('car dealers'), ['["shop"="car"]'])
  t.same(osmFilters('escape rooms'), [])
  t.equal(nameKeyword('escape rooms'), 'room')
  t.equal(nameKeyword('dentists'), 'dentist')
  t.equal(nameFilters('a.b"c')[0], '["shop"]["name"~"a\\\\.b\\"c",i]')
  t.ok(nameFilters('dentist').every(f => /^\["(shop|office|craft|healthcare|club|amenity|tourism|leisure)"\]\["name"~"dentist",i\]$/.test(f)), 'the name fallback asks only for business-tagged features')
  const ql = overpassQuery(['["amenity"="dentist"]'], { south: 30.1, west: -97.9, north: 30.5, east: -97.5 }, 20)
  t.equal(ql, '[out:json][timeout:25][bbox:30.1,-97.9,30.5,-97.5];\n(\n  nwr["amenity"="dentist"]["name"];\n);\nout center tags 20;')
  t.same(limitBox({ south: 0, west: 0, north: 10, east: 0.5 }, 1), { bbox: { south: 4.5, north: 5.5, west: 0, east: 0.5 }, shrunk: true })
  t.equal(limitBox({ south: 0, west: 0, north: 0.5, east: 0.5 }, 1).shrunk, false)
})
