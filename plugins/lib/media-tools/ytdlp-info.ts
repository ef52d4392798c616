// One link through yt-dlp (`--dump-single-json --no-download`), guarded by
// ctx.exec with the network through the egress proxy, and its answer mapped to
// rows in the extraction pool (parsing a YouTube dict is ~850 KB of JSON: not
// on the API thread). Shared by the dl_* and covers tools.
import { eachItem, ExtractionError, InputError, listItems, UpstreamError, type ListInput, type ToolContext } from '../../../core/tools/contract.ts'
import { ytdlpFailure, ytdlpInfoArgs, type InfoArgsOptions } from '../media/index.ts'
import { observeYtdlpRun, type PlatformHealth } from './platform-health.ts'
import type { YtdlpToolSettings } from './settings.ts'

/** What a media tool's run gets: the yt-dlp settings, and the platforms' health as its state (createPlatformHealth). */
export type MediaToolContext<Input = unknown, Row = unknown> = ToolContext<Input, Row, YtdlpToolSettings, PlatformHealth>

/** A run that reads links with yt-dlp (a media tool's, video_frames'), or a test's with no platform health. */
type Ctx = ToolContext<unknown, unknown, YtdlpToolSettings, PlatformHealth | undefined>

/** The pure `*FromJson` entry points of plugins/lib/media this module runs in the pool. */
const PARSERS = {
  mediaItemsFromJson: new URL('../media/info-dict.ts', import.meta.url),
  coversFromJson: new URL('../media/covers.ts', import.meta.url),
} as const

export interface InfoRequest {
  url: string
  playlist: NonNullable<InfoArgsOptions['playlist']>
  /** Entries at most, for a playlist (the run's remaining rows); a single item has none. */
  maxItems?: number
  parser: keyof typeof PARSERS
}

/** Rows of one link, the run recorded in the platform's health. Throws the job outcome yt-dlp's failure maps to (ytdlpFailure), or the guard's. */
export async function ytdlpRows<Row> (ctx: Ctx, request: InfoRequest): Promise<Row[]> {
  let args: string[]
  try {
    args = ytdlpInfoArgs(request.url, { playlist: request.playlist, maxItems: request.maxItems, cookiesFile: ctx.settings.cookies_file })
  } catch {
    throw new InputError('Only http and https links can be read.')
  }
  const maxBytes = ctx.settings.max_info_mb * 1024 * 1024
  const result = await ctx.exec.run('yt-dlp', args, { network: true, timeoutMs: ctx.settings.timeout_ms, maxStdoutBytes: maxBytes })
  await observeYtdlpRun(ctx.state, request.url, result)
  if (result.exitCode !== 0) throw ytdlpFailure(result.stderr)
  if (result.stdoutTruncated) throw new UpstreamError(`yt-dlp's answer passed ${ctx.settings.max_info_mb} MB (the max_info_mb setting)${request.playlist === 'full' ? '; ask for the flat listing of a long playlist' : ''}`)
  try {
    return await ctx.extract.call<Row[]>(PARSERS[request.parser], request.parser, [result.stdout, { inputUrl: request.url }])
  } catch (error) {
    if (error instanceof ExtractionError) throw new UpstreamError(`yt-dlp's answer could not be read (${error.reason})`)
    throw error
  }
}

/**
 * The media tools' list input: `url`, one link or a list; a link that fails is
 * a warning while others remain. A refusal by the platform (a login wall, a
 * rate limit, a bot check: ytdlpFailure's blocked outcomes) stops the list
 * there: the next links would meet the same refusal, and asking again only
 * hammers the platform. The rows already read are kept and a warning names the
 * links not read; before any was read it is the job's (blocked, refunded). A
 * row that only says why its link failed (dl_yt's age gate, `error`) is not
 * one read.
 */
export const LINKS_LIST = {
  param: 'url',
  noun: 'links',
  onItemError: 'warn-and-skip',
  onBlocked: 'stop-list',
  readRow: (row: unknown) => (row as { error?: unknown } | null)?.error == null,
} as const satisfies ListInput<unknown>

/** The run's links: its `url` input (one link or a list), within the run's row room (listItems). */
export function linksOf (ctx: ToolContext<{ url: string | string[] }, unknown, unknown>): string[] {
  return listItems(ctx, LINKS_LIST)
}

/** Entries at most for one link's listing: `max_results` (default 100), within the run's remaining rows, at least 1. */
export function itemCap (ctx: ToolContext<{ max_results: number }, unknown, unknown>): number {
  return Math.max(1, Math.min(ctx.input.max_results, ctx.remaining()))
}

/**
 * Runs `each` over the links one at a time and pushes its rows, under the
 * contract's list policy (eachItem, LINKS_LIST): one link's failure becomes a
 * warning when others remain; when every link failed, the last failure is the
 * job's; a refusal by the platform stops the list, keeping the rows read; a
 * failure that will repeat for every link, the guard's refusal and a stop end
 * the job at once.
 */
export async function eachLink<Row> (ctx: ToolContext<unknown, Row, YtdlpToolSettings, unknown>, links: string[], each: (url: string) => Promise<Row[]>): Promise<{ rows: number, failed: number }> {
  return await eachItem(ctx, LINKS_LIST, links, async url => {
    const found = await each(url)
    if (found.length === 0) ctx.warn(`${shortLink(url)}: yt-dlp found no media.`)
    return found
  }, { stage: (index, total) => `Reading link ${index + 1} of ${total} with yt-dlp`, label: shortLink })
}

/** A link as a warning may quote it: origin and path, no query (it may carry a token). */
export function shortLink (url: string): string {
  try {
    const u = new URL(url)
    return `${u.origin}${u.pathname}`.slice(0, 120)
  } catch {
    return url.slice(0, 120)
  }
}
