// Pure: the "what" of a request mapped to OpenStreetMap tags, and the
// Overpass QL that finds those features inside a bounding box. The first
// matching rule wins, so specific rules (pizza, car repair) come before
// general ones (restaurant, car).
import { BUSINESS_KEYS, type BoundingBox } from './extract.ts'

interface TagRule { match: RegExp, filters: string[] }

const EATERY = '["amenity"~"^(restaurant|fast_food|cafe)$"]'
const cuisine = (c: string) => `${EATERY}["cuisine"~"${c}",i]`

const TAG_RULES: TagRule[] = [
  { match: /\bvegan/, filters: [`${EATERY}["diet:vegan"~"^(yes|only)$"]`, cuisine('vegan')] },
  { match: /\bvegetarian/, filters: [`${EATERY}["diet:vegetarian"~"^(yes|only)$"]`, cuisine('vegetarian')] },
  { match: /\bpizz/, filters: [cuisine('pizza')] },
  { match: /\bsushi/, filters: [cuisine('sushi')] },
  { match: /\bburger/, filters: [cuisine('burger')] },
  { match: /\bkebab/, filters: [cuisine('kebab')] },
  { match: /\b(dentist|dental|orthodont)/, filters: ['["amenity"="dentist"]', '["healthcare"="dentist"]'] },
  { match: /\b(coffee|caf[eé]s?\b|espresso)/, filters: ['["amenity"="cafe"]'] },
  { match: /\b(bakery|bakeries|bakers?\b)/, filters: ['["shop"="bakery"]'] },
  { match: /\b(restaurant|diner|eater|bistro|places to eat)/, filters: ['["amenity"="restaurant"]'] },
  { match: /\b(bar|bars|pub|pubs|tavern)\b/, filters: ['["amenity"~"^(bar|pub)$"]'] },
  { match: /\bplumb/, filters: ['["craft"="plumber"]'] },
  { match: /\belectrician/, filters: ['["craft"="electrician"]'] },
  { match: /\broof/, filters: ['["craft"="roofer"]'] },
  { match: /\b(law ?firm|lawyer|attorney|solicitor|legal)/, filters: ['["office"="lawyer"]'] },
  { match: /\b(accountant|accounting|bookkeep|cpa\b)/, filters: ['["office"="accountant"]'] },
  { match: /\btax (advis|prepar)/, filters: ['["office"="tax_advisor"]'] },
  { match: /\b(hair|barber|hairdresser)/, filters: ['["shop"="hairdresser"]'] },
  { match: /\b(nail|beauty salon|beauty)/, filters: ['["shop"="beauty"]'] },
  { match: /\b(car|auto) ?(repair|mechanic|service|garage)|\bmechanic/, filters: ['["shop"="car_repair"]'] },
  { match: /\bcar wash/, filters: ['["amenity"="car_wash"]'] },
  { match: /\b(car|auto) ?dealer/, filters: ['["shop"="car"]'] },
  { match: /\b(gas|petrol|fuel) station/, filters: ['["amenity"="fuel"]'] },
  { match: /\b(hotel|motel)/, filters: ['["tourism"~"^(hotel|motel)$"]'] },
  { match: /\bhostel/, filters: ['["tourism"="hostel"]'] },
  { match: /\b(gym|fitness)/, filters: ['["leisure"="fitness_centre"]'] },
  { match: /\byoga/, filters: ['["sport"="yoga"]', '["leisure"="fitness_centre"]["name"~"yoga",i]'] },
  { match: /\b(pharmac|chemist|drugstore)/, filters: ['["amenity"="pharmacy"]'] },
  { match: /\b(vet|veterinar|animal hospital)/, filters: ['["amenity"="veterinary"]'] },
  { match: /\bhospital/, filters: ['["amenity"="hospital"]'] },
  { match: /\b(doctor|physician|clinic|gp\b)/, filters: ['["amenity"~"^(doctors|clinic)$"]'] },
  { match: /\b(supermarket|grocer)/, filters: ['["shop"~"^(supermarket|grocery|greengrocer|convenience)$"]'] },
  { match: /\bflorist|\bflower shop/, filters: ['["shop"="florist"]'] },
  { match: /\bbank/, filters: ['["amenity"="bank"]'] },
  { match: /\b(real estate|estate agent|realtor)/, filters: ['["office"="estate_agent"]'] },
  { match: /\b(book ?store|book ?shop)/, filters: ['["shop"="books"]'] },
  { match: /\b(cinema|movie theat)/, filters: ['["amenity"="cinema"]'] },
  { match: /\btheat(er|re)/, filters: ['["amenity"="theatre"]'] },
  { match: /\bschool/, filters: ['["amenity"="school"]'] },
  { match: /\b(kindergarten|daycare|nursery school)/, filters: ['["amenity"~"^(kindergarten|childcare)$"]'] },
  { match: /\blocksmith/, filters: ['["craft"="locksmith"]', '["shop"="locksmith"]'] },
  { match: /\boptician|\boptometrist/, filters: ['["shop"="optician"]'] },
  { match: /\bbutcher/, filters: ['["shop"="butcher"]'] },
  { match: /\bbrewer/, filters: ['["craft"="brewery"]'] },
]

