// A page's video list where yt-dlp has none (fb_covers `page_videos`): the
// page's HTML through ctx.http (the guard, the body cap), its video links read
// in the extraction pool by the platform's pure parser (plugins/lib/media),
// then each video through yt-dlp like a link given alone.
import { BlockedTargetError, JobOutcomeError, UpstreamError, type ToolContext } from '../../../core/tools/contract.ts'
import type { PageVideoList } from '../media/index.ts'
import type { YtdlpToolSettings } from './settings.ts'
import { shortLink } from './ytdlp-info.ts'

/** Declared by a covers tool whose platform lists a page's videos only in its HTML. */
export interface PageVideoLister {
  /** The page to fetch for a link, or null when the link is not a page (one video, a reel …). */
  listUrl (link: string): string | null
  /** The pure parser `(html, { pageUrl }) → PageVideoList`, run in the extraction pool. */
  parser: { module: URL, name: string }
}

type Ctx = ToolContext<unknown, unknown, YtdlpToolSettings>

/**
 * The page's videos, or null when the link is not a page or the page could not
 * be read (a warning says why; the caller falls back to yt-dlp). The guard's
 * refusal and the job's stop are thrown.
 */
export async function readPageVideos (ctx: Ctx, link: string, lister: PageVideoLister): Promise<PageVideoList | null> {
  const pageUrl = lister.listUrl(link)
  if (pageUrl === null) return null
  ctx.stage(`Reading the video list of ${shortLink(pageUrl)}`)
  try {
    const page = await ctx.http.text(pageUrl, { signal: ctx.signal })
    if (page.status >= 400) throw new UpstreamError(`the page answered HTTP ${page.status}`)
    return await ctx.extract.call<PageVideoList>(lister.parser.module, lister.parser.name, [page.body, { pageUrl: page.url }])
  } catch (error) {
    if (ctx.signal.aborted || error instanceof BlockedTargetError) throw error
    const why = error instanceof JobOutcomeError ? error.jobError : 'it could not be read'
    ctx.warn(`${shortLink(pageUrl)}: the page's video list was not read (${why}); trying yt-dlp on the link.`)
    return null
  }
}
