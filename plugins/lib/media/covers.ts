// Cover images of a media item from yt-dlp's info dict (ig_covers, fb_covers,
// tt_covers): the largest static cover and, where the platform has one, the
// largest animated cover, with the caption, author and counts. Pure.
import { creatorCaption } from './captions.ts'
import { isPlaylist, mediaItemFromInfo, thumbnailsFromInfo, type InfoDict } from './info-dict.ts'
import type { CoverItem } from './schemas.ts'

/**
 * One cover row. "Largest" is thumbnailsFromInfo's order (pixel area where
 * given, then yt-dlp's preference, then its order), so a full-resolution
 * original (Instagram's 1080-wide candidate, YouTube's maxresdefault, TikTok's
 * origin_cover) wins over the cropped and scaled ones.
 */
export function coverFromInfo (info: InfoDict, options: { inputUrl?: string | null } = {}): CoverItem {
  const item = mediaItemFromInfo(info, options)
  const thumbnails = thumbnailsFromInfo(info)
  const caption = creatorCaption(item.description ?? item.title)
  return {
    input_url: item.input_url,
    id: item.id,
    url: item.url,
    platform: item.platform,
    caption: caption.caption,
    hashtags: caption.hashtags,
    mentions: caption.mentions,
    author: item.channel ?? item.uploader,
    author_id: item.uploader_id ?? item.channel_id,
    author_url: item.uploader_url ?? item.channel_url,
    view_count: item.view_count,
    like_count: item.like_count,
    comment_count: item.comment_count,
    published_at: item.published_at,
    cover: thumbnails.find(t => !t.animated) ?? null,
    animated_cover: thumbnails.find(t => t.animated) ?? null,
  }
}

/**
 * Cover rows of a `-J` answer: one for an item, one per entry of a playlist
 * (fb_covers on a page's video list, with `--flat-playlist` or full entries),
 * nested playlists flattened, null entries skipped.
 */
export function coversFromInfo (info: InfoDict, options: { inputUrl?: string | null } = {}): CoverItem[] {
  if (!isPlaylist(info)) return [coverFromInfo(info, options)]
  const entries = Array.isArray(info.entries) ? info.entries.filter((e): e is InfoDict => e !== null && typeof e === 'object') : []
  return entries.flatMap(entry => coversFromInfo(entry, options))
}

/** coversFromInfo on yt-dlp's stdout text (the extraction-pool entry point; SyntaxError on non-JSON). */
export function coversFromJson (json: string, options: { inputUrl?: string | null } = {}): CoverItem[] {
  return coversFromInfo(JSON.parse(json) as InfoDict, options)
}
