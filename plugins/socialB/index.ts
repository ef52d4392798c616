// Tool `socialB` / agent `socialB_scrape`: an Instagram account's followers or
// following, through the web API with a logged-in session.
import { Defaulted, defineTool, Nullable, NullableFields, OneOrMany, Type } from '../../core/tools/contract.ts'
import { SocialBSettingsSchema } from './settings.ts'
import { ACCOUNTS_LIST, MAX_ACCOUNTS } from './list.ts'

const Account = Type.String({ minLength: 1, maxLength: 300 })

export const socialBInput = Type.Object({
  username: OneOrMany(Account, { maxItems: MAX_ACCOUNTS, description: 'The Instagram account (name, @name or profile link) whose list to read, or a list of them.' }),
  relation: Defaulted(Type.Union([Type.Literal('followers'), Type.Literal('following')], { description: 'followers: who follows the account; following: whom it follows.' }), 'followers'),
  max_results: Defaulted(Type.Integer({ minimum: 1, description: 'Accounts returned at most over the whole call; clamped to the plan\'s per-run ceiling.' }), 100),
}, { additionalProperties: false })

export const socialBRow = Type.Object({
  of_username: Type.String({ description: 'The account whose list this row is from.' }),
  relation: Type.Union([Type.Literal('followers'), Type.Literal('following')]),
  username: Type.String(),
  full_name: Nullable(Type.String()),
  id: Type.String({ description: 'Instagram\'s numeric user id (pk).' }),
  ...NullableFields(Type.Boolean(), 'verified', 'private'),
  profile_pic_url: Nullable(Type.String()),
})

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
