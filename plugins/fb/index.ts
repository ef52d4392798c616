// Tool `fb` / agent `socialA_page_scrape`: a Facebook page's public details
// (name, category, about, contacts, counts, verified, pictures) from its
// logged-out HTML, and from the Graph API first when META_ACCESS_TOKEN is set.
import { defineTool } from '../../core/tools/contract.ts'
import { PAGES_LIST } from './list.ts'
import { FbSettingsSchema } from './settings.ts'
import { fbInput, fbPageRow } from './schema.ts'

export { MAX_PAGES } from './list.ts'

export default defineTool({
  key: 'fb',
  agentName: 'socialA_page_scrape',
  title: 'Facebook page details',
  description: 'Reads a public Facebook page: name, page id and vanity name, category, about text, website, phone, e-mail, address, followers, likes, talking-about count, verified badge, profile and cover image URLs. Takes a page URL (www, m, mbasic or web.facebook.com, /pages/<name>/<id>, profile.php?id=), a vanity name or a numeric id, or a list of them; one row per page (`found: false` for a page that does not exist). Uses the Graph API page fields when the server has META_ACCESS_TOKEN, and the logged-out page otherwise or for what the API leaves out; `source` says which. A login, checkpoint or cookie-consent wall ends the call blocked and refunded. Example: {"page": "https://www.facebook.com/Nintendo"}; {"page": ["cocacola", "119240841493711"]}.',
  input: fbInput,
  row: fbPageRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['input_url'],
  watch: ['name', 'category', 'followers', 'likes', 'talking_about', 'website', 'phone', 'email', 'verified'],
  examples: [
    { task: 'get the contact details and follower count of a Facebook page', args: { page: 'https://www.facebook.com/Nintendo' } },
    { task: 'read the about, category and website of several Facebook business pages', args: { page: ['cocacola', 'https://m.facebook.com/pages/Meedan/105510962816034'] } },
  ],
  keywords: ['facebook page', 'fb page', 'facebook business page', 'page info', 'page details', 'about section', 'page category', 'page likes', 'followers', 'follower count', 'fan count', 'verified page', 'blue badge', 'profile picture', 'cover photo', 'vanity url', 'page id', 'graph api', 'fb.com', 'meta page', 'facebook contact details', 'facebook business address', 'fb contact'],
  cues: ['facebook page', 'fb page', 'facebook about'],
  notFor: ['ads', 'video', 'reel', 'download', 'thumbnail', 'tweets'],
  settings: FbSettingsSchema,
  list: PAGES_LIST,
  // The run module loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runFb(ctx),
})
