// One reel: yt-dlp -J (through the egress proxy) → in the pool, the caption
// split into hashtags and mentions and the subtitle track to fetch → the track
// fetched with ctx.http (the guard applies; tracks are small) → converted in the
// pool to .srt, .vtt and .txt → stored as job files. No track: a warning.
import { ExtractionError, InputError, ToolBlockedError, UpstreamError, type RunInput, type Static } from '../../core/tools/contract.ts'
import { ytdlpFailure, ytdlpInfoArgs } from '../lib/media/index.ts'
import { eachLink, linksOf, observeYtdlpRun, shortLink, type MediaToolContext } from '../lib/media-tools/index.ts'
import type { igCaptionsInput, igCaptionsRow } from './schema.ts'

type Row = Static<typeof igCaptionsRow>
type Ctx = MediaToolContext<RunInput<typeof igCaptionsInput>, Row>
type CaptionsInfo = ReturnType<typeof import('../lib/media/captions.ts').captionsInfoFromJson>

const CAPTIONS = new URL('../lib/media/captions.ts', import.meta.url)
/** A subtitle file is text: a few hundred KB for an hour. */
const MAX_TRACK_BYTES = 5 * 1024 * 1024
const TYPES = { srt: 'application/x-subrip', vtt: 'text/vtt', txt: 'text/plain; charset=utf-8' } as const

export async function runIgCaptions (ctx: Ctx): Promise<void> {
  const links = linksOf(ctx)
  const language = ctx.input.language
  const without: string[] = []
  await eachLink(ctx, links, async url => {
    const row = await captionsOf(ctx, url, language)
    if (row.subtitle_language === null) without.push(`${shortLink(url)} (offers: ${row.languages_offered.join(', ') || 'none'})`)
    return [row]
  })
  if (without.length > 0) ctx.warn(`No subtitles or automatic captions in "${language}" for ${without.length} item${without.length === 1 ? '' : 's'}: ${without.slice(0, 5).join('; ')}${without.length > 5 ? '; …' : ''}. The creator's caption is still in each row.`)
}

async function captionsOf (ctx: Ctx, url: string, language: string): Promise<Row> {
  let args: string[]
  try {
    args = ytdlpInfoArgs(url, { playlist: 'single', cookiesFile: ctx.settings.cookies_file })
  } catch {
    throw new InputError('Only http and https links can be read.')
  }
  const result = await ctx.exec.run('yt-dlp', args, { network: true, timeoutMs: ctx.settings.timeout_ms, maxStdoutBytes: ctx.settings.max_info_mb * 1024 * 1024 })
  await observeYtdlpRun(ctx.state, url, result)
  if (result.exitCode !== 0) throw ytdlpFailure(result.stderr)
  if (result.stdoutTruncated) throw new UpstreamError(`yt-dlp's answer passed ${ctx.settings.max_info_mb} MB (the max_info_mb setting)`)
  const info = await pooled<CaptionsInfo>(ctx, 'captionsInfoFromJson', [result.stdout, language])
  const row: Row = {
    input_url: url, id: info.id, url: info.url, author: info.author, ...info.caption,
    subtitle_language: null, subtitle_automatic: null, subtitle_text: null, subtitle_cues: 0, languages_offered: info.languages, files: [],
  }
  if (info.track === null) return row
  ctx.stage(`Fetching the ${info.track.language} subtitles of ${shortLink(url)}`)
  const track = await ctx.http.text(info.track.url, { maxBytes: MAX_TRACK_BYTES, timeoutMs: ctx.settings.timeout_ms })
  if (track.status === 403 || track.status === 429) throw new ToolBlockedError(`the subtitle host answered HTTP ${track.status}`)
  if (track.status < 200 || track.status >= 300) throw new UpstreamError(`the subtitle host answered HTTP ${track.status}`)
  const converted = await pooled<{ srt: string, vtt: string, txt: string, cues: number } | null>(ctx, 'convertSubtitles', [track.body, info.track.ext])
  if (converted === null) throw new UpstreamError(`the subtitle track came as .${info.track.ext}, which cannot be converted`)
  const base = `${(info.id ?? 'item').replace(/[^\w.-]+/g, '_').slice(0, 80)}.${info.track.language}`
  for (const format of ['srt', 'vtt', 'txt'] as const) {
    const file = await ctx.artifact({ name: `${base}.${format}`, contentType: TYPES[format], body: Buffer.from(converted[format], 'utf8') })
    row.files.push({ format, id: file.id, name: file.name, url: file.url, size: file.size })
  }
  Object.assign(row, { subtitle_language: info.track.language, subtitle_automatic: info.track.automatic, subtitle_text: converted.txt, subtitle_cues: converted.cues })
  return row
}

async function pooled<T> (ctx: Ctx, name: string, args: unknown[]): Promise<T> {
  try {
    return await ctx.extract.call<T>(CAPTIONS, name, args)
  } catch (error) {
    if (error instanceof ExtractionError) throw new UpstreamError(`yt-dlp's answer or the subtitle file could not be read (${error.reason})`)
    throw error
  }
}
