// The covers tools (ig_covers, fb_covers, tt_covers) are one implementation:
// yt-dlp's info of each link → its largest static cover and, where the
// platform has one, its largest animated cover, with caption, author and
// counts (plugins/lib/media coversFromJson), the images linked or, with
// `store_images`, also stored as job files. fb_covers also lists a page's
// videos (`page_videos`): from the page's HTML where the tool declares a
// `pageList` (yt-dlp has no list for a Facebook page), else yt-dlp's.
import { BlockedTargetError, Defaulted, JobOutcomeError, Nullable, Type, type Static } from '../../../core/tools/contract.ts'
import { CoverItem, type MediaThumbnail } from '../media/index.ts'
import { readPageVideos, type PageVideoLister } from './page-videos.ts'
import { defineMediaTool, type MediaToolSpec } from './media-tool.ts'
import { platformUrlInput } from './platforms.ts'
import { ImageKeeper, StoredImage } from './stored-image.ts'
import { eachLink, itemCap, linksOf, shortLink, ytdlpRows, type MediaToolContext } from './ytdlp-info.ts'

export const MAX_COVER_LINKS = 50

export interface CoversToolSpec extends MediaToolSpec {
  /** Offer `page_videos`: a page or profile link lists its videos' covers (fb_covers). */
  pageVideos: boolean
  /** Where the platform lists a page's videos only in the page's HTML: how to read that list (else yt-dlp's --flat-playlist). */
  pageList?: PageVideoLister
}

export function coversInput (spec: Pick<CoversToolSpec, 'platform' | 'what' | 'pageVideos'>) {
  const url = platformUrlInput(spec.platform, { maxItems: MAX_COVER_LINKS, what: spec.what })
  const limit = Defaulted(Type.Integer({ minimum: 1, maximum: 1000, description: 'Videos at most per page (with page_videos), within the plan\'s per-run cap.' }), 100)
  const storeImages = Defaulted(Type.Boolean({ description: 'true: also keep each cover image as a file on this server (cover_file, animated_cover_file: a download URL kept as long as the rows, within the plan\'s file size caps), since the platform\'s image URLs expire; false: the images are linked only.' }), false)
  return spec.pageVideos
    ? Type.Object({
      url,
      page_videos: Defaulted(Type.Boolean({ description: 'true: each link is a page (or its videos tab) and every video listed on it gets a row; false: each link is one video or reel.' }), false),
      max_results: limit,
      store_images: storeImages,
    }, { additionalProperties: false })
    : Type.Object({ url, max_results: limit, store_images: storeImages }, { additionalProperties: false })
}

/** The covers row: the item, and its images' stored copies when `store_images` is true. */
export const CoverRow = Type.Object({
  ...CoverItem.properties,
  cover_file: Nullable(StoredImage, { description: 'The stored copy of cover (store_images: true); null otherwise or when it could not be kept.' }),
  animated_cover_file: Nullable(StoredImage, { description: 'The stored copy of animated_cover (store_images: true); null otherwise.' }),
})
export type CoverRow = Static<typeof CoverRow>

// Either input shape as a run reads it (RunInput of each): page_videos only where the tool offers it.
type CoversInput = { url: string | string[], page_videos?: boolean, max_results: number, store_images: boolean }
type CoversContext = MediaToolContext<CoversInput, CoverRow>

export function defineCoversTool (spec: CoversToolSpec) {
  return defineMediaTool(spec, {
    input: coversInput(spec),
    row: CoverRow,
    rowKey: ['platform', 'id'],
    watch: ['caption', 'view_count', 'like_count', 'comment_count', 'cover'],
    description: `The full-resolution cover image of ${spec.what} on ${spec.platform.name}, read with yt-dlp: one row per video or post with "cover" (the largest still: URL, width, height) and "animated_cover" (the largest animated cover, where the platform has one), the creator's caption with its #hashtags and @handles, the author (name, id, profile URL), view/like/comment counts and the publication time. The image URLs are the platform's own (signed and short-lived on most: fetch them soon). Takes one link or a list. ${spec.notes}`,
    run: async (ctx) => runCoversTool(ctx, spec),
  })
}

async function runCoversTool (ctx: CoversContext, spec: CoversToolSpec): Promise<void> {
  const links = linksOf(ctx)
  const listing = ctx.input.page_videos
  const images = new ImageKeeper(ctx)
  const keep = async (item: CoverItem, image: MediaThumbnail | null, kind: string) => ctx.input.store_images && image
    ? await images.keep(image.url, `${item.id.replace(/[^\w.-]+/g, '_').slice(0, 80) || 'item'}-${kind}`, `${item.id}: the ${kind} image`)
    : null
  let missing = 0
  let total = 0
  await eachLink(ctx, links, async url => {
    const maxItems = itemCap(ctx)
    let covers: CoverItem[] | null = null
    if (listing && spec.pageList) {
      const listed = await readPageVideos(ctx, url, spec.pageList)
      if (listed && listed.videos.length > 0) covers = await pageCovers(ctx, url, listed.videos.slice(0, maxItems))
      else if (listed?.wall) ctx.warn(`${shortLink(url)}: ${spec.platform.name} answered a ${listed.wall} page instead of the page's videos (a logged-out visitor is not shown them); trying yt-dlp on the link.`)
    }
    if (covers === null) {
      covers = await ytdlpRows<CoverItem>(ctx, { url, playlist: listing ? 'flat' : 'single', maxItems, parser: 'coversFromJson' })
      // yt-dlp answers a page it cannot list with the page itself (one item, or nothing): say so rather than pass it off as the list.
      if (listing && covers.length <= 1 && covers.every(c => c.url === null || c.url === url)) {
        ctx.warn(`${shortLink(url)}: no video list was found on this page${spec.pageList ? '' : ` (yt-dlp's ${spec.platform.name} extractor lists a page's videos tab only where it supports one)`}; give the videos' own links instead.`)
      }
    }
    total += covers.length
    missing += covers.filter(c => c.cover === null && c.animated_cover === null).length
    const rows: CoverRow[] = []
    for (const cover of covers) {
      rows.push({ ...cover, cover_file: await keep(cover, cover.cover, 'cover'), animated_cover_file: await keep(cover, cover.animated_cover, 'animated-cover') })
    }
    return rows
  })
  if (missing > 0) ctx.warn(`${missing} of ${total} item${total === 1 ? ' has' : 's have'} no cover image in what yt-dlp read.`)
}

/**
 * Each video of a page's list through yt-dlp, like a link given alone; a video
 * that fails is a warning, and the rows say the page they came from. Every
 * video failing ends the link with the last failure.
 */
async function pageCovers (ctx: CoversContext, pageUrl: string, videos: string[]): Promise<CoverItem[]> {
  const rows: CoverItem[] = []
  let last: unknown = null
  for (const [index, video] of videos.entries()) {
    ctx.signal.throwIfAborted()
    ctx.stage(`Reading video ${index + 1} of ${videos.length} of ${shortLink(pageUrl)} with yt-dlp`)
    try {
      const found = await ytdlpRows<CoverItem>(ctx, { url: video, playlist: 'single', maxItems: 1, parser: 'coversFromJson' })
      rows.push(...found.map(row => ({ ...row, input_url: pageUrl })))
    } catch (error) {
      if (ctx.signal.aborted || !(error instanceof JobOutcomeError) || error.needsOperator || error instanceof BlockedTargetError) throw error
      last = error
      ctx.warn(`${shortLink(video)}: ${error.jobError}`)
    }
  }
  if (rows.length === 0 && last !== null) throw last
  return rows
}
