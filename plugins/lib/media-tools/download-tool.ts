// The dl_* tools (dl_yt, dl_ig, dl_tt, dl_fb, dl_sn) are one implementation:
// each plugin's index.ts calls defineDownloadTool with its key, agent name,
// platform, words and examples. yt-dlp `-J --no-download` (or its playlist
// forms) per link → one row per media item (plugins/lib/media MediaItem).
import { batchOf, defineTool, Type, type Static, type ToolContext, type ToolExample } from '../../../core/tools/contract.ts'
import { MediaItem } from '../media/index.ts'
import { platformUrlInput, type Platform } from './platforms.ts'
import { YtdlpToolSettingsSchema, type YtdlpToolSettings } from './settings.ts'
import { eachLink, ytdlpRows } from './ytdlp-info.ts'

/** Links per call: each is one yt-dlp run; the per-run row cap spans them all. */
export const MAX_LINKS = 50

export interface DownloadToolSpec {
  key: string
  agentName: string
  title: string
  platform: Platform
  /** What the tool reads, for the description ("a video, a Short, a playlist or a channel"). */
  what: string
  /** Agent-facing text after the shared part: platform notes, an example. */
  notes: string
  examples: Array<ToolExample<Record<string, unknown>>>
  keywords: string[]
}

export function downloadInput (spec: Pick<DownloadToolSpec, 'platform' | 'what'>) {
  return Type.Object({
    url: platformUrlInput(spec.platform, { maxItems: MAX_LINKS, what: spec.what }),
    playlist: Type.Optional(Type.Union([Type.Literal('single'), Type.Literal('flat'), Type.Literal('full')], {
      default: 'single',
      description: 'single (default): the item the link points at, even inside a playlist. flat: a playlist, channel or profile listed without opening each entry (ids, titles, durations; no formats), fast. full: each entry opened (formats and captions), one request per entry.',
    })),
    max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Entries at most per playlist, channel or profile (flat or full), within the plan\'s per-run cap.' })),
  }, { additionalProperties: false })
}

export function defineDownloadTool (spec: DownloadToolSpec) {
  const input = downloadInput(spec)
  type Input = Static<typeof input>
  return defineTool({
    key: spec.key,
    agentName: spec.agentName,
    title: spec.title,
    description: `Reads ${spec.what} on ${spec.platform.name} with yt-dlp and returns one row per media item: id, title, description, uploader and channel, duration, upload date, view/like/comment counts where given, tags, thumbnails, the subtitle and automatic-caption languages offered, every format (format_id, ext, resolution, fps, codecs, filesize, protocol, its direct URL and when that URL expires) and "best", the best format with both video and audio and a direct URL. Direct URLs are signed and short-lived: use them soon. Takes one link or a list; playlist "flat" or "full" lists a playlist, channel or profile (limit entries). ${spec.notes}`,
    input,
    row: MediaItem,
    renames: { limit: 'max_results' },
    examples: spec.examples as Array<ToolExample<Input>>,
    keywords: spec.keywords,
    pollSeconds: 2,
    settings: YtdlpToolSettingsSchema,
    run: async (ctx) => runDownloadTool(ctx as unknown as ToolContext<Input, MediaItem, YtdlpToolSettings>, spec),
  })
}

async function runDownloadTool (ctx: ToolContext<Static<ReturnType<typeof downloadInput>>, MediaItem, YtdlpToolSettings>, spec: DownloadToolSpec): Promise<void> {
  const links = batchOf(ctx, typeof ctx.input.url === 'string' ? [ctx.input.url] : ctx.input.url, 'links')
  let watermarked = 0
  const { rows } = await eachLink(ctx, links, async url => {
    const items = await ytdlpRows<MediaItem>(ctx, { url, playlist: ctx.input.playlist ?? 'single', maxItems: Math.max(1, Math.min(ctx.input.max_results ?? 100, ctx.remaining())), parser: 'mediaItemsFromJson' })
    watermarked += items.filter(item => item.best?.watermarked).length
    return items
  })
  if (rows > 0 && watermarked > 0) ctx.warn(`${watermarked} of ${rows} item${rows === 1 ? '' : 's'}: ${spec.platform.name} offered only a watermarked format, so "best" is watermarked (best.watermarked says so).`)
}
