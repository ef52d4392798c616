// Tool `microblog` / agent `microblog_scrape`: posts from the X API v2 by
// recent search, a user's timeline, or post links/ids, with the author and
// the engagement counts on every row.
import { Defaulted, defineTool, LinkOrId, Nullable, NullableFields, OneOrMany, Type } from '../../core/tools/contract.ts'
import { MicroblogSettingsSchema } from './settings.ts'
import { MAX_ITEMS, POSTS_LIST, QUERIES_LIST, USERNAMES_LIST } from './list.ts'

const Count = Nullable(Type.Integer({ minimum: 0 }))


export const microblogInput = Type.Object({
  query: Type.Optional(OneOrMany(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: MAX_ITEMS, description: 'A recent-search query in X search syntax (last 7 days), e.g. "from:nasa has:media" or "#python -is:retweet", or a list of them.' })),
  username: Type.Optional(OneOrMany(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: MAX_ITEMS, description: 'A username (@name, name or a profile link) whose recent posts to read, or a list of them.' })),
  url: Type.Optional(OneOrMany(LinkOrId(), { maxItems: MAX_ITEMS, description: 'A post link (x.com/<user>/status/<id>, twitter.com links) or a post id, or a list of them.' })),
  sort_order: Defaulted(Type.Union([Type.Literal('recency'), Type.Literal('relevancy')], { description: 'Search only: newest first, or most relevant first.' }), 'recency'),
  exclude_replies: Defaulted(Type.Boolean({ description: 'Timeline only: leave replies out.' }), false),
  exclude_reposts: Defaulted(Type.Boolean({ description: 'Timeline only: leave reposts (retweets) out.' }), false),
  max_results: Defaulted(Type.Integer({ minimum: 1, description: 'Posts returned at most over the whole call; clamped to the plan\'s per-run ceiling.' }), 50),
}, {
  additionalProperties: false,
  // Exactly one way in: the kernel refuses none or several (400, uncharged).
  oneOf: [{ required: ['query'] }, { required: ['username'] }, { required: ['url'] }],
})

export const microblogRow = Type.Object({
  mode: Type.Union([Type.Literal('search'), Type.Literal('timeline'), Type.Literal('post')], { description: 'How the post was found.' }),
  input: Type.String({ description: 'The query, username or link (of the list) this row came from.' }),
  id: Type.String(),
  url: Type.String(),
  text: Type.String(),
  ...NullableFields(Type.String(), 'created_at', 'lang', 'conversation_id', 'in_reply_to_user_id'),
  referenced_tweets: Type.Array(Type.Object({ type: Type.String({ description: 'replied_to, quoted or retweeted' }), id: Type.String() })),
  hashtags: Type.Array(Type.String()),
  mentions: Type.Array(Type.String()),
  links: Type.Array(Type.String({ description: 'Expanded links of the post.' })),
  possibly_sensitive: Nullable(Type.Boolean()),
  ...NullableFields(Type.String(), 'author_id', 'author_username', 'author_name'),
  author_verified: Nullable(Type.Boolean()),
  author_followers: Count,
  author_profile_image_url: Nullable(Type.String()),
  like_count: Count,
  repost_count: Count,
  reply_count: Count,
  quote_count: Count,
  bookmark_count: Count,
  impression_count: Nullable(Type.Integer({ minimum: 0, description: 'When the API shows it (null otherwise).' })),
})

export default defineTool({
  key: 'microblog',
  agentName: 'microblog_scrape',
  title: 'X (Twitter) posts scrape',
  description: 'Reads posts (tweets) from X (Twitter) through the official X API v2: tweets of the last 7 days matching a `query` (X search syntax), a user\'s timeline by `username`, or given tweets by `url` (status URL or id); each may be a list. One row per tweet: id, status URL, text, time, language, hashtags, mentions, expanded URLs, reply/quote/repost references, the author (username, name, verified, followers, avatar) and engagement counts (likes, reposts, replies, quotes, bookmarks, impressions when shown). Needs X_BEARER_TOKEN on the server. Example: {"query": "#opensource -is:retweet", "limit": 50}; {"username": "nasa", "limit": 20}; {"url": "https://x.com/XDevelopers/status/1293593516040269825"}.',
  input: microblogInput,
  row: microblogRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['id'],
  watch: ['text', 'like_count', 'repost_count', 'reply_count', 'quote_count', 'impression_count'],
  renames: { limit: 'max_results' },
  examples: [
    { task: 'tweets about a topic with their likes and retweets', args: { query: '#opensource -is:retweet', sort_order: 'recency', exclude_replies: false, exclude_reposts: false, max_results: 50 } },
    { task: 'read the timeline of an X account', args: { username: 'nasa', sort_order: 'recency', exclude_replies: true, exclude_reposts: false, max_results: 20 } },
    { task: 'likes, reposts and views of given tweets by status URL', args: { url: ['https://x.com/XDevelopers/status/1293593516040269825'], sort_order: 'recency', exclude_replies: false, exclude_reposts: false, max_results: 10 } },
  ],
  keywords: ['twitter', 'tweets', 'tweet', 'x.com', 'x api', 'retweets', 'reposts', 'likes', 'hashtag', 'mentions', 'timeline', 'handle', 'microblog', 'engagement', 'impressions', 'views'],
  cues: ['twitter', 'tweets', 'retweets'],
  notFor: ['instagram', 'insta', 'ig', 'facebook', 'fb', 'youtube', 'youtu', 'tiktok', 'tik tok', 'followers of an instagram'],
  settings: MicroblogSettingsSchema,
  list: [QUERIES_LIST, USERNAMES_LIST, POSTS_LIST],
  // The run module loads with the first job, not at boot.
  run: async (ctx) => (await import('./run.ts')).runMicroblog(ctx),
})
