// The operator's settings for maps (tools.config.json, the `settings` of the
// `maps` entry), with their defaults; the kernel validates them at boot and
// runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Concurrency, Milliseconds } from '../lib/settings.ts'

const ms = (fallback: number, max: number, description: string) => Type.Integer({ minimum: 0, maximum: max, default: fallback, description })

const DEFAULT_OSM_USER_AGENT = 'extraction-jobs/1.0 (self-hosted data-extraction service, maps tool; contact: operator@example.invalid)'

export const MapsSettingsSchema = Type.Object({
  sources: Type.Array(Type.Union([Type.Literal('serper'), Type.Literal('serpapi'), Type.Literal('google_places'), Type.Literal('osm')]), { minItems: 1, default: ['serper', 'serpapi', 'google_places', 'osm'], description: 'Sources tried, in this order.' }),
  serper_endpoint: Type.Union([Type.Literal('places'), Type.Literal('maps')], { default: 'places', description: 'Serper endpoint: /places or /maps.' }),
  google_places_api: Type.Union([Type.Literal('new'), Type.Literal('legacy')], { default: 'new', description: 'Places API (New) or the legacy Places API.' }),
  places_details: Type.Boolean({ default: true, description: 'Legacy API: read Place Details for website and phone.' }),
  places_page_delay_ms: ms(2000, 60_000, 'Wait before a Places next_page_token is usable.'),
  // Absent: each source's own page count (5 for Serper and SerpApi, 3 for Google Places).
  max_pages_per_source: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Pages read from one source.' })),
  request_timeout_ms: Type.Integer({ minimum: 1, maximum: 300_000, default: 20_000, description: 'Timeout of one request.' }),
  osm_user_agent: Type.String({ minLength: 1, default: DEFAULT_OSM_USER_AGENT, description: 'User-Agent sent to Nominatim and Overpass (their policies ask for a contact).' }),
  osm_min_interval_ms: ms(1000, 60_000, 'Gap between requests to one OpenStreetMap host (never below 1 s for the public ones).'),
  osm_max_bbox_degrees: Type.Number({ exclusiveMinimum: 0, maximum: 10, default: 1, description: 'Largest box, in degrees, searched around a place.' }),
  osm_geocode_cache_ttl_ms: ms(86_400_000, 30 * 86_400_000, 'How long a geocoded place is reused.'),
  overpass_timeout_ms: Milliseconds(25_000, 'Timeout of one Overpass query (whole seconds reach Overpass).', 600_000),
  deep_scan_max_pages: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Pages the deep scan reads per website (webemail max_pages).' }),
  concurrency: Concurrency(3, 20, 'Websites deep-scanned at once.'),
  default_phone_country: Type.String({ pattern: '^[A-Za-z]{2}$', default: 'US', description: 'Country of listing phones when the input gives none.' }),
}, { additionalProperties: false })

export type MapsSettings = Static<typeof MapsSettingsSchema>
