// Tool `adleads` / agent `ad_library_lead_finder`: local businesses from a maps
// search, each checked for Meta and Google ads (the maps, fbads and gads tools).
import { Defaulted, defineTool, Nullable, NullableFields, Type } from '../../core/tools/contract.ts'
import { AdleadsSettingsSchema } from './settings.ts'

export const adleadsRow = Type.Object({
  name: Type.String(),
  ...NullableFields(Type.String(), 'category', 'address', 'phone', 'website'),
  domain: Nullable(Type.String({ description: 'The business\'s own website domain (listing and social sites left out).' })),
  rating: Nullable(Type.Number()),
  review_count: Nullable(Type.Integer()),
  ...NullableFields(Type.String(), 'maps_source', 'maps_id'),
  runs_meta_ads: Nullable(Type.Boolean(), { description: 'Ads of this business in the Meta Ad Library; null when the check could not run (see meta_reason).' }),
  meta_ads_count: Nullable(Type.Integer()),
  meta_page_ids: Type.Array(Type.String()),
  ...NullableFields(Type.String(), 'meta_page_name', 'meta_reason'),
  runs_google_ads: Nullable(Type.Boolean(), { description: 'Google ads shown in the last few days; null when the check could not run (see google_reason).' }),
  google_ads_count: Nullable(Type.Integer()),
  ...NullableFields(Type.String(), 'google_advertiser_id', 'google_advertiser_name', 'google_last_shown'),
  google_matched_by: Nullable(Type.Union([Type.Literal('domain'), Type.Literal('name')])),
  google_reason: Nullable(Type.String()),
})

export default defineTool({
  key: 'adleads',
  agentName: 'ad_library_lead_finder',
  title: 'Ad library lead finder',
  description: 'Finds local businesses of a kind in a city (a maps search) and checks each one for advertising: runs_meta_ads from the Meta Ad Library (its Facebook/Instagram ads in the country) and runs_google_ads from the Google Ads Transparency Center (ads shown in the last few days, matched by the business website\'s domain, else by name), with ad counts, page and advertiser ids. One row per business with the listing\'s name, category, address, phone, website and rating. A check that could not run is null with the reason (e.g. META_ACCESS_TOKEN not set). Use it to find businesses that do, or do not yet, advertise. Example: {"niche": "dentists", "city": "Austin TX", "limit": 20}.',
  input: Type.Object({
    niche: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Kind of business, e.g. "dentists". With city.' })),
    city: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Where, e.g. "Austin TX". With niche.' })),
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Instead of niche and city: the whole search, e.g. "dentists in Austin TX".' })),
    country: Defaulted(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Country of the businesses: biases the maps search and is the Ad Library\'s reached country.' }), 'US'),
    max_results: Defaulted(Type.Integer({ minimum: 1, description: 'Businesses checked at most; clamped to the plan\'s per-run ceiling.' }), 20),
    check_meta: Defaulted(Type.Boolean(), true),
    check_google: Defaulted(Type.Boolean(), true),
    meta_active_only: Defaulted(Type.Boolean({ description: 'Count only Meta ads running now (else every ad in the library).' }), true),
  }, {
    additionalProperties: false,
    // query, or niche with city: the kernel refuses a call with neither (400, uncharged).
    anyOf: [{ required: ['query'] }, { required: ['niche', 'city'] }],
  }),
  row: adleadsRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['maps_source', 'maps_id'],
  watch: ['name', 'rating', 'review_count', 'runs_meta_ads', 'meta_ads_count', 'runs_google_ads', 'google_ads_count', 'google_last_shown'],
  renames: { limit: 'max_results' },
  examples: [
    { task: 'find dentists in a city and whether they run Facebook or Google ads', args: { niche: 'dentists', city: 'Austin TX', country: 'US', max_results: 20, check_meta: true, check_google: true, meta_active_only: true } },
    { task: 'which roofers in Leeds advertise on Google', args: { query: 'roofers in Leeds', country: 'GB', max_results: 30, check_meta: false, check_google: true, meta_active_only: true } },
  ],
  keywords: ['businesses that advertise', 'not advertising', 'no ads', 'do not advertise', 'without ads', 'local businesses running ads', 'ad prospects', 'marketing agency leads', 'prospecting', 'prospects for an agency', 'shops, restaurants or clinics that advertise', 'buy ads', 'which businesses run ads', 'facebook and google ads', 'businesses in a city', 'niche and city'],
  cues: ['not advertising', 'no ads', 'without ads', 'whether they advertise', 'whether each advertises', 'ad prospects', 'leads who advertise', 'marketing agency', 'outreach', 'local businesses advertising', 'facebook or google', 'meta or google'],
  notFor: ['ad creatives', 'ad copy', 'ad spend', 'political', 'transparency center', 'advertiser id'],
  pollSeconds: 5,
  timeoutSeconds: 1800,
  settings: AdleadsSettingsSchema,
  // Its nested runs: the businesses come from maps, the ad checks from fbads and gads.
  uses: ['maps', 'fbads', 'gads'],
  // The run module (and its parsing libraries) loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runAdleads(ctx),
})
