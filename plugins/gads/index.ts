// Tool `gads` / agent `ads_transparency`: is an advertiser running Google ads,
// from the public Google Ads Transparency Center.
import { Defaulted, defineTool, Nullable, NullableFields, OneOrMany, Type, WebsiteUrl } from '../../core/tools/contract.ts'
import { GadsSettingsSchema } from './settings.ts'
import { DOMAINS_LIST, MAX_DOMAINS } from './list.ts'

export const gadsRow = Type.Object({
  query: Type.String(),
  source: Type.Union([Type.Literal('domain'), Type.Literal('name')]),
  found: Type.Boolean(),
  ...NullableFields(Type.String(), 'advertiser_id', 'advertiser_name', 'advertiser_region', 'domain'),
  running_now: Type.Boolean({ description: 'A creative was last shown within the last few days (settings.running_within_days, default 3).' }),
  ad_count: Nullable(Type.Integer({ description: 'The Transparency Center\'s ad count (lower bound of its range), or the creatives seen.' })),
  ad_count_range: Nullable(Type.Object({ lower: Nullable(Type.Integer()), upper: Nullable(Type.Integer()) })),
  creatives_seen: Type.Integer(),
  regions: Type.Array(Type.String(), { description: 'Of regions_checked, those where ads were found.' }),
  regions_checked: Type.Array(Type.String()),
  ...NullableFields(Type.String(), 'first_shown', 'last_shown'),
  formats: Type.Object({ text: Type.Integer(), image: Type.Integer(), video: Type.Integer() }),
  sample_creatives: Type.Array(Type.Object({
    creative_id: Type.String(), format: Type.String(), first_shown: Nullable(Type.String()), last_shown: Nullable(Type.String()),
    preview_url: Nullable(Type.String()), url: Type.String(),
  })),
  transparency_url: Nullable(Type.String()),
})

const gads = defineTool({
  key: 'gads',
  agentName: 'ads_transparency',
  title: 'Google Ads Transparency lookup',
  description: 'Looks an advertiser up in the public Google Ads Transparency Center, by website domain (most precise) or by name: whether it is running Google ads now, how many ads it has, when an ad was last and first shown, text/image/video counts, the regions (of those asked) where its ads show, its advertiser id and Transparency Center link, and a few sample creatives. One row per matching advertiser; a row with found=false when there is none. Example: {"domain": "acme.com", "regions": ["US"]}, {"domain": ["acme.com", "globex.com"]} or {"query": "Acme Coffee Roasters"} (an advertiser or business name).',
  input: Type.Object({
    advertiser: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Advertiser or business name.' })),
    domain: Type.Optional(OneOrMany(WebsiteUrl({ minLength: 3, maxLength: 500 }), {
      maxItems: MAX_DOMAINS,
      description: 'The advertiser\'s website (acme.com or a URL), or a list of websites: each is looked up in turn and each row names its domain in query.',
    })),
    regions: Defaulted(Type.Array(Type.String({ pattern: '^[A-Za-z]{2}$' }), { maxItems: 10, description: 'ISO country codes to check one by one; empty: anywhere.' }), []),
    max_results: Defaulted(Type.Integer({ minimum: 1, maximum: 20, description: 'Advertisers reported at most per lookup (a name can match several); a larger value is clamped to 20 and to the plan\'s per-run ceiling.' }), 3),
    max_creatives: Defaulted(Type.Integer({ minimum: 1, maximum: 500, description: 'Creatives read per advertiser and region.' }), 40),
  }, {
    additionalProperties: false,
    // A name or a domain: the kernel refuses a call with neither (400, uncharged).
    anyOf: [{ required: ['advertiser'] }, { required: ['domain'] }],
  }),
  row: gadsRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['query', 'advertiser_id'],
  watch: ['running_now', 'ad_count', 'last_shown', 'regions', 'formats'],
  renames: { limit: 'max_results', query: 'advertiser' },
  perRunFields: ['max_results'],
  examples: [
    { task: 'check whether a company is running Google ads right now', args: { domain: 'acme.com', regions: [], max_results: 3, max_creatives: 40 } },
    { task: 'how many Google ads does an advertiser run in the UK and Germany', args: { advertiser: 'Acme Coffee Roasters', regions: ['GB', 'DE'], max_results: 3, max_creatives: 40 } },
  ],
  keywords: ['google ads', 'adwords', 'google ads transparency center', 'paid search', 'ppc', 'search ads', 'youtube ads', 'display ads', 'sem', 'advertising on google', 'advertiser id', 'google advertiser', 'ad count', 'last shown', 'competitor advertising', 'sponsored results'],
  cues: ['google ads', 'advertising on google', 'youtube ads', 'transparency', 'search ads', 'display ads', 'paid search', 'ppc', 'adwords', 'advertiser id'],
  notFor: ['facebook ads', 'instagram ads', 'meta ads', 'ad library', 'not advertising', 'no ads', 'whether they advertise', 'local businesses', 'prospects', 'leads'],
  settings: GadsSettingsSchema,
  list: DOMAINS_LIST,
  // The run module (and its parsing libraries) loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runGads(ctx),
})
export default gads

// Tools that run this one (ctx.tools.run('gads', …)) get its input and row types from here.
declare module '../../core/tools/contract.ts' {
  interface NestedTools { gads: typeof gads }
}