const NATIONAL_CUISINE = /\b(italian|chinese|mexican|indian|thai|japanese|french|greek|turkish|korean|vietnamese|lebanese|spanish)\b/

/** Overpass tag filters for a business kind, or [] when no rule knows it (the name search then stands alone). */
export function osmFilters (what: string): string[] {
  const w = what.toLowerCase()
  const national = NATIONAL_CUISINE.exec(w)
  if (national && /(restaurant|food|place|cuisine|takeaway)/.test(w)) return [cuisine(national[1]!)]
  for (const rule of TAG_RULES) if (rule.filters.length && rule.match.test(w)) return rule.filters
  return []
}

/** The word to look for in names when tags do not know the business: "dentists" → "dentist". */
export function nameKeyword (what: string): string {
  const words = what.toLowerCase().replace(/[^\p{L}\p{N}\s'&-]/gu, ' ').split(/\s+/).filter(Boolean)
  const last = words.at(-1) ?? ''
  return last.length > 3 ? last.replace(/ies$/, 'y').replace(/(?<!s)s$/, '') : last
}

/** Regex metacharacters and quotes escaped for an Overpass `~"…"` value. */
const escapeRegex = (s: string) => s.replace(/[\\.*+?^${}()|[\]"]/g, m => (m === '"' ? '\\"' : `\\\\${m}`))

const round = (n: number) => Number(n.toFixed(6))

/**
 * [out:json] QL: every named node, way and relation matching one of the
 * filters inside the box, `limit` at most; `out center` gives ways and
 * relations a position.
 */
export function overpassQuery (filters: string[], bbox: BoundingBox, limit: number, timeoutSeconds = 25): string {
  const box = [bbox.south, bbox.west, bbox.north, bbox.east].map(round).join(',')
  const parts = filters.map(f => `  nwr${f}["name"];`).join('\n')
  return `[out:json][timeout:${timeoutSeconds}][bbox:${box}];\n(\n${parts}\n);\nout center tags ${Math.max(1, Math.floor(limit))};`
}

/**
 * The fallback: names containing the keyword, case-insensitive, on elements
 * with a business key (a road or a dock named "Dentist Lane" is not a listing;
 * parseOverpass applies the finer rule, extract.ts isBusiness).
 */
export function nameFilters (keyword: string): string[] {
  return BUSINESS_KEYS.map(key => `["${key}"]["name"~"${escapeRegex(keyword)}",i]`)
}

/** A box no larger than maxDegrees on either side, around its centre: a country-sized box would time Overpass out. */
export function limitBox (bbox: BoundingBox, maxDegrees: number): { bbox: BoundingBox, shrunk: boolean } {
  const latSpan = bbox.north - bbox.south
  const lonSpan = bbox.east - bbox.west
  if (latSpan <= maxDegrees && lonSpan <= maxDegrees) return { bbox, shrunk: false }
  const lat = (bbox.north + bbox.south) / 2
  const lon = (bbox.east + bbox.west) / 2
  const half = maxDegrees / 2
  return {
    bbox: {
      south: latSpan > maxDegrees ? lat - half : bbox.south,
      north: latSpan > maxDegrees ? lat + half : bbox.north,
      west: lonSpan > maxDegrees ? lon - half : bbox.west,
      east: lonSpan > maxDegrees ? lon + half : bbox.east,
    },
    shrunk: true,
  }
}
