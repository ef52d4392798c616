// yt-dlp's info dict (`--dump-single-json`) → rows. Pure: no I/O, so the
// mappings are tested on real yt-dlp outputs (../shared/fixtures/captures/ytdlp).
// The dict is loosely typed (every extractor fills what it can), so every field
// is read defensively and a missing one becomes null, never a throw.
import type { MediaFormat, MediaItem, MediaThumbnail, SubtitleTrack } from './schemas.ts'

/** A yt-dlp info dict, a playlist dict or a flat entry: the fields this module reads. */
export type InfoDict = Record<string, unknown>

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null)
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const int = (v: unknown): number | null => { const n = num(v); return n === null ? null : Math.round(n) }
/** yt-dlp writes "none" for an absent codec. */
const codec = (v: unknown): string | null => { const s = str(v); return s === null || s === 'none' ? null : s }
const records = (v: unknown): InfoDict[] => (Array.isArray(v) ? v.filter((x): x is InfoDict => x !== null && typeof x === 'object' && !Array.isArray(x)) : [])

// ---------------------------------------------------------------- URL expiry

// Plausible expiry instants only: a parameter that happens to be named like one
// but holds something else (a duration, an id) must not become a date.
const MIN_EPOCH_S = 946_684_800 // 2000-01-01
const MAX_EPOCH_S = 4_102_444_800 // 2100-01-01
const asEpoch = (seconds: number): string | null =>
  Number.isFinite(seconds) && seconds >= MIN_EPOCH_S && seconds <= MAX_EPOCH_S ? new Date(seconds * 1000).toISOString() : null

/**
 * When a signed media URL stops working, from what it carries:
 * - `expire=<unix s>` (googlevideo `videoplayback`, YouTube timedtext), `expires=`, `x-expires=` (TikTok CDNs);
 * - `/expire/<unix s>/` path segments (googlevideo HLS/DASH manifests);
 * - `oe=<hex unix s>` (Facebook and Instagram fbcdn URLs);
 * - `exp=<unix s>` inside Akamai `hdnts`/`__token__` tokens.
 * Null when the URL says nothing (or the value is not a plausible instant).
 */
export function urlExpiry (url: string | null | undefined): string | null {
  if (!url) return null
  let parsed: URL
  try { parsed = new URL(url) } catch { return null }
  const q = parsed.searchParams
  for (const name of ['expire', 'expires', 'x-expires']) {
    const v = q.get(name)
    if (v && /^\d{9,11}$/.test(v)) return asEpoch(Number(v))
  }
  const oe = q.get('oe')
  if (oe && /^[0-9A-Fa-f]{8}$/.test(oe)) return asEpoch(parseInt(oe, 16))
  const segment = /\/expire\/(\d{9,11})(?:\/|$)/.exec(parsed.pathname)
  if (segment) return asEpoch(Number(segment[1]))
  for (const name of ['hdnts', '__token__']) {
    const token = q.get(name)
    const exp = token ? /(?:^|~)exp=(\d{9,11})(?:~|$)/.exec(token) : null
    if (exp) return asEpoch(Number(exp[1]))
  }
  return null
}

// ---------------------------------------------------------------- formats

/**
 * A watermarked format, as yt-dlp's extractors mark it: TikTok's app API gives
 * `download_addr` the note "Download video, watermarked" (and preference -2),
 * its web and Douyin paths the note "watermarked"; other extractors write
 * "Watermarked". A note saying "no watermark" is not one.
 */
export function isWatermarked (format: InfoDict): boolean {
  const note = str(format.format_note) ?? ''
  return /watermark/i.test(note) && !/\b(no|without|free)\b[\s-]*watermark|watermark[\s-]*free/i.test(note)
}

/** One format of the dict as a row field (yt-dlp's semantics: an absent codec field means unknown, "none" means absent). */
export function formatFromInfo (format: InfoDict): MediaFormat {
  const url = str(format.url)
  const vcodecRaw = format.vcodec
  const acodecRaw = format.acodec
  const resolution = str(format.resolution)
  return {
    format_id: str(format.format_id) ?? String(format.format_id ?? ''),
    ext: str(format.ext),
    resolution,
    width: int(format.width),
    height: int(format.height),
    fps: num(format.fps),
    vcodec: codec(vcodecRaw),
    acodec: codec(acodecRaw),
    has_video: vcodecRaw !== 'none' && resolution !== 'audio only',
    has_audio: acodecRaw !== 'none',
    filesize: int(format.filesize),
    filesize_approx: int(format.filesize_approx),
    tbr: num(format.tbr),
    protocol: str(format.protocol),
    format_note: str(format.format_note),
    language: str(format.language),
    url,
    expires_at: urlExpiry(url),
    watermarked: isWatermarked(format),
  }
}

