// The one schema per thing: REST input (also the agent input, after renames)
// and the listing row.
import { Defaulted, Nullable, OneOrMany, Type, type ListInput, type RunInput, type Static } from '../../core/tools/contract.ts'

const SOURCE_CHOICES = ['auto', 'serper', 'serpapi', 'google_places', 'osm'] as const

/** Searches per call: each is one map search; the per-run row ceiling spans them all. */
const MAX_SEARCHES = 50

/** One search text, or a list of them (each searched in turn, rows naming theirs). */
const searchText = (description: string) => Type.Optional(OneOrMany(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: MAX_SEARCHES, description }))

/**
 * The two ways in (a call gives one): each entry one search, in turn. A search
 * that fails is warned about and the others go on (its error kept in the
 * summary); when every one fails, the last failure is the job's (blocked when
 * the source refused, and so refunded).
 */
export const QUERIES_LIST = { param: 'query', noun: 'queries', max: MAX_SEARCHES, onItemError: 'warn-and-skip' } satisfies ListInput
export const PROMPTS_LIST = { param: 'prompt', noun: 'prompts', max: MAX_SEARCHES, onItemError: 'warn-and-skip' } satisfies ListInput

export const mapsInput = Type.Object({
  query: searchText('A map search as you would type it into Google Maps, e.g. "dentists in Austin TX", or a list of them. Give this or prompt.'),
  prompt: searchText('A plain-English request, e.g. "find coffee shops near Brooklyn, NY", split into what and where; or a list of them. Give this or query.'),
  max_results: Defaulted(Type.Integer({ minimum: 1, description: 'How many listings to return per search (default 20); clamped to the plan\'s per-run ceiling, which spans every search of a list.' }), 20),
  deep_scan: Defaulted(Type.Boolean({ description: 'Also crawl each listing\'s website for e-mails, phones and social links (slower).' }), false),
  location: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Where to search when the query or prompt does not say, e.g. "Austin, TX" or "90210".' })),
  country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Two-letter country code to bias results, e.g. us, gb, de.' })),
  language: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$', description: 'Language of names and categories, e.g. en, de, pt-BR.' })),
  source: Defaulted(Type.Enum(SOURCE_CHOICES, { type: 'string', description: 'Leave as auto: the configured sources are tried in order (those with API keys), OpenStreetMap last. Naming one uses only that source.' }), 'auto'),
}, {
  additionalProperties: false,
  // One of the two is required: checked with the rest of the schema, so a call with neither is refused before any charge.
  anyOf: [{ required: ['query'] }, { required: ['prompt'] }],
})
export type MapsInput = RunInput<typeof mapsInput>

const socialSchema = Type.Object({ platform: Type.String(), url: Type.String(), host: Type.String() })

export const mapsRow = Type.Object({
  query: Type.String({ description: 'The query or prompt (as given) whose search found this listing.' }),
  name: Type.String({ description: 'Business name.' }),
  category: Nullable(Type.String(), { description: 'Business category as the source names it (e.g. Dentist, Cafe (pizza)).' }),
  address: Nullable(Type.String(), { description: 'Postal address as one line.' }),
  phone: Nullable(Type.String(), { description: 'Phone number as listed.' }),
  website: Nullable(Type.String(), { description: 'Website URL as listed.' }),
  rating: Nullable(Type.Number(), { description: 'Average rating (Google sources; null for OpenStreetMap).' }),
  review_count: Nullable(Type.Integer(), { description: 'Number of ratings or reviews.' }),
  latitude: Nullable(Type.Number(), { description: 'WGS84 latitude.' }),
  longitude: Nullable(Type.Number(), { description: 'WGS84 longitude.' }),
  source_id: Nullable(Type.String(), { description: 'The listing id at its source: Google cid or place id, or OSM node/way/relation id.' }),
  source: Type.String({ description: 'Which source answered: serper, serpapi, google_places or osm.' }),
  emails: Type.Optional(Type.Array(Type.String(), { description: 'deep_scan: e-mail addresses found on the website.' })),
  phones: Type.Optional(Type.Array(Type.String(), { description: 'deep_scan: phone numbers (E.164), the listing\'s first, then the website\'s.' })),
  socials: Type.Optional(Type.Array(socialSchema, { description: 'deep_scan: social-profile links found on the website.' })),
  deep_scan_error: Type.Optional(Type.String({ description: 'deep_scan: why the website could not be scanned.' })),
})
export type MapsRow = Static<typeof mapsRow>
