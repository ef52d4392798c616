// The dl_* tools (dl_yt, dl_ig, dl_tt, dl_fb, dl_sn) are one implementation:
// each plugin's index.ts calls defineDownloadTool with its key, agent name,
// platform, words and examples. yt-dlp `-J --no-download` (or its playlist
// forms) per link → one row per media item (plugins/lib/media MediaItem).
import { PassThrough } from 'node:stream'
import { Defaulted, Nullable, ToolBlockedError, Type, UpstreamError, type RunInput, type Static } from '../../../core/tools/contract.ts'
import { MediaItem, youtubeVideoId, youtubeWatchUrl, ytdlpDownloadArgs, ytdlpFailure } from '../media/index.ts'
import { playabilityOfMessage } from '../youtube/playability.ts'
import { defineMediaTool, type MediaToolSpec } from './media-tool.ts'
import { observeYtdlpRun } from './platform-health.ts'
import { PLATFORMS, platformUrlInput } from './platforms.ts'
import { eachLink, itemCap, linksOf, ytdlpRows, type MediaToolContext } from './ytdlp-info.ts'

/** Links per call: each is one yt-dlp run; the per-run row cap spans them all. */
export const MAX_LINKS = 50

export type DownloadToolSpec = MediaToolSpec

/** The `dl_*` row: the media item, and the stored file when `download: true`. */
export const DownloadRow = Type.Object({
  ...MediaItem.properties,
  file: Nullable(Type.Object({
    format_id: Type.String({ description: 'The format stored (the "format" asked for, else best.format_id, else yt-dlp\'s own best).' }),
    id: Type.String(),
    name: Type.String(),
    url: Type.String({ description: 'The file on this server (a job artifact, kept as long as the rows).' }),
    size: Type.Integer(),
    content_type: Type.String(),
  }), { description: 'The stored copy (download: true), null otherwise.' }),
  error: Nullable(Type.String({ description: 'Why this link gave no media (a YouTube age gate: the video asks the viewer to sign in as an adult); null for a media item.' })),
})
export type DownloadRow = Static<typeof DownloadRow>

export function downloadInput (spec: Pick<MediaToolSpec, 'platform' | 'what'>) {
  return Type.Object({
    url: platformUrlInput(spec.platform, { maxItems: MAX_LINKS, what: spec.what }),
    playlist: Defaulted(Type.Union([Type.Literal('single'), Type.Literal('flat'), Type.Literal('full')], {
      description: 'single (default): the item the link points at, even inside a playlist. flat: a playlist, channel or profile listed without opening each entry (ids, titles, durations; no formats), fast. full: each entry opened (formats and captions), one request per entry.',
    }), 'single'),
    max_results: Defaulted(Type.Integer({ minimum: 1, maximum: 1000, description: 'Entries at most per playlist, channel or profile (flat or full), within the plan\'s per-run cap.' }), 100),
    download: Defaulted(Type.Boolean({ description: 'true: also store each item\'s chosen format as a file on this server (row.file, within the plan\'s file size cap); flat entries are not downloaded.' }), false),
    format: Type.Optional(Type.String({ minLength: 1, maxLength: 120, pattern: '^[A-Za-z0-9_\\[][A-Za-z0-9_.+/\\[\\]<>=*:-]*$', description: 'With download: the format to store, a format_id from the row or a yt-dlp selector (default: best, else yt-dlp\'s own best).' })),
  }, { additionalProperties: false })
}

type DownloadContext = MediaToolContext<RunInput<ReturnType<typeof downloadInput>>, DownloadRow>

export function defineDownloadTool (spec: DownloadToolSpec) {
  return defineMediaTool(spec, {
    input: downloadInput(spec),
    row: DownloadRow,
    rowKey: ['platform', 'id'],
    watch: ['title', 'view_count', 'like_count', 'comment_count', 'availability', 'live_status'],
    description: `Reads ${spec.what} on ${spec.platform.name} with yt-dlp and returns one row per media item: id, title, description, uploader and channel, duration, upload date, view/like/comment counts where given, tags, thumbnails, the subtitle and automatic-caption languages offered, every format (format_id, ext, resolution, fps, codecs, filesize, protocol, its direct URL and when that URL expires) and "best", the best format with both video and audio and a direct URL. Direct URLs are signed and short-lived: use them soon. Takes one link or a list; playlist "flat" or "full" lists a playlist, channel or profile (limit entries). ${spec.notes}`,
    run: async (ctx) => runDownloadTool(ctx, spec),
  })
}

