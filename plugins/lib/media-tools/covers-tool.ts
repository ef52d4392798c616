// The covers tools (ig_covers, fb_covers, tt_covers) are one implementation:
// yt-dlp's info of each link → its largest static cover and, where the
// platform has one, its largest animated cover, with caption, author and
// counts (plugins/lib/media coversFromJson). fb_covers also lists a page's
// videos (`page_videos`), as far as yt-dlp's extractor offers that list.
import { batchOf, defineTool, Type, type Static, type ToolContext, type ToolExample } from '../../../core/tools/contract.ts'
import { CoverItem } from '../media/index.ts'
import { platformUrlInput, type Platform } from './platforms.ts'
import { YtdlpToolSettingsSchema, type YtdlpToolSettings } from './settings.ts'
import { eachLink, shortLink, ytdlpRows } from './ytdlp-info.ts'

export const MAX_COVER_LINKS = 50

export interface CoversToolSpec {
  key: string
  agentName: string
  title: string
  platform: Platform
  what: string
  notes: string
  /** Offer `page_videos`: a page or profile link lists its videos' covers (fb_covers). */
  pageVideos: boolean
  examples: Array<ToolExample<Record<string, unknown>>>
  keywords: string[]
}

export function coversInput (spec: Pick<CoversToolSpec, 'platform' | 'what' | 'pageVideos'>) {
  const url = platformUrlInput(spec.platform, { maxItems: MAX_COVER_LINKS, what: spec.what })
  const limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Videos at most per page (with page_videos), within the plan\'s per-run cap.' }))
  return spec.pageVideos
    ? Type.Object({
      url,
      page_videos: Type.Optional(Type.Boolean({ default: false, description: 'true: each link is a page (or its videos tab) and every video yt-dlp lists on it gets a row; false: each link is one video or reel.' })),
      max_results: limit,
    }, { additionalProperties: false })
    : Type.Object({ url, max_results: limit }, { additionalProperties: false })
}

// The kernel fills the defaults in (Value.Default) before a run; optional only for callers.
type CoversInput = { url: string | string[], page_videos?: boolean, max_results?: number }

export function defineCoversTool (spec: CoversToolSpec) {
  const input = coversInput(spec)
  type Input = Static<typeof input>
  return defineTool({
    key: spec.key,
    agentName: spec.agentName,
    title: spec.title,
    description: `The full-resolution cover image of ${spec.what} on ${spec.platform.name}, read with yt-dlp: one row per video or post with "cover" (the largest still: URL, width, height) and "animated_cover" (the largest animated cover, where the platform has one), the creator's caption with its #hashtags and @handles, the author (name, id, profile URL), view/like/comment counts and the publication time. The image URLs are the platform's own (signed and short-lived on most: fetch them soon). Takes one link or a list. ${spec.notes}`,
    input,
    row: CoverItem,
    renames: { limit: 'max_results' },
    examples: spec.examples as Array<ToolExample<Input>>,
    keywords: spec.keywords,
    pollSeconds: 2,
    settings: YtdlpToolSettingsSchema,
    run: async (ctx) => runCoversTool(ctx as unknown as ToolContext<CoversInput, CoverItem, YtdlpToolSettings>, spec),
  })
}

async function runCoversTool (ctx: ToolContext<CoversInput, CoverItem, YtdlpToolSettings>, spec: CoversToolSpec): Promise<void> {
  const links = batchOf(ctx, typeof ctx.input.url === 'string' ? [ctx.input.url] : ctx.input.url, 'links')
  const listing = ctx.input.page_videos === true
  let missing = 0
  let total = 0
  await eachLink(ctx, links, async url => {
    const covers = await ytdlpRows<CoverItem>(ctx, { url, playlist: listing ? 'flat' : 'single', maxItems: Math.max(1, Math.min(ctx.input.max_results ?? 100, ctx.remaining())), parser: 'coversFromJson' })
    // yt-dlp answers a page it cannot list with the page itself (one item, or nothing): say so rather than pass it off as the list.
    if (listing && covers.length <= 1 && covers.every(c => c.url === null || c.url === url)) {
      ctx.warn(`${shortLink(url)}: yt-dlp's ${spec.platform.name} extractor did not list videos on this page (it lists a page's videos tab only where it supports one); give the videos' own links instead.`)
    }
    total += covers.length
    missing += covers.filter(c => c.cover === null && c.animated_cover === null).length
    return covers
  })
  if (missing > 0) ctx.warn(`${missing} of ${total} item${total === 1 ? ' has' : 's have'} no cover image in what yt-dlp read.`)
}
