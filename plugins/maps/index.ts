// Tool `maps` / agent `maps_search` (also POST /api/scrape): business
// listings from a map search. Sources, in the configured order: Serper,
// SerpApi google_maps, Google Places Text Search (each when its key is set),
// then keyless OpenStreetMap (Nominatim + Overpass). See README.md.
import { defineTool } from '../../core/tools/contract.ts'
import { findLeadsInCity } from './leads-prompt.ts'
import { scrapeAlias } from './scrape-alias.ts'
import { mapsInput, mapsRow, PROMPTS_LIST, QUERIES_LIST } from './schema.ts'
import { MapsSettingsSchema } from './settings.ts'
import { createMapsState } from './state.ts'

const maps = defineTool({
  key: 'maps',
  agentName: 'maps_search',
  title: 'Maps business listings',
  description: [
    'Searches map listings for local businesses and returns one row per business: name, category, address, phone, website, rating, review_count, latitude, longitude, source_id and the source that answered (serper, serpapi, google_places or osm).',
    'Give query (as typed into Google Maps) or prompt (plain English such as "dentists in Austin TX", split into what and where).',
    'With deep_scan it also crawls each listing\'s website and adds emails, phones and socials (slower).',
    'Use it to build lead lists of businesses of a kind in a city or postcode.',
    'Example: {"prompt": "coffee shops near Brooklyn, NY", "limit": 20, "deep_scan": false}.',
  ].join(' '),
  input: mapsInput,
  row: mapsRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['source', 'source_id'],
  watch: ['name', 'category', 'address', 'phone', 'website', 'rating', 'review_count'],
  renames: { limit: 'max_results' },
  examples: [
    { task: 'find dentists in a city with phone numbers and websites', args: { prompt: 'dentists in Austin TX', max_results: 20 } },
    { task: 'list businesses from a map search and find their e-mail addresses', args: { query: 'plumbers in Denver, CO', max_results: 10, deep_scan: true } },
    { task: 'search a business category in a place given separately', args: { query: 'vegan restaurants', location: 'Shoreditch, London', country: 'gb', max_results: 20 } },
  ],
  keywords: ['local businesses', 'business listings', 'google maps', 'map search', 'places', 'near me', 'nearby', 'in a city', 'town', 'neighbourhood', 'postcode', 'zip code', 'street address', 'ratings', 'reviews', 'latitude and longitude', 'coordinates', 'lead list', 'leads', 'prospects', 'yellow pages', 'business directory', 'openstreetmap', 'shops', 'restaurants', 'cafes', 'salons', 'clinics', 'contractors', 'dentists', 'plumbers', 'lawyers', 'gyms', 'hotels', 'agencies'],
  cues: ['near', 'nearby', 'google maps', 'map listings', 'local', 'in the area', 'around', 'city centre', 'downtown', 'opening hours'],
  notFor: ['ads', 'facebook page', 'fb page', 'tweets'],
  prompts: [findLeadsInCity],
  aliases: [scrapeAlias],
  pollSeconds: 3,
  settings: MapsSettingsSchema,
  list: [QUERIES_LIST, PROMPTS_LIST],
  renamedSettings: { osm_geocode_cache_ttl_s: { to: 'osm_geocode_cache_ttl_ms', fromSeconds: true }, overpass_timeout_s: { to: 'overpass_timeout_ms', fromSeconds: true }, deep_scan_concurrency: { to: 'concurrency' } },
  // deep_scan runs webemail on each listing's website.
  uses: ['webemail'],
  createState: (settings, { shared }) => createMapsState(shared, settings.request_timeout_ms),
  // The run module (and its parsing libraries) loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runMaps(ctx),
})
export default maps

// Tools that run this one (ctx.tools.run('maps', …)) get its input and row types from here.
declare module '../../core/tools/contract.ts' {
  interface NestedTools { maps: typeof maps }
}
