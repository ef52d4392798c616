// Pure parsers: one upstream answer (already JSON-decoded) → listings.
// Every source ends in the same MapsListing shape; `source` says which
// answered. No I/O here; sources.ts fetches and pages.
import { isRecord, listOf, textOf, type Json } from '../lib/json.ts'

export type SourceName = 'serper' | 'serpapi' | 'google_places' | 'osm'

export interface MapsListing {
  name: string
  category: string | null
  address: string | null
  phone: string | null
  website: string | null
  rating: number | null
  review_count: number | null
  latitude: number | null
  longitude: number | null
  source_id: string | null
  source: SourceName
}

const obj = (v: unknown): Json => (isRecord(v) ? v : {})
const arr = listOf
const str = textOf
const num = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v.replace(/,/g, '')) : v
  return typeof n === 'number' && Number.isFinite(n) ? n : null
}
const int = (v: unknown): number | null => {
  const n = num(v)
  return n === null ? null : Math.round(n)
}
/** "car_repair" → "Car repair": type ids made readable. */
const humanise = (id: string): string => {
  const s = id.replace(/_/g, ' ').trim()
  return s.charAt(0).toUpperCase() + s.slice(1)
}
const first = (...values: unknown[]): string | null => {
  for (const v of values) { const s = str(v); if (s !== null) return s }
  return null
}

// ------------------------------------------------------------------ Serper

/** Serper `/places` (title, address, category, cid…) and `/maps` (type, phoneNumber, website, placeId…). */
export function parseSerper (body: unknown): MapsListing[] {
  return arr(obj(body).places).map(obj).filter(p => str(p.title)).map(p => ({
    name: str(p.title)!,
    category: first(p.category, p.type, arr(p.types)[0]),
    address: first(p.address),
    phone: first(p.phoneNumber, p.phone),
    website: first(p.website),
    rating: num(p.rating),
    review_count: int(p.ratingCount ?? p.reviewsCount ?? p.reviews),
    latitude: num(p.latitude),
    longitude: num(p.longitude),
    source_id: first(p.cid, p.placeId, p.fid),
    source: 'serper' as const,
  }))
}

// ------------------------------------------------------------------ SerpApi

export interface SerpApiPage { listings: MapsListing[], hasNext: boolean, error: string | null }

function serpApiListing (p: Json): MapsListing {
  const gps = obj(p.gps_coordinates)
  return {
    name: str(p.title)!,
    category: first(p.type, arr(p.types)[0], arr(p.type)[0]),
    address: first(p.address),
    phone: first(p.phone),
    website: first(p.website),
    rating: num(p.rating),
    review_count: int(p.reviews),
    latitude: num(gps.latitude),
    longitude: num(gps.longitude),
    source_id: first(p.place_id, p.data_cid, p.data_id),
    source: 'serpapi',
  }
}

/**
 * SerpApi `engine=google_maps`: a `local_results` list, or a single
 * `place_results` when Google resolved the query to one place. "No results"
 * comes as an `error` text with HTTP 200, which is an empty page, not a failure.
 */
