// Runs `yt`: the entries of the list through the contract's list facility
// (`concurrency` at a time, rows in the list's order); a video is two InnerTube
// requests (/player, /next), a channel its videos tab (/browse, the header
// comes with it), the about panel and continuation pages up to max_results, a
// playlist its /browse pages. The answers are parsed in the kernel's worker
// pool by extract.ts. See README.md for what fails how.
import { eachItem, InputError, listItems, ToolBlockedError, UpstreamError, type RunInput, type Static, type ToolContext } from '../../core/tools/contract.ts'
import { DEFAULT_YOUTUBE_BASE, openInnertube, type InnertubeSession } from '../lib/youtube/innertube.ts'
import { ENTRIES_LIST } from './list.ts'
import type { ChannelFields, VideoFields, YtRow, ytInput, ytRow } from './schema.ts'
import type { YtSettings } from './settings.ts'
import { parseTarget, type Target } from './targets.ts'
import type * as Extract from './extract.ts'

type Ctx = ToolContext<RunInput<typeof ytInput>, Static<typeof ytRow>, YtSettings>
type Source = YtRow['source']

const EXTRACT_MODULE = new URL('./extract.ts', import.meta.url)
/** The channel page's "Videos" tab (InnerTube browse params, as youtube.com sends them). */
export const VIDEOS_TAB_PARAMS = 'EgZ2aWRlb3PyBgQKAjoA'

const EMPTY_ROW = {
  video_id: null, title: null, channel_name: null, channel_id: null, channel_url: null, view_count: null, like_count: null,
  comment_count: null, duration_seconds: null, published_at: null, published_text: null, tags: [], category: null,
  description: null, thumbnails: [], chapters: [], is_live: null, was_live: null, is_short: null, handle: null,
  subscriber_count: null, subscriber_text: null, total_views: null, video_count: null, country: null, joined_date: null,
  links: [], verified: null, playlist_id: null, playlist_title: null, position: null, error: null,
} satisfies Omit<YtRow, 'input_url' | 'type' | 'source' | 'url'>

export function videoRow (input: string, source: Source, video: VideoFields, extra: Partial<YtRow> = {}): YtRow {
  return { ...EMPTY_ROW, ...video, input_url: input, type: 'video', source, ...extra }
}

export function channelRow (input: string, channel: ChannelFields, extra: Partial<YtRow> = {}): YtRow {
  const { keywords, ...fields } = channel
  return { ...EMPTY_ROW, ...fields, tags: keywords, title: channel.channel_name, url: channel.channel_url ?? '', input_url: input, type: 'channel', source: 'channel', ...extra }
}

/** Failures that are this entry's (a wrong id, a removed video): a row error, the run goes on. Others end the job. */
function entryError (error: unknown): string | null {
  if (error instanceof ToolBlockedError || !(error instanceof UpstreamError)) return null
  if (error.status === 400 || error.status === 404 || error.status === 410) return 'not found on YouTube (a wrong id, or removed)'
  return error.message
}