/** Every format of an info dict, in yt-dlp's order (worst first, as it sorts them). */
export function formatsFromInfo (info: InfoDict): MediaFormat[] {
  return records(info.formats).map(formatFromInfo)
}

const DIRECT_PROTOCOLS = new Set(['http', 'https'])

export const BEST_COMBINED_RULE = 'a format with both video and audio and a URL, no storyboard; watermark-free before watermarked; then the greatest height, a direct file (http/https) before a stream (HLS/DASH) of the same height, the higher fps, the higher total bitrate, and last yt-dlp\'s own order (it lists formats worst first)'

/**
 * The best combined format (video and audio in one URL), by BEST_COMBINED_RULE;
 * null when the item has none (YouTube above 720p, Instagram's DASH-only
 * reels: video and audio then come as separate formats).
 */
export function bestCombinedFormat (formats: MediaFormat[]): MediaFormat | null {
  let best: { format: MediaFormat, index: number } | null = null
  formats.forEach((format, index) => {
    if (!format.has_video || !format.has_audio || format.url === null || format.protocol === 'mhtml') return
    if (best === null || compareCombined({ format, index }, best) > 0) best = { format, index }
  })
  return (best as { format: MediaFormat } | null)?.format ?? null
}

/** > 0 when `a` is the better combined format. */
function compareCombined (a: { format: MediaFormat, index: number }, b: { format: MediaFormat, index: number }): number {
  const fa = a.format
  const fb = b.format
  const keys: Array<[number, number]> = [
    [fa.watermarked ? 0 : 1, fb.watermarked ? 0 : 1],
    [fa.height ?? 0, fb.height ?? 0],
    [DIRECT_PROTOCOLS.has(fa.protocol ?? 'https') ? 1 : 0, DIRECT_PROTOCOLS.has(fb.protocol ?? 'https') ? 1 : 0],
    [fa.fps ?? 0, fb.fps ?? 0],
    [fa.tbr ?? 0, fb.tbr ?? 0],
    [a.index, b.index],
  ]
  for (const [x, y] of keys) if (x !== y) return x - y
  return 0
}

/**
 * The video to cut frames from (video_frames on a link): the tallest format
 * with video and a URL, at most `maxHeight` when given (default: any), no
 * storyboard, watermark-free first; audio is not needed, so video-only formats
 * count; ties as in BEST_COMBINED_RULE (a direct file before a stream).
 */
export function bestVideoFormat (formats: MediaFormat[], options: { maxHeight?: number } = {}): MediaFormat | null {
  let best: { format: MediaFormat, index: number } | null = null
  formats.forEach((format, index) => {
    if (!format.has_video || format.url === null || format.protocol === 'mhtml') return
    if (options.maxHeight !== undefined && (format.height ?? 0) > options.maxHeight) return
    if (best === null || compareCombined({ format, index }, best) > 0) best = { format, index }
  })
  return (best as { format: MediaFormat } | null)?.format ?? null
}

// ---------------------------------------------------------------- thumbnails

/**
 * An animated cover: TikTok's `dynamic_cover`/`dynamicCover`/`animated_cover`
 * (and `ai_dynamic_cover`) thumbnail ids, or a GIF. WebP alone does not say
 * animated (YouTube's webp thumbnails are stills).
 */
export function isAnimatedThumbnail (thumbnail: InfoDict): boolean {
  const id = str(thumbnail.id) ?? ''
  if (/dynamic|animated/i.test(id)) return true
  const url = str(thumbnail.url) ?? ''
  try { return /\.gif$/i.test(new URL(url).pathname) } catch { return false }
}

function thumbnailFromInfo (thumbnail: InfoDict): MediaThumbnail | null {
  const url = str(thumbnail.url)
  if (url === null) return null
  let width = int(thumbnail.width)
  let height = int(thumbnail.height)
  const resolution = str(thumbnail.resolution)
  const wh = resolution ? /^(\d+)x(\d+)$/.exec(resolution) : null
  if (wh && (width === null || height === null)) { width = Number(wh[1]); height = Number(wh[2]) }
  const id = thumbnail.id === undefined || thumbnail.id === null ? null : String(thumbnail.id)
  return { id, url, width, height, animated: isAnimatedThumbnail(thumbnail) }
}

