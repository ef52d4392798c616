// Tool `socialB` / agent `socialB_scrape`: an Instagram account's followers or
// following, through the web API with a logged-in session.
import { defineTool } from '../../core/tools/contract.ts'
import { SocialBSettingsSchema } from './settings.ts'
import { ACCOUNTS_LIST } from './list.ts'
import { socialBInput, socialBRow } from './schema.ts'

export default defineTool({
  key: 'socialB',
  agentName: 'socialB_scrape',
  title: 'Instagram followers and following',
  description: 'Lists the followers of an Instagram account, or the accounts it follows (`relation`: "followers" or "following"), through Instagram\'s web API with the server\'s logged-in session. One row per account: username, full name, numeric id, verified, private, profile picture URL, and which account\'s list it is from. Takes a username, @name or profile link, or a list of them. Paced between pages; a checkpoint, login or rate-limit answer from Instagram ends the call (refunded). Needs INSTAGRAM_SESSION_ID on the server. Example: {"username": "nasa", "relation": "followers", "limit": 100}.',
  input: socialBInput,
  row: socialBRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['of_username', 'relation', 'id'],
  watch: ['username', 'full_name', 'verified', 'private'],
  renames: { limit: 'max_results' },
  examples: [
    { task: 'list the followers of an Instagram account', args: { username: 'nasa', relation: 'followers', max_results: 100 } },
    { task: 'who does this Instagram profile follow', args: { username: 'https://www.instagram.com/natgeo/', relation: 'following', max_results: 200 } },
  ],
  keywords: ['instagram', 'insta', 'ig', 'followers', 'follower list', 'following', 'follows', 'audience', 'fans', 'profile', 'account', 'sessionid'],
  cues: ['followers', 'following', 'follows'],
  notFor: ['reel', 'video', 'download', 'cover', 'thumbnail', 'caption', 'subtitles', 'facebook', 'twitter', 'tweets', 'youtube', 'tiktok', 'ads'],
  pollSeconds: 5,
  settings: SocialBSettingsSchema,
  list: ACCOUNTS_LIST,
  // The run module loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runSocialB(ctx),
})