export async function runYt (ctx: Ctx): Promise<void> {
  const given = listItems(ctx, ENTRIES_LIST)
  const targets = new Map<string, Target>()
  const rejected: string[] = []
  for (const input of given) {
    const target = parseTarget(input)
    if (target) targets.set(input, target)
    else rejected.push(input)
  }
  if (rejected.length) ctx.warn(`Skipped ${rejected.length} entr${rejected.length === 1 ? 'y' : 'ies'} that ${rejected.length === 1 ? 'is' : 'are'} not a YouTube video, channel or playlist: ${rejected.slice(0, 5).map(r => JSON.stringify(r.slice(0, 80))).join(', ')}${rejected.length > 5 ? ', …' : ''}`)
  if (targets.size === 0) throw new InputError('No YouTube video, channel or playlist to read: give a watch, youtu.be or shorts link or a video id, a channel link, @handle or UC… id, or a playlist link.')

  const session = await openInnertube(ctx.http, {
    base: ctx.upstream.urls.youtube ?? DEFAULT_YOUTUBE_BASE,
    timeoutMs: ctx.settings.timeout_ms,
    language: ctx.settings.language,
    region: ctx.settings.region,
  })
  const run = new YtRun(ctx, session)
  let failed = 0
  const reasons = new Set<string>()
  // A refusal (a bot wall, HTTP 429) partway through the list keeps the rows already read and says which
  // entries were not (the list's onBlocked); before any was read, it is the job's (blocked, refunded).
  // Videos go `concurrency` at a time; a channel or playlist (many requests) waits for the entries before
  // it, as the videos before a refusal are all that are in flight when it comes. Once a refusal is met,
  // no entry sends another request: they are not read anyway.
  const over: Array<Promise<unknown>> = []
  let refusal: ToolBlockedError | null = null
  await eachItem(ctx, ENTRIES_LIST, [...targets.keys()], (input, index) => {
    const work = (async () => {
      const target = targets.get(input)!
      if (target.kind !== 'video') await Promise.all(over.slice(0, index))
      if (refusal) throw refusal
      try {
        return target.kind === 'video' ? [await run.video(input, target.id)]
          : target.kind === 'playlist' ? await run.playlist(input, target.id)
            : await run.channel(input, target)
      } catch (error) {
        if (error instanceof ToolBlockedError) refusal ??= error
        throw error
      }
    })()
    over[index] = work.catch(() => {})
    return work.then(rows => {
      // An entry failed when it gave only its error row.
      if (rows.every(row => row.error !== null)) {
        failed++
        for (const row of rows) reasons.add(row.error!)
      }
      return rows
    })
  }, {
    concurrency: ctx.settings.concurrency,
    stage: (index, total, input) => `Reading ${kindWords[targets.get(input)!.kind]}: ${index + 1} of ${total} entries`,
  })
  if (failed === targets.size) throw new UpstreamError(`YouTube failed for ${targets.size === 1 ? 'the entry' : `all ${targets.size} entries`}: ${[...reasons].slice(0, 3).join('; ')}`)
}

const kindWords: Record<Target['kind'], string> = { video: 'a video', playlist: 'a playlist', channel: 'a channel', channel_url: 'a channel' }

class YtRun {
  constructor (private readonly ctx: Ctx, private readonly session: InnertubeSession) {}

  private parse<K extends keyof typeof Extract> (name: K, args: Parameters<typeof Extract[K]>): Promise<ReturnType<typeof Extract[K]>> {
    return this.ctx.extract.call(EXTRACT_MODULE, name, args)
  }

  /** One video's row: /player and /next at once. An age gate is the row's error; a bot wall throws ToolBlockedError. */
  async video (input: string, id: string): Promise<YtRow> {
    const payload = { videoId: id, racyCheckOk: true, contentCheckOk: true }
    let player: string, next: string | null
    try {
      [player, next] = await Promise.all([
        this.session.post('/player', payload),
        // /next only adds likes, comments and chapters: its failure leaves them null.
        this.session.post('/next', payload).catch((error: unknown) => { if (entryError(error) === null) throw error; return null }),
      ])
    } catch (error) {
      const reason = entryError(error)
      if (reason === null) throw error
      return videoRow(input, 'video', emptyVideo(id), { url: `https://www.youtube.com/watch?v=${id}`, error: reason })
    }
    const { video, playability } = await this.parse('readVideo', [player, next, id])
    if (playability.bot_wall) throw new ToolBlockedError(`YouTube asked to sign in${playability.reason ? ` ("${playability.reason}")` : ''}`)
    return videoRow(input, 'video', video, { error: playability.error })
  }

  /** A channel row, then its newest videos to max_results (continuations followed); or the row saying why the channel could not be read. */
  async channel (input: string, target: Extract<Target, { kind: 'channel' | 'channel_url' }>): Promise<YtRow[]> {
    const { ctx } = this
    let first: Awaited<ReturnType<typeof Extract.readChannelPage>>
    try {
      const id = target.kind === 'channel' ? target.id : await this.resolveChannel(target.url)
      if (id === null) return this.failedEntry(input, 'channel', 'no such channel (the handle or name did not resolve)')
      first = await this.parse('readChannelPage', [await this.session.post('/browse', { browseId: id, params: VIDEOS_TAB_PARAMS }), Date.now()])
    } catch (error) {
      const reason = entryError(error)
      if (reason === null) throw error
      return this.failedEntry(input, 'channel', reason)
    }
    const { about_token: aboutToken, ...channel } = first.channel
    if (aboutToken && ctx.settings.channel_about) {
      try {
        Object.assign(channel, await this.parse('aboutFromBrowse', [await this.session.post('/browse', { continuation: aboutToken })]))
      } catch (error) {
        if (entryError(error) === null) throw error
        ctx.warn(`The about panel of ${channel.channel_name ?? input} could not be read: total views, joined date, country and links are missing.`)
      }
    }
    const rows = [channelRow(input, channel)]
    return this.listPages(input, 'channel', first.page, { channel_name: channel.channel_name, channel_id: channel.channel_id, channel_url: channel.channel_url }, {}, rows)
  }