/**
 * The item's thumbnails, largest first: by pixel area where the extractor gives
 * the size, then by yt-dlp's `preference`, then by its order (it lists them
 * least preferred first). A dict with only `thumbnail` (a flat entry, some
 * extractors) gives that one image, size unknown. Repeated URLs are dropped.
 */
export function thumbnailsFromInfo (info: InfoDict): MediaThumbnail[] {
  const listed = records(info.thumbnails)
  const ranked = listed
    .map((raw, index) => ({ thumb: thumbnailFromInfo(raw), preference: num(raw.preference) ?? 0, index }))
    .filter((x): x is { thumb: MediaThumbnail, preference: number, index: number } => x.thumb !== null)
    .sort((a, b) => area(b.thumb) - area(a.thumb) || b.preference - a.preference || b.index - a.index)
    .map(x => x.thumb)
  const single = str(info.thumbnail)
  if (single !== null && !ranked.some(t => t.url === single)) ranked.push({ id: null, url: single, width: null, height: null, animated: isAnimatedThumbnail({ url: single }) })
  const seen = new Set<string>()
  return ranked.filter(t => (seen.has(t.url) ? false : (seen.add(t.url), true)))
}

const area = (t: MediaThumbnail): number => (t.width ?? 0) * (t.height ?? 0)

// ---------------------------------------------------------------- subtitles

/** The languages a `subtitles` or `automatic_captions` map offers, each with its formats. */
export function subtitleTracksFromInfo (tracks: unknown): SubtitleTrack[] {
  if (tracks === null || typeof tracks !== 'object' || Array.isArray(tracks)) return []
  return Object.entries(tracks as Record<string, unknown>)
    .filter(([language]) => language !== 'live_chat') // YouTube's chat replay, not captions
    .map(([language, entries]) => {
      const list = records(entries)
      const formats = [...new Set(list.map(e => str(e.ext)).filter((e): e is string => e !== null))]
      return { language, name: list.map(e => str(e.name)).find(n => n !== null) ?? null, formats }
    })
    .filter(track => track.formats.length > 0)
}

export interface SubtitleChoice { language: string, ext: string, url: string, automatic: boolean, name: string | null }

/**
 * The subtitle file to fetch for a language: the uploader's subtitles before
 * automatic captions, the exact language before its variants (`en` before
 * `en-US`, `en-GB`; never a translation like `en-de`), and the first of
 * `formats` offered (default: WebVTT, then json3, then SRT). Null when none.
 */
export function pickSubtitleTrack (info: InfoDict, language: string, formats: string[] = ['vtt', 'json3', 'srt']): SubtitleChoice | null {
  const wanted = language.toLowerCase()
  for (const [key, automatic] of [['subtitles', false], ['automatic_captions', true]] as const) {
    const map = info[key]
    if (map === null || typeof map !== 'object' || Array.isArray(map)) continue
    const languages = Object.keys(map as Record<string, unknown>)
    const exact = languages.filter(l => l.toLowerCase() === wanted)
    // Regional variants (en-US, en-GB) of the language; yt-dlp names translations <to>-<from>, which a region never looks like.
    const variants = languages.filter(l => l.toLowerCase().startsWith(`${wanted}-`) && /^[a-z]{2,3}-[A-Z]{2}$|^[a-z]{2,3}-(?:orig|[A-Z][a-z]{3})$/.test(l))
    for (const lang of [...exact, ...variants]) {
      const entries = records((map as Record<string, unknown>)[lang])
      for (const ext of formats) {
        const entry = entries.find(e => str(e.ext) === ext && str(e.url) !== null)
        if (entry) return { language: lang, ext, url: str(entry.url)!, automatic, name: str(entry.name) }
      }
    }
  }
  return null
}

// ---------------------------------------------------------------- items

/** YYYYMMDD → YYYY-MM-DD (yt-dlp's upload_date), null when it is not a date. */
export function isoDate (yyyymmdd: unknown): string | null {
  const s = str(yyyymmdd)
  const m = s ? /^(\d{4})(\d{2})(\d{2})$/.exec(s) : null
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null
}

export interface ItemOptions {
  /** The link the caller gave (rows say which entry of a list they came from). */
  inputUrl?: string | null
  /** Set by mediaItemsFromInfo for a playlist's entries. */
  playlist?: { id: string | null, title: string | null }
}

