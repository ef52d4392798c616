// Runs `yt_tx`: per video, /player (InnerTube through youtubei.js and the
// guarded client) for its caption tracks, the chosen track's timedtext URL
// with fmt=json3 (and tlang= for a translation) through the guarded client,
// then the cues and files (tracks.ts, in the worker pool) and the artifacts.
import { eachItem, InputError, listItems, ToolBlockedError, UpstreamError, type RunInput, type Static, type ToolContext } from '../../core/tools/contract.ts'
import { youtubeVideoId, youtubeWatchUrl } from '../lib/media/index.ts'
import { DEFAULT_YOUTUBE_BASE, guardedFetch, openInnertube, type InnertubeSession } from '../lib/youtube/innertube.ts'
import type { ytTxInput, ytTxRow } from './schema.ts'
import { VIDEOS_LIST } from './list.ts'
import type { YtTxSettings } from './settings.ts'
import type * as Tracks from './tracks.ts'

type Row = Static<typeof ytTxRow>
type Ctx = ToolContext<RunInput<typeof ytTxInput>, Row, YtTxSettings>
const TRACKS_MODULE = new URL('./tracks.ts', import.meta.url)

export async function runYtTx (ctx: Ctx): Promise<void> {
  const given = listItems(ctx, VIDEOS_LIST)
  const videos = new Map(given.map(input => [input, youtubeVideoId(input)]).filter((v): v is [string, string] => v[1] !== null))
  if (videos.size < given.length) ctx.warn(`Skipped ${given.length - videos.size} entr${given.length - videos.size === 1 ? 'y' : 'ies'} that ${given.length - videos.size === 1 ? 'is' : 'are'} not a YouTube video link or id.`)
  if (videos.size === 0) throw new InputError('No YouTube video link or id: give a watch, youtu.be or shorts link or an 11-character id.')
  const base = ctx.upstream.urls.youtube ?? DEFAULT_YOUTUBE_BASE
  const session = await openInnertube(ctx.http, { base, timeoutMs: ctx.settings.timeout_ms, language: 'en', region: 'US' })
  const timedtext = guardedFetch(ctx.http, { base, timeoutMs: ctx.settings.timeout_ms })
  let failed = 0
  // A refusal (a bot wall, HTTP 429) partway through the list keeps the transcripts already read and
  // says which videos were not (the list's onBlocked); before any was read, it is the job's (blocked, refunded).
  const done = await eachItem(ctx, VIDEOS_LIST, [...videos.keys()], async input => {
    const row = await transcript(ctx, session, timedtext, input, videos.get(input)!)
    if (row.error !== null) failed++
    return [row]
  }, { stage: (index, total) => `Reading captions: ${index} of ${total} videos` })
  if (done.failed === 0 && failed === videos.size) throw new UpstreamError(`YouTube failed for ${videos.size === 1 ? 'the video' : `all ${videos.size} videos`}: see each row's error`)
}

async function transcript (ctx: Ctx, session: InnertubeSession, timedtext: typeof fetch, input: string, id: string): Promise<Row> {
  const row: Row = {
    input_url: input, video_id: id, url: youtubeWatchUrl(id), title: null, has_captions: false, language: null, language_name: null,
    kind: null, translated_from: null, available_languages: [], segments: [], text: null, files: [], error: null,
  }
  const call = <K extends keyof typeof Tracks>(name: K, args: Parameters<typeof Tracks[K]>) => ctx.extract.call<ReturnType<typeof Tracks[K]>>(TRACKS_MODULE, name, args)
  let captions: Tracks.PlayerCaptions
  try {
    captions = await call('captionsFromPlayer', [await session.post('/player', { videoId: id, racyCheckOk: true, contentCheckOk: true })])
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error
    return { ...row, error: error.status === 400 || error.status === 404 ? 'not found on YouTube (a wrong id, or removed)' : error.message }
  }
  const { playability } = captions
  if (playability.bot_wall) throw new ToolBlockedError(`YouTube asked to sign in${playability.reason ? ` ("${playability.reason}")` : ''}`)
  row.title = captions.title
  row.available_languages = captions.tracks.map(t => ({ language: t.language, name: t.name, kind: t.kind }))
  // An age gate, a private or removed video: this row's error, the list goes on.
  if (playability.error !== null && captions.tracks.length === 0) return { ...row, error: playability.error }
  const chosen = await call('pickTrack', [captions.tracks, ctx.input.language, { auto: ctx.input.auto_captions, translateTo: ctx.input.translate_to ?? null, translationLanguages: captions.translation_languages }])
  if (!chosen) return row // has_captions false: the row lists what exists
  const url = new URL(chosen.track.base_url)
  url.searchParams.set('fmt', 'json3')
  if (chosen.translate) url.searchParams.set('tlang', chosen.translate)
  let body: string
  try {
    const res = await timedtext(url.href)
    if (!res.ok) { await res.body?.cancel().catch(() => {}); throw new UpstreamError(`the caption track answered HTTP ${res.status}`, res.status) }
    body = await res.text()
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error
    return { ...row, error: error.message }
  }
  let parsed: ReturnType<typeof Tracks.transcriptFromJson3>
  try {
    parsed = await call('transcriptFromJson3', [body])
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error
    return { ...row, error: 'the caption track could not be read' }
  }
  Object.assign(row, {
    has_captions: true,
    language: chosen.translate ?? chosen.track.language,
    language_name: chosen.translate ? null : chosen.track.name,
    kind: chosen.track.kind,
    translated_from: chosen.translate ? chosen.track.language : null,
    segments: parsed.segments,
    text: parsed.txt,
  })
  if (ctx.settings.files) {
    const stem = `${id}.${row.language}`
    for (const [ext, type, content] of [['txt', 'text/plain', parsed.txt], ['srt', 'application/x-subrip', parsed.srt], ['vtt', 'text/vtt', parsed.vtt]] as const) {
      const ref = await ctx.artifact({ name: `${stem}.${ext}`, contentType: type, body: Buffer.from(content, 'utf8') })
      row.files.push({ name: ref.name, url: ref.url, size: ref.size })
    }
  }
  return row
}
