// The row schemas the media tools share (dl_*, covers, captions, frames): one
// TypeBox schema per thing, reused by every plugin's `row` so REST, the agent
// manifest and OpenAPI describe a format, a thumbnail or a subtitle track the
// same way wherever it appears.
import { Nullable, NullableFields, Type, type Static } from '../../../core/tools/contract.ts'

/** One format yt-dlp offers for a media item (a file, a stream, a storyboard). */
export const MediaFormat = Type.Object({
  format_id: Type.String(),
  ext: Nullable(Type.String()),
  resolution: Nullable(Type.String({ description: '"1920x1080", or "audio only".' })),
  ...NullableFields(Type.Integer(), 'width', 'height'),
  fps: Nullable(Type.Number()),
  vcodec: Nullable(Type.String({ description: 'Video codec; null when the format has no video or yt-dlp does not know it.' })),
  acodec: Nullable(Type.String({ description: 'Audio codec; null when the format has no audio or yt-dlp does not know it.' })),
  has_video: Type.Boolean(),
  has_audio: Type.Boolean(),
  filesize: Nullable(Type.Integer({ description: 'Exact size in bytes when the site says it.' })),
  filesize_approx: Nullable(Type.Integer({ description: 'yt-dlp\'s estimate (bitrate × duration) when the exact size is unknown.' })),
  tbr: Nullable(Type.Number({ description: 'Total bitrate, kbit/s.' })),
  protocol: Nullable(Type.String({ description: '"https" for a direct file; "m3u8_native", "http_dash_segments"… for a stream.' })),
  ...NullableFields(Type.String(), 'format_note', 'language'),
  url: Nullable(Type.String({ description: 'Direct URL (signed and short-lived on most platforms; see expires_at).' })),
  expires_at: Nullable(Type.String({ description: 'When the signed URL stops working (ISO 8601), read from its expire/x-expires/oe parameter; null when it does not say.' })),
  watermarked: Type.Boolean({ description: 'The extractor marks this format as carrying the platform\'s watermark (TikTok\'s download_addr).' }),
})
export type MediaFormat = Static<typeof MediaFormat>

/** One image the extractor lists for an item (thumbnail, cover, animated cover). */
export const MediaThumbnail = Type.Object({
  id: Nullable(Type.String()),
  url: Type.String(),
  ...NullableFields(Type.Integer(), 'width', 'height'),
  animated: Type.Boolean({ description: 'An animated cover (TikTok dynamic cover, a GIF).' }),
})
export type MediaThumbnail = Static<typeof MediaThumbnail>

/** The subtitle or automatic-caption tracks offered in one language. */
export const SubtitleTrack = Type.Object({
  language: Type.String({ description: 'yt-dlp\'s language code (en, pt-BR, en-de for a translation).' }),
  name: Nullable(Type.String()),
  formats: Type.Array(Type.String(), { description: 'Subtitle formats offered (vtt, srt, json3, ttml…).' }),
})
export type SubtitleTrack = Static<typeof SubtitleTrack>

/** A media item (one video, reel, post or story) from yt-dlp's info dict. */
export const MediaItem = Type.Object({
  input_url: Nullable(Type.String({ description: 'The link as given (the one of the list this row came from).' })),
  id: Type.String(),
  url: Nullable(Type.String({ description: 'The item\'s page.' })),
  platform: Nullable(Type.String({ description: 'yt-dlp\'s extractor (youtube, Instagram, TikTok…).' })),
  ...NullableFields(Type.String(), 'title', 'description', 'uploader', 'uploader_id', 'uploader_url', 'channel', 'channel_id', 'channel_url'),
  duration: Nullable(Type.Number({ description: 'Seconds.' })),
  upload_date: Nullable(Type.String({ description: 'YYYY-MM-DD.' })),
  published_at: Nullable(Type.String({ description: 'ISO 8601 from the extractor\'s timestamp, when it gives one.' })),
  ...NullableFields(Type.Integer(), 'view_count', 'like_count', 'comment_count', 'repost_count'),
  ...NullableFields(Type.String(), 'live_status', 'availability'),
  age_limit: Nullable(Type.Integer()),
  tags: Type.Array(Type.String()),
  thumbnail: Nullable(Type.String({ description: 'The largest thumbnail.' })),
  thumbnails: Type.Array(MediaThumbnail),
  subtitles: Type.Array(SubtitleTrack, { description: 'Subtitles the uploader provided.' }),
  automatic_captions: Type.Array(SubtitleTrack, { description: 'Automatic (speech-recognised or machine-translated) captions.' }),
  formats: Type.Array(MediaFormat),
  best: Nullable(MediaFormat, { description: 'The best format with both video and audio and a direct URL (the rule is in best_rule).' }),
  best_rule: Type.String({ description: 'How `best` was chosen (see plugins/lib/media/README.md).' }),
  ...NullableFields(Type.String(), 'playlist_id', 'playlist_title'),
  playlist_index: Nullable(Type.Integer()),
  flat: Type.Boolean({ description: 'A flat playlist entry: yt-dlp listed it without opening it, so formats and captions are empty.' }),
})
export type MediaItem = Static<typeof MediaItem>

/** A cover image row (ig_covers, fb_covers, tt_covers). */
export const CoverItem = Type.Object({
  // What names the item and counts its audience is the media item's, field for field.
  ...Type.Pick(MediaItem, ['input_url', 'id', 'url', 'platform']).properties,
  caption: Nullable(Type.String({ description: 'The creator\'s caption (description, else title).' })),
  hashtags: Type.Array(Type.String()),
  mentions: Type.Array(Type.String()),
  ...NullableFields(Type.String(), 'author', 'author_id', 'author_url'),
  ...Type.Pick(MediaItem, ['view_count', 'like_count', 'comment_count', 'published_at']).properties,
  cover: Nullable(MediaThumbnail, { description: 'The largest static cover.' }),
  animated_cover: Nullable(MediaThumbnail, { description: 'The largest animated cover, where the platform has one.' }),
})
export type CoverItem = Static<typeof CoverItem>

/** The creator's caption split into text, hashtags and mentions. */
export const CreatorCaption = Type.Object({
  caption: Nullable(Type.String()),
  hashtags: Type.Array(Type.String({ description: 'Without the #, in order of appearance, each once.' })),
  mentions: Type.Array(Type.String({ description: 'Without the @, in order of appearance, each once.' })),
})
export type CreatorCaption = Static<typeof CreatorCaption>

/** One timed subtitle cue, the common form every converter reads and writes. */
export const SubtitleCue = Type.Object({
  start_ms: Type.Integer({ minimum: 0 }),
  end_ms: Type.Integer({ minimum: 0 }),
  text: Type.String(),
})
export type SubtitleCue = Static<typeof SubtitleCue>