/** One media item's row. */
export function mediaItemFromInfo (info: InfoDict, options: ItemOptions = {}): MediaItem {
  const formats = formatsFromInfo(info)
  const best = bestCombinedFormat(formats)
  const thumbnails = thumbnailsFromInfo(info)
  const timestamp = num(info.timestamp) ?? num(info.release_timestamp)
  const flat = info._type === 'url' || info._type === 'url_transparent' || (!Array.isArray(info.formats) && info.url !== undefined && info.extractor === undefined)
  return {
    input_url: options.inputUrl ?? null,
    id: str(info.id) ?? String(info.id ?? ''),
    url: str(info.webpage_url) ?? (flat ? str(info.url) : null) ?? str(info.original_url),
    platform: str(info.extractor_key) ?? str(info.ie_key) ?? str(info.extractor),
    title: str(info.title),
    description: str(info.description),
    uploader: str(info.uploader),
    uploader_id: str(info.uploader_id),
    uploader_url: str(info.uploader_url),
    channel: str(info.channel),
    channel_id: str(info.channel_id),
    channel_url: str(info.channel_url),
    duration: num(info.duration),
    upload_date: isoDate(info.upload_date) ?? (timestamp !== null ? asEpoch(timestamp)?.slice(0, 10) ?? null : null),
    published_at: timestamp !== null ? asEpoch(timestamp) : null,
    view_count: int(info.view_count),
    like_count: int(info.like_count),
    comment_count: int(info.comment_count),
    repost_count: int(info.repost_count),
    live_status: str(info.live_status),
    availability: str(info.availability),
    age_limit: int(info.age_limit),
    tags: Array.isArray(info.tags) ? info.tags.filter((t): t is string => typeof t === 'string') : [],
    thumbnail: thumbnails[0]?.url ?? null,
    thumbnails,
    subtitles: subtitleTracksFromInfo(info.subtitles),
    automatic_captions: subtitleTracksFromInfo(info.automatic_captions),
    formats,
    best,
    best_rule: BEST_COMBINED_RULE,
    playlist_id: options.playlist?.id ?? str(info.playlist_id),
    playlist_title: options.playlist?.title ?? str(info.playlist_title) ?? str(info.playlist),
    playlist_index: int(info.playlist_index),
    flat,
  }
}

/** A playlist, channel tab or search dict (yt-dlp `_type: playlist`). */
export function isPlaylist (info: InfoDict): boolean {
  return info._type === 'playlist' || (Array.isArray(info.entries) && !Array.isArray(info.formats))
}

/**
 * The rows of a `-J` answer: one for a single item; one per entry for a
 * playlist or channel (full entries from `--yes-playlist`, or the light entries
 * of `--flat-playlist`, which have no formats), each naming the playlist.
 * Nested playlists (a channel's tabs) are flattened; empty entries (yt-dlp
 * writes null for an unavailable video) are skipped.
 */
export function mediaItemsFromInfo (info: InfoDict, options: Omit<ItemOptions, 'playlist'> = {}): MediaItem[] {
  if (!isPlaylist(info)) return [mediaItemFromInfo(info, options)]
  const playlist = { id: str(info.id), title: str(info.title) }
  return records(info.entries).flatMap(entry =>
    isPlaylist(entry) ? mediaItemsFromInfo(entry, options) : [mediaItemFromInfo(entry, { ...options, playlist })])
}

/** A playlist's or channel's own fields (for a job summary). */
export function playlistFromInfo (info: InfoDict): { id: string | null, title: string | null, channel: string | null, channel_id: string | null, channel_url: string | null, uploader: string | null, entry_count: number | null, view_count: number | null, follower_count: number | null } | null {
  if (!isPlaylist(info)) return null
  return {
    id: str(info.id),
    title: str(info.title),
    channel: str(info.channel),
    channel_id: str(info.channel_id),
    channel_url: str(info.channel_url),
    uploader: str(info.uploader),
    entry_count: int(info.playlist_count) ?? records(info.entries).length,
    view_count: int(info.view_count),
    follower_count: int(info.channel_follower_count),
  }
}

/**
 * mediaItemsFromInfo on yt-dlp's stdout text: the entry point to run in the
 * extraction pool (`ctx.extract.call(new URL('../lib/media/info-dict.ts',
 * import.meta.url), 'mediaItemsFromJson', [stdout, options])`), so parsing a
 * large dict (a YouTube video's is ~850 KB) stays off the API thread.
 * Throws SyntaxError on text that is not JSON.
 */
export function mediaItemsFromJson (json: string, options: Omit<ItemOptions, 'playlist'> = {}): MediaItem[] {
  return mediaItemsFromInfo(JSON.parse(json) as InfoDict, options)
}
