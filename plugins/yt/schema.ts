// The `yt` input, and the row and its parts, one TypeBox schema each (index.ts
// declares them, run.ts and extract.ts take their types from here); extract.ts
// imports only types, so the worker pool that runs it loads no TypeBox.
import { Defaulted, LinkOrId, Nullable, NullableFields, OneOrMany, Type, type Static } from '../../core/tools/contract.ts'

const thumbnailSchema = Type.Object({ url: Type.String(), width: Nullable(Type.Integer()), height: Nullable(Type.Integer()) })
const chapterSchema = Type.Object({ title: Type.String(), start_seconds: Type.Integer() })
const linkSchema = Type.Object({ title: Nullable(Type.String()), url: Type.String() })

/** A video: everything on a video row; list items (a channel's tab, a playlist) fill what the list shows. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the schema is what VideoFields is read from
const videoFieldsSchema = Type.Object({
  video_id: Type.String(),
  url: Type.String(),
  ...NullableFields(Type.String(), 'title', 'channel_name', 'channel_id', 'channel_url'),
  view_count: Nullable(Type.Integer()),
  like_count: Nullable(Type.Integer({ description: 'When the video shows it (exact from the like button\'s label where given).' })),
  comment_count: Nullable(Type.Integer({ description: 'When shown (comments can be off).' })),
  duration_seconds: Nullable(Type.Integer()),
  published_at: Nullable(Type.String({ description: 'YYYY-MM-DD: exact for a video looked up itself; on a channel\'s or playlist\'s list, estimated from YouTube\'s "3 days ago" (see published_text).' })),
  published_text: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  category: Nullable(Type.String()),
  description: Nullable(Type.String({ description: 'The full description for a video looked up itself; a snippet on list items.' })),
  thumbnails: Type.Array(thumbnailSchema, { description: 'Largest first.' }),
  chapters: Type.Array(chapterSchema),
  is_live: Type.Boolean({ description: 'Live now.' }),
  was_live: Type.Boolean({ description: 'A live stream or premiere (now or past).' }),
  is_short: Type.Boolean(),
})

/** A channel's own figures (the header, then the about panel). */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the schema is what ChannelFields is read from
const channelFieldsSchema = Type.Object({
  ...NullableFields(Type.String(), 'channel_id', 'channel_name', 'channel_url', 'handle', 'description'),
  subscriber_count: Nullable(Type.Integer({ description: 'As YouTube rounds it ("24.6M").' })),
  subscriber_text: Nullable(Type.String()),
  ...NullableFields(Type.Integer(), 'total_views', 'video_count'),
  country: Nullable(Type.String()),
  joined_date: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
  links: Type.Array(linkSchema),
  keywords: Type.Array(Type.String()),
  verified: Type.Boolean(),
  thumbnails: Type.Array(thumbnailSchema, { description: 'The avatar, largest first.' }),
})

export type VideoFields = Static<typeof videoFieldsSchema>
export type ChannelFields = Static<typeof channelFieldsSchema>
export type Thumbnail = Static<typeof thumbnailSchema>
export type Chapter = Static<typeof chapterSchema>

const rowKind = Type.Union([Type.Literal('video'), Type.Literal('channel')], { description: 'video: one video; channel: a channel\'s own figures (its videos follow as video rows).' })
const rowSource = Type.Union([Type.Literal('video'), Type.Literal('channel'), Type.Literal('playlist')], { description: 'What the input named: a video, a channel (its row and its recent videos) or a playlist (its videos).' })

/**
 * One row: a video or a channel. Both kinds carry every column (null where
 * the kind has none), so an export has one header: a video's channel columns
 * name its channel; a channel row's video columns are empty.
 */
export const ytRow = Type.Object({
  input_url: Type.String({ description: 'The link, id or handle as given (the one of the list this row came from).' }),
  type: rowKind,
  source: rowSource,
  video_id: Nullable(Type.String()),
  url: Type.String({ description: 'The video\'s watch URL or the channel\'s URL.' }),
  ...NullableFields(Type.String(), 'title', 'channel_name', 'channel_id', 'channel_url'),
  ...NullableFields(Type.Integer(), 'view_count', 'like_count', 'comment_count', 'duration_seconds'),
  ...NullableFields(Type.String(), 'published_at', 'published_text'),
  tags: Type.Array(Type.String()),
  ...NullableFields(Type.String(), 'category', 'description'),
  thumbnails: Type.Array(thumbnailSchema),
  chapters: Type.Array(chapterSchema),
  ...NullableFields(Type.Boolean(), 'is_live', 'was_live', 'is_short'),
  handle: Nullable(Type.String()),
  subscriber_count: Nullable(Type.Integer()),
  subscriber_text: Nullable(Type.String()),
  ...NullableFields(Type.Integer(), 'total_views', 'video_count'),
  ...NullableFields(Type.String(), 'country', 'joined_date'),
  links: Type.Array(linkSchema),
  verified: Nullable(Type.Boolean()),
  ...NullableFields(Type.String(), 'playlist_id', 'playlist_title'),
  position: Nullable(Type.Integer({ description: 'Order in the channel\'s list (newest first) or the playlist, from 1.' })),
  error: Nullable(Type.String({ description: 'Why this video, channel or playlist could not be read (unavailable, private, removed).' })),
})

export type YtRow = Static<typeof ytRow>

/** Links per call; the per-run row ceiling spans them all. */
const MAX_TARGETS = 50

export const ytInput = Type.Object({
  url: OneOrMany(LinkOrId(), { maxItems: MAX_TARGETS, description: 'A YouTube video (watch, youtu.be, shorts, live link or 11-character id), channel (/channel/UC…, /@handle, @handle, /c/…, /user/… or a UC… id) or playlist (/playlist?list=… or a PL… id), or a list mixing them: each row names its entry in input_url.' }),
  max_results: Defaulted(Type.Integer({ minimum: 1, maximum: 500, description: 'Videos listed at most per channel or playlist (newest first for a channel); a larger value is clamped to 500 and to the plan\'s per-run ceiling.' }), 30),
}, { additionalProperties: false })
