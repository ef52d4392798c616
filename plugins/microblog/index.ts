// Tool `microblog` / agent `microblog_scrape`: posts from the X API v2 by
// recent search, a user's timeline, or post links/ids, with the author and
// the engagement counts on every row.
import { defineTool } from '../../core/tools/contract.ts'
import { MicroblogSettingsSchema } from './settings.ts'
import { POSTS_LIST, QUERIES_LIST, USERNAMES_LIST } from './list.ts'
import { microblogInput, microblogRow } from './schema.ts'

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
