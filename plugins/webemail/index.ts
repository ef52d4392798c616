// Tool `webemail` / agent `website_email_find`: public e-mails, phones and
// social links of one site (or a list of sites), from a same-site crawl.
import { Defaulted, defineTool, OneOrMany, Type, WebsiteUrl } from '../../core/tools/contract.ts'
import { WebemailSettingsSchema } from './settings.ts'
import { findAlias } from './find-alias.ts'

const Social = Type.Object({ platform: Type.String(), url: Type.String(), host: Type.String() })

const WebemailRow = Type.Object({
  website: Type.String(),
  domain: Type.String(),
  pages_scanned: Type.Integer(),
  emails: Type.Array(Type.String()),
  phones: Type.Array(Type.String()),
  socials: Type.Array(Social),
  results: Type.Array(Type.Object({ email: Type.String(), type: Type.Union([Type.Literal('personal'), Type.Literal('role')]), domain: Type.String(), source_page: Type.String() })),
  count: Type.Integer(),
  error: Type.Optional(Type.String()),
})

const webemail = defineTool({
  key: 'webemail',
  agentName: 'website_email_find',
  title: 'Website e-mail finder',
  description: 'Crawls one website (same-site pages only, contact/about/team pages first, sitemap when present) and returns its public e-mail addresses, each typed personal or role with the page it was found on, plus normalised phone numbers (E.164) and social-profile links. De-obfuscates "name [at] domain [dot] com", HTML entities, Cloudflare-protected and percent-encoded mailto addresses. Use it to find contact details of a known company website. Example: {"website": "acme.com", "limit": 20} (limit: pages crawled per site). A list of sites gives one row per site.',
  input: Type.Object({
    website: OneOrMany(WebsiteUrl({ minLength: 1 }), { maxItems: 1000, description: 'A site URL or bare host (acme.com), or a list of them.' }),
    max_pages: Defaulted(Type.Integer({ minimum: 1, description: 'Crawl budget per site; clamped to the plan\'s per-run ceiling.' }), 25),
    include_phones: Defaulted(Type.Boolean(), true),
    include_socials: Defaulted(Type.Boolean(), true),
  }, { additionalProperties: false }),
  row: WebemailRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['website'],
  watch: ['emails', 'phones', 'count'],
  renames: { limit: 'max_pages' },
  examples: [
    { task: 'find the contact email addresses of a company website', args: { website: 'acme.com', max_pages: 20, include_phones: true, include_socials: true } },
    { task: 'get phone numbers and social media links from a site', args: { website: 'https://example.org', max_pages: 10, include_phones: true, include_socials: true } },
  ],
  keywords: ['contact details', 'contact info', 'contact email', 'email finder', 'find emails', 'get in touch', 'reach', 'who to contact', 'phone numbers', 'social media links', 'social profiles', 'linkedin', 'instagram link', 'twitter', 'mailto', 'contact page', 'about page', 'team page', 'email scraper', 'crawl a website', 'emails of a domain', 'email address for each domain', 'company emails', 'owner email'],
  cues: ['crawl', 'emails on a website', 'emails of a domain', 'contact details of a website', 'phone numbers on a website', 'social links on a website', 'scrape emails', 'email finder'],
  notFor: ['facebook', 'fb', 'verify', 'bounce', 'deliverable', 'disposable', 'temporary', 'throwaway', 'mail service', 'mail provider', 'google maps'],
  settings: WebemailSettingsSchema,
  renamedSettings: { max_concurrency: { to: 'concurrency' }, page_timeout_secs: { to: 'page_timeout_ms', fromSeconds: true } },
  aliases: [findAlias(WebemailRow)],
  // The run module (and its parsing libraries) loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runWebemail(ctx),
})
export default webemail

// Tools that run this one (ctx.tools.run('webemail', …)) get its input and row types from here.
declare module '../../core/tools/contract.ts' {
  interface NestedTools { webemail: typeof webemail }
}
