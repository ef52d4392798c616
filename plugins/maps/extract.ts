// Pure parsers: one upstream answer (already JSON-decoded) → listings.
// Every source ends in the same MapsListing shape; `source` says which
// answered. No I/O here; sources.ts fetches and pages.

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

type Json = Record<string, unknown>

const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Json : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const str = (v: unknown): string | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  if (typeof v !== 'string') return null
  const s = v.trim()
  return s === '' ? null : s
}
const num = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v.replace(/,/g, '')) : v
  return typeof n === 'number' && Number.isFinite(n) ? n : null
}
const int = (v: unknown): number | null => {
  const n = num(v)
  return n === null ? null : Math.round(n)
}
/** "car_repair" → "Car repair": type ids made readable. */
export const humanise = (id: string): string => {
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

const CATEGORY_KEYS = ['amenity', 'shop', 'craft', 'office', 'healthcare', 'tourism', 'leisure', 'club', 'emergency']

function osmAddress (tags: Record<string, string>): string | null {
  if (tags['addr:full']) return tags['addr:full']
  const street = [tags['addr:housenumber'], tags['addr:street'] ?? tags['addr:place']].filter(Boolean).join(' ')
  const city = [tags['addr:postcode'], tags['addr:city'] ?? tags['addr:suburb']].filter(Boolean).join(' ')
  const parts = [street, city, tags['addr:state'], tags['addr:country']].filter(Boolean)
  return parts.length ? parts.join(', ') : null
}

/** Overpass `[out:json]` elements (nodes, and ways/relations with `out center`) → listings; unnamed features are skipped. */
export function parseOverpass (body: unknown): MapsListing[] {
  const out: MapsListing[] = []
  for (const el of arr(obj(body).elements).map(obj)) {
    const tags = Object.fromEntries(Object.entries(obj(el.tags)).filter(([, v]) => typeof v === 'string')) as Record<string, string>
    const name = str(tags.name)
    if (!name) continue
    const centre = obj(el.center)
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
      latitude: num(el.lat) ?? num(centre.lat),
      longitude: num(el.lon) ?? num(centre.lon),
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