  /** A playlist's videos in order to max_results; or the row saying why it could not be read. */
  async playlist (input: string, id: string): Promise<YtRow[]> {
    let first: Awaited<ReturnType<typeof Extract.readPlaylistPage>>
    try {
      first = await this.parse('readPlaylistPage', [await this.session.post('/browse', { browseId: id.startsWith('VL') ? id : `VL${id}` }), Date.now()])
    } catch (error) {
      const reason = entryError(error)
      if (reason === null) throw error
      return this.failedEntry(input, 'playlist', reason, { playlist_id: id })
    }
    if (first.page.videos.length === 0) return this.failedEntry(input, 'playlist', 'the playlist has no public videos (or is private)', { playlist_id: id, playlist_title: first.playlist.title })
    return this.listPages(input, 'playlist', first.page, {}, { playlist_id: id, playlist_title: first.playlist.title }, [])
  }

  private async resolveChannel (url: string): Promise<string | null> {
    return this.parse('channelIdFromResolve', [await this.session.post('/navigation/resolve_url', { url })])
  }

  /**
   * `rows` and then the first page's videos, following continuation tokens
   * until max_results, the run's remaining rows (less those this entry has
   * already) or the end.
   */
  private async listPages (input: string, source: Source, first: Extract.VideoPage, owner: Partial<VideoFields>, extra: Partial<YtRow>, rows: YtRow[]): Promise<YtRow[]> {
    const { ctx } = this
    let page: Extract.VideoPage | null = first
    let position = 0
    const seen = new Set<string>()
    while (page) {
      const fresh = page.videos.filter(v => !seen.has(v.video_id))
      const wanted = Math.min(ctx.input.max_results - position, ctx.remaining() - rows.length)
      const listed = fresh.slice(0, Math.max(0, wanted)).map(v => {
        seen.add(v.video_id)
        const filled = { ...v, channel_name: v.channel_name ?? owner.channel_name ?? null, channel_id: v.channel_id ?? owner.channel_id ?? null, channel_url: v.channel_url ?? owner.channel_url ?? null }
        return videoRow(input, source, filled, { ...extra, position: ++position })
      })
      rows.push(...listed)
      if (position >= ctx.input.max_results || ctx.remaining() - rows.length <= 0 || !page.continuation || fresh.length === 0) break
      ctx.signal.throwIfAborted()
      ctx.stage(`Reading ${source === 'playlist' ? 'the playlist' : 'the channel\'s videos'}: ${position} so far`)
      const token: string = page.continuation
      try {
        page = await this.parse('videosFromBrowse', [await this.session.post('/browse', { continuation: token }), Date.now()])
      } catch (error) {
        if (entryError(error) === null) throw error
        ctx.warn(`A further page of ${input} could not be read: ${position} videos listed.`)
        page = null
      }
    }
    return rows
  }

  private failedEntry (input: string, source: Source, reason: string, extra: Partial<YtRow> = {}): YtRow[] {
    return [{ ...EMPTY_ROW, input_url: input, type: source === 'playlist' ? 'video' : 'channel', source, url: input, error: reason, ...extra }]
  }
}

function emptyVideo (id: string): VideoFields {
  return {
    video_id: id, url: `https://www.youtube.com/watch?v=${id}`, title: null, channel_name: null, channel_id: null, channel_url: null,
    view_count: null, like_count: null, comment_count: null, duration_seconds: null, published_at: null, published_text: null,
    tags: [], category: null, description: null, thumbnails: [], chapters: [], is_live: false, was_live: false, is_short: false,
  }
}
