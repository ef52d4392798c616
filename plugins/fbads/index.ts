// Tool `fbads` / agent `socialA_ads_scrape`: ads from the Meta Ad Library API.
import { Defaulted, defineTool, Nullable, NullableFields, Type } from '../../core/tools/contract.ts'
import { FbadsSettingsSchema } from './settings.ts'

const Range = Nullable(Type.Object({ lower: Nullable(Type.Number()), upper: Nullable(Type.Number()) }))

export const adRow = Type.Object({
  ...NullableFields(Type.String(), 'ad_id', 'page_id', 'page_name', 'ad_creation_time', 'delivery_start', 'delivery_stop'),
  active: Nullable(Type.Boolean({ description: 'Still delivering: no stop time, or a stop time in the future.' })),
  creative_bodies: Type.Array(Type.String()),
  link_titles: Type.Array(Type.String()),
  link_captions: Type.Array(Type.String()),
  link_descriptions: Type.Array(Type.String()),
  snapshot_url: Nullable(Type.String({ description: 'The ad\'s render URL, without the access token.' })),
  ad_library_url: Nullable(Type.String()),
  platforms: Type.Array(Type.String()),
  languages: Type.Array(Type.String()),
  currency: Nullable(Type.String()),
  spend: Range,
  impressions: Range,
  audience_size: Range,
  funded_by: Nullable(Type.String()),
  reached_countries: Type.Array(Type.String()),
})

const Country = Type.String({ pattern: '^[A-Za-z]{2}$' })

const fbads = defineTool({
  key: 'fbads',
  agentName: 'socialA_ads_scrape',
  title: 'Meta Ad Library search',
  description: 'Searches the Meta (Facebook/Instagram) Ad Library for ads by keyword or brand (`query`) or by advertiser page id (`search_page_ids`), in the countries the ads reached, active, inactive or all. One row per ad: ad id, page name and id, creative texts (bodies, link titles, captions, descriptions), delivery start and stop, whether it is still running, the snapshot and Ad Library URLs, platforms, languages, and spend/impressions ranges where Meta publishes them (political and issue ads). Needs META_ACCESS_TOKEN on the server. Example: {"query": "running shoes", "ad_reached_countries": ["US"], "ad_active_status": "ACTIVE", "limit": 50}.',
  input: Type.Object({
    search_terms: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Keyword or brand; at least one of search_terms or search_page_ids.' })),
    search_page_ids: Type.Optional(Type.Array(Type.String({ pattern: '^\\d{1,20}$' }), { minItems: 1, maxItems: 10, description: 'Advertiser Facebook page ids.' })),
    ad_reached_countries: Defaulted(Type.Array(Country, { minItems: 1, maxItems: 30, description: 'ISO country codes the ads reached.' }), ['US']),
    ad_active_status: Defaulted(Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE'), Type.Literal('ALL')]), 'ALL'),
    ad_type: Defaulted(Type.Union([Type.Literal('ALL'), Type.Literal('POLITICAL_AND_ISSUE_ADS'), Type.Literal('HOUSING_ADS'), Type.Literal('EMPLOYMENT_ADS'), Type.Literal('CREDIT_ADS')]), 'ALL'),
    search_type: Defaulted(Type.Union([Type.Literal('KEYWORD_UNORDERED'), Type.Literal('KEYWORD_EXACT_PHRASE')]), 'KEYWORD_UNORDERED'),
    publisher_platforms: Type.Optional(Type.Array(Type.Union([Type.Literal('FACEBOOK'), Type.Literal('INSTAGRAM'), Type.Literal('AUDIENCE_NETWORK'), Type.Literal('MESSENGER'), Type.Literal('WHATSAPP'), Type.Literal('OCULUS'), Type.Literal('THREADS')]), { minItems: 1 })),
    ad_delivery_date_min: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
    ad_delivery_date_max: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
    max_results: Defaulted(Type.Integer({ minimum: 1, description: 'Ads returned at most; clamped to the plan\'s per-run ceiling.' }), 50),
  }, {
    additionalProperties: false,
    // Terms or page ids: the kernel refuses a call with neither (400, uncharged).
    anyOf: [{ required: ['search_terms'] }, { required: ['search_page_ids'] }],
  }),
  row: adRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['ad_id'],
  watch: ['active', 'delivery_stop', 'spend', 'impressions', 'reached_countries'],
  renames: { limit: 'max_results', query: 'search_terms' },
  examples: [
    { task: 'find the Facebook ads a brand is running now in the US', args: { search_terms: 'acme coffee', ad_reached_countries: ['US'], ad_active_status: 'ACTIVE', ad_type: 'ALL', search_type: 'KEYWORD_UNORDERED', max_results: 50 } },
    { task: 'list every ad of an advertiser page in Germany and France', args: { search_page_ids: ['48034275355'], ad_reached_countries: ['DE', 'FR'], ad_active_status: 'ALL', ad_type: 'ALL', search_type: 'KEYWORD_UNORDERED', max_results: 100 } },
  ],
  keywords: ['facebook ads', 'instagram ads', 'meta ads', 'meta ad library', 'facebook ad library', 'ad library', 'ad creatives', 'ad copy', 'ad spend', 'political ads', 'issue ads', 'impressions', 'sponsored posts', 'facebook page', 'page id', 'active ads', 'running ads', 'competitor ads', 'ad text', 'messenger', 'whatsapp', 'threads'],
  cues: ['facebook ads', 'instagram ads', 'meta ads', 'advertising on facebook', 'advertising on instagram', 'ad library', 'ad archive', 'political ads', 'ad spend'],
  notFor: ['google ads', 'advertising on google', 'youtube ads', 'transparency center', 'adwords', 'search ads', 'not advertising', 'no ads', 'whether they advertise', 'local businesses', 'prospects', 'leads'],
  settings: FbadsSettingsSchema,
  // The run module (and its parsing libraries) loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runFbads(ctx),
})
export default fbads

// Tools that run this one (ctx.tools.run('fbads', …)) get its input and row types from here.
declare module '../../core/tools/contract.ts' {
  interface NestedTools { fbads: typeof fbads }
}