export function parseSerpApi (body: unknown): SerpApiPage {
  const b = obj(body)
  const error = str(b.error)
  if (error && /hasn't returned any results|no results/i.test(error)) return { listings: [], hasNext: false, error: null }
  const list = Array.isArray(b.local_results) ? b.local_results : (b.place_results ? [b.place_results] : [])
  return {
    listings: list.map(obj).filter(p => str(p.title)).map(serpApiListing),
    hasNext: Boolean(str(obj(b.serpapi_pagination).next) ?? str(obj(b.pagination).next)),
    error,
  }
}

// ------------------------------------------------------------------ Google Places

export interface PlacesPage { listings: MapsListing[], nextPageToken: string | null, status: string, errorMessage: string | null }

/** Legacy Places Text Search (`/maps/api/place/textsearch/json`). Phone and website need Place Details. */
export function parsePlacesLegacy (body: unknown): PlacesPage {
  const b = obj(body)
  const listings = arr(b.results).map(obj).filter(p => str(p.name)).map(p => {
    const loc = obj(obj(p.geometry).location)
    const types = arr(p.types).filter((t): t is string => typeof t === 'string' && !['point_of_interest', 'establishment', 'food', 'store'].includes(t))
    return {
      name: str(p.name)!,
      category: types[0] ? humanise(types[0]) : null,
      address: first(p.formatted_address, p.vicinity),
      phone: first(p.international_phone_number, p.formatted_phone_number),
      website: first(p.website),
      rating: num(p.rating),
      review_count: int(p.user_ratings_total),
      latitude: num(loc.lat),
      longitude: num(loc.lng),
      source_id: first(p.place_id),
      source: 'google_places' as const,
    }
  })
  return { listings, nextPageToken: str(b.next_page_token), status: str(b.status) ?? 'UNKNOWN', errorMessage: str(b.error_message) }
}

/** Legacy Place Details: the fields a text search lacks. */
export function parsePlaceDetailsLegacy (body: unknown): { phone: string | null, website: string | null, status: string } {
  const b = obj(body)
  const r = obj(b.result)
  return { phone: first(r.international_phone_number, r.formatted_phone_number), website: first(r.website), status: str(b.status) ?? 'UNKNOWN' }
}

/** Places API (New) `places:searchText` with a field mask: phone and website come in the same answer. */
export function parsePlacesNew (body: unknown): PlacesPage {
  const b = obj(body)
  const listings = arr(b.places).map(obj).filter(p => str(obj(p.displayName).text) ?? str(p.displayName)).map(p => {
    const loc = obj(p.location)
    const types = arr(p.types).filter((t): t is string => typeof t === 'string' && !['point_of_interest', 'establishment', 'food', 'store'].includes(t))
    const primary = str(p.primaryType)
    return {
      name: (str(obj(p.displayName).text) ?? str(p.displayName))!,
      category: first(obj(p.primaryTypeDisplayName).text) ?? (primary ? humanise(primary) : (types[0] ? humanise(types[0]) : null)),
      address: first(p.formattedAddress, p.shortFormattedAddress),
      phone: first(p.internationalPhoneNumber, p.nationalPhoneNumber),
      website: first(p.websiteUri),
      rating: num(p.rating),
      review_count: int(p.userRatingCount),
      latitude: num(loc.latitude),
      longitude: num(loc.longitude),
      source_id: first(p.id),
      source: 'google_places' as const,
    }
  })
  const error = obj(b.error)
  return { listings, nextPageToken: str(b.nextPageToken), status: str(error.status) ?? 'OK', errorMessage: str(error.message) }
}

// ------------------------------------------------------------------ OpenStreetMap

export interface BoundingBox { south: number, west: number, north: number, east: number }
export interface GeocodedPlace { name: string, lat: number, lon: number, bbox: BoundingBox }

/** Nominatim `/search?format=jsonv2`: the first hit's name, centre and bounding box. */
export function parseNominatim (body: unknown): GeocodedPlace | null {
  const hit = obj(arr(body)[0])
  const bb = arr(hit.boundingbox).map(num)
  const lat = num(hit.lat)
  const lon = num(hit.lon)
  if (lat === null || lon === null) return null
  const [south, north, west, east] = bb
  const bbox = bb.length === 4 && bb.every(n => n !== null)
    ? { south: south!, north: north!, west: west!, east: east! }
    : { south: lat - 0.05, north: lat + 0.05, west: lon - 0.05, east: lon + 0.05 }
  return { name: first(hit.display_name, hit.name) ?? `${lat},${lon}`, lat, lon, bbox }
}

/**
 * What makes an OSM element a business listing, after OSM's own conventions
 * (wiki "Map features"): a `shop`, `office`, `craft`, `healthcare` or `club`
 * tag of any value; an `amenity` that is a place someone runs (not street
 * furniture, parking or infrastructure); a `tourism` or `leisure` value that is
 * an establishment (a hotel, a museum, a gym, a marina), not a viewpoint, a
 * park or a pitch. Roads, waterways, docks, landuse and buildings carry none
 * of these, so a name alone never makes a listing.
 */
export const BUSINESS_KEYS = ['shop', 'office', 'craft', 'healthcare', 'club', 'amenity', 'tourism', 'leisure'] as const

const NOT_A_BUSINESS_AMENITY = new Set([
  'parking', 'parking_space', 'parking_entrance', 'bicycle_parking', 'motorcycle_parking', 'bench', 'waste_basket',
  'waste_disposal', 'recycling', 'toilets', 'drinking_water', 'shelter', 'telephone', 'post_box', 'vending_machine',
  'atm', 'bicycle_repair_station', 'charging_station', 'fountain', 'clock', 'grit_bin', 'hunting_stand', 'loading_dock',
  'water_point', 'watering_place', 'bbq', 'dog_toilet', 'give_box', 'letter_box', 'lounger', 'parcel_locker',
  'ticket_validator', 'grave_yard', 'taxi', 'bus_station', 'ferry_terminal', 'compressed_air', 'vacuum_cleaner',
  'street_lamp', 'public_bookcase', 'smoking_area', 'table', 'trolley_bay', 'feeding_place', 'weighbridge',
])

const BUSINESS_TOURISM = new Set([
  'hotel', 'motel', 'hostel', 'guest_house', 'apartment', 'chalet', 'camp_site', 'caravan_site', 'alpine_hut',
  'wilderness_hut', 'museum', 'gallery', 'zoo', 'aquarium', 'theme_park', 'attraction',
])

const BUSINESS_LEISURE = new Set([
  'fitness_centre', 'sports_centre', 'sports_hall', 'bowling_alley', 'dance', 'escape_game', 'water_park',
  'amusement_arcade', 'adult_gaming_centre', 'golf_course', 'miniature_golf', 'horse_riding', 'ice_rink', 'marina',
  'sauna', 'tanning_salon', 'trampoline_park', 'hackerspace', 'bathing_place', 'resort', 'beach_resort', 'stadium',
])

/** True when the tags say the element is a business (see BUSINESS_KEYS). */
export function isBusiness (tags: Readonly<Record<string, string>>): boolean {
  if (['shop', 'office', 'craft', 'healthcare', 'club'].some(k => tags[k] && tags[k] !== 'no')) return true
  if (tags.amenity && tags.amenity !== 'no' && !NOT_A_BUSINESS_AMENITY.has(tags.amenity)) return true
  if (tags.tourism && BUSINESS_TOURISM.has(tags.tourism)) return true
  return Boolean(tags.leisure && BUSINESS_LEISURE.has(tags.leisure))
}

const CATEGORY_KEYS = ['amenity', 'shop', 'craft', 'office', 'healthcare', 'tourism', 'leisure', 'club']

function osmAddress (tags: Record<string, string>): string | null {
  if (tags['addr:full']) return tags['addr:full']
  const street = [tags['addr:housenumber'], tags['addr:street'] ?? tags['addr:place']].filter(Boolean).join(' ')
  const city = [tags['addr:postcode'], tags['addr:city'] ?? tags['addr:suburb']].filter(Boolean).join(' ')
  const parts = [street, city, tags['addr:state'], tags['addr:country']].filter(Boolean)
  return parts.length ? parts.join(', ') : null
}

interface Position { lat: number, lon: number }

const mean = (points: Position[]): Position | null => points.length
  ? { lat: Number((points.reduce((a, p) => a + p.lat, 0) / points.length).toFixed(7)), lon: Number((points.reduce((a, p) => a + p.lon, 0) / points.length).toFixed(7)) }
  : null

/**
 * Where each element of an Overpass answer is: a node's own lat/lon; a way's
 * or relation's `center` (`out center`), else the middle of its `bounds` or
 * `geometry` (`out bb` / `out geom`), else the mean of its nodes (a way's
 * `nodes`, a relation's node and way members) found in the same answer.
 */
function positionsOf (elements: Json[]): (el: Json) => Position | null {
  const known = new Map<string, Position | null>()
  const byKey = new Map(elements.map(el => [`${String(el.type)}/${String(el.id)}`, el]))
  const point = (lat: unknown, lon: unknown): Position | null => {
    const la = num(lat)
    const lo = num(lon)
    return la !== null && lo !== null ? { lat: la, lon: lo } : null
  }
  const resolve = (el: Json, depth: number): Position | null => {
    const key = `${String(el.type)}/${String(el.id)}`
    if (known.has(key)) return known.get(key)!
    known.set(key, null) // a relation that contains itself resolves to nothing, not forever
    const centre = obj(el.center)
    const bounds = obj(el.bounds)
    const bbox = point(bounds.minlat, bounds.minlon) && point(bounds.maxlat, bounds.maxlon)
      ? mean([point(bounds.minlat, bounds.minlon)!, point(bounds.maxlat, bounds.maxlon)!])
      : null
    const position = point(el.lat, el.lon) ?? point(centre.lat, centre.lon) ?? bbox ??
      mean(arr(el.geometry).map(obj).map(g => point(g.lat, g.lon)).filter((p): p is Position => p !== null)) ??
      mean(arr(el.nodes).map(id => byKey.get(`node/${String(id)}`)).filter((n): n is Json => n !== undefined)
        .map(n => point(n.lat, n.lon)).filter((p): p is Position => p !== null)) ??
      (depth < 3
        ? mean(arr(el.members).map(obj).map(m => byKey.get(`${String(m.type)}/${String(m.ref)}`))
          .filter((m): m is Json => m !== undefined).map(m => resolve(m, depth + 1)).filter((p): p is Position => p !== null))
        : null)
    known.set(key, position)
    return position
  }
  return el => resolve(el, 0)
}

/**
 * Overpass `[out:json]` elements → listings. Only named elements with a
 * business tag (isBusiness) are listings, and only those with a position;
 * the answer's untagged nodes serve to place ways and relations.
 */
export function parseOverpass (body: unknown): MapsListing[] {
  const out: MapsListing[] = []
  const elements = arr(obj(body).elements).map(obj)
  const positionOf = positionsOf(elements)
  for (const el of elements) {
    const tags = Object.fromEntries(Object.entries(obj(el.tags)).filter(([, v]) => typeof v === 'string')) as Record<string, string>
    const name = str(tags.name)
    if (!name || !isBusiness(tags)) continue
    const position = positionOf(el)
    if (!position) continue
    const key = CATEGORY_KEYS.find(k => tags[k] && tags[k] !== 'yes')
    const cuisine = tags.cuisine ? ` (${tags.cuisine.split(';').map(c => c.replace(/_/g, ' ')).join(', ')})` : ''
    out.push({
      name,
      category: key ? humanise(tags[key]!) + cuisine : null,
      address: osmAddress(tags),
      phone: first(tags.phone, tags['contact:phone'])?.split(';')[0]!.trim() ?? null,
      website: first(tags.website, tags['contact:website'], tags.url),
      rating: null,
      review_count: null,
      latitude: position.lat,
      longitude: position.lon,
      source_id: el.type && el.id !== undefined ? `${String(el.type)}/${String(el.id)}` : null,
      source: 'osm',
    })
  }
  return out
}

/** Overpass reports runtime errors (timeouts, memory) as a `remark` beside an empty result. */
export function overpassRemark (body: unknown): string | null {
  const remark = str(obj(body).remark)
  return remark && /error/i.test(remark) ? remark : null
}
