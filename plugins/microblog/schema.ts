// microblog's input and row: the one schema of each (the declaration's and the
// run's types come from here; run.ts never imports index.ts, which loads it).
import { Defaulted, LinkOrId, Nullable, NullableFields, OneOrMany, Type } from '../../core/tools/contract.ts'
import { MAX_ITEMS } from './list.ts'

const Count = Nullable(Type.Integer({ minimum: 0 }))


export const microblogInput = Type.Object({
  query: Type.Optional(OneOrMany(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: MAX_ITEMS, description: 'A recent-search query in X search syntax (last 7 days), e.g. "from:nasa has:media" or "#python -is:retweet", or a list of them.' })),
  username: Type.Optional(OneOrMany(LinkOrId({ maxLength: 200 }), { maxItems: MAX_ITEMS, description: 'A username (@name, name or a profile link) whose recent posts to read, or a list of them.' })),
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