async function runDownloadTool (ctx: DownloadContext, spec: DownloadToolSpec): Promise<void> {
  const links = linksOf(ctx)
  let watermarked = 0
  const gated: string[] = []
  const { rows, failed } = await eachLink(ctx, links, async url => {
    let items: MediaItem[]
    try {
      items = await ytdlpRows<MediaItem>(ctx, { url, playlist: ctx.input.playlist, maxItems: itemCap(ctx), parser: 'mediaItemsFromJson' })
    } catch (error) {
      const gate = spec.platform === PLATFORMS.youtube ? youtubeAgeGate(error) : null
      if (gate === null) throw error
      gated.push(gate)
      return [ageGatedRow(url, gate)]
    }
    watermarked += items.filter(item => item.best?.watermarked).length
    const out: DownloadRow[] = []
    for (const item of items) out.push({ ...item, file: ctx.input.download && !item.flat ? await storeFormat(ctx, item, url) : null, error: null })
    return out
  })
  // Nothing but age gates (and failures): the job failed, refunded, as yt's and yt_tx's do; not blocked.
  if (gated.length > 0 && gated.length + failed === links.length) throw new UpstreamError(`YouTube failed for ${links.length === 1 ? 'the video' : `all ${links.length} videos`}: ${gated[0]}`)
  if (rows > 0 && watermarked > 0) ctx.warn(`${watermarked} of ${rows} item${rows === 1 ? '' : 's'}: ${spec.platform.name} offered only a watermarked format, so "best" is watermarked (best.watermarked says so).`)
}

/**
 * A YouTube link yt-dlp could not read because the video is age-restricted:
 * the row error the YouTube library's one playability reader gives yt-dlp's
 * verdict (the player answer's reason and subreason, which yt-dlp quotes), as
 * yt and yt_tx read the same answer. Null for any other failure, a bot check
 * or a rate limit included (those stop the list: LINKS_LIST's onBlocked).
 */
function youtubeAgeGate (error: unknown): string | null {
  if (!(error instanceof ToolBlockedError)) return null
  // ytdlpReason keeps yt-dlp's "[youtube] <id>: " before the player's words.
  const playability = playabilityOfMessage(error.message.replace(/^\[[^\]]*\]\s*[^\s:]+:\s*/, ''))
  return playability.age_gate ? playability.error : null
}

/** The row of a link that gave no media item, only why (its `error`); the id is the video's when the link names one. */
function ageGatedRow (url: string, error: string): DownloadRow {
  const id = youtubeVideoId(url)
  return {
    input_url: url, id: id ?? url, url: id ? youtubeWatchUrl(id) : url, platform: 'Youtube',
    title: null, description: null, uploader: null, uploader_id: null, uploader_url: null, channel: null, channel_id: null, channel_url: null,
    duration: null, upload_date: null, published_at: null, view_count: null, like_count: null, comment_count: null, repost_count: null,
    live_status: null, availability: 'needs_auth', age_limit: 18, tags: [], thumbnail: null, thumbnails: [], subtitles: [], automatic_captions: [],
    formats: [], best: null, best_rule: 'none: the video is age-restricted', playlist_id: null, playlist_title: null, playlist_index: null, flat: false,
    file: null, error,
  }
}

/**
 * yt-dlp writes the chosen format to its stdout (`-o -`), which is piped into
 * ctx.artifact as it comes: the file never sits in memory, and the tier's
 * file cap stops the store (FileTooLargeError), which ends yt-dlp's run.
 */
async function storeFormat (ctx: DownloadContext, item: MediaItem, link: string): Promise<NonNullable<DownloadRow['file']>> {
  const chosen = ctx.input.format ? item.formats.find(f => f.format_id === ctx.input.format) : item.best
  const formatId = ctx.input.format ?? item.best?.format_id ?? 'best'
  const ext = (chosen?.ext ?? 'mp4').replace(/[^a-z0-9]/gi, '').slice(0, 8) || 'mp4'
  const contentType = ext === 'webm' ? 'video/webm' : ext === 'm4a' ? 'audio/mp4' : ext === 'mp3' ? 'audio/mpeg' : 'video/mp4'
  ctx.stage(`Downloading ${item.title ?? item.id} (format ${formatId})`)
  const sink = new PassThrough()
  const storing = ctx.artifact({ name: `${item.id.replace(/[^\w.-]+/g, '_').slice(0, 80) || 'media'}.${ext}`, contentType, body: sink })
  // A store that stopped (the cap) reads no more: end the stream, which ends yt-dlp's run.
  storing.catch(() => sink.destroy())
  const args = ytdlpDownloadArgs(item.url ?? link, { format: formatId, output: '-', maxBytes: Number.MAX_SAFE_INTEGER, cookiesFile: ctx.settings.cookies_file })
  const [stored, run] = await Promise.allSettled([storing, ctx.exec.run('yt-dlp', args, { network: true, stdout: sink, timeoutMs: ctx.settings.timeout_ms })])
  if (stored.status === 'rejected') throw stored.reason
  if (run.status === 'rejected') throw run.reason
  await observeYtdlpRun(ctx.state, link, run.value)
  if (run.value.exitCode !== 0) throw ytdlpFailure(run.value.stderr)
  return { format_id: formatId, id: stored.value.id, name: stored.value.name, url: stored.value.url, size: stored.value.size, content_type: contentType }
}
