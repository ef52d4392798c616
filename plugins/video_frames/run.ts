// A video's frames: an uploaded file (ctx.upload) is read from disk; a URL
// is read directly when it names a media file, else yt-dlp resolves it
// (through the egress proxy) to its tallest video format within max_height.
// ffmpeg (network through the proxy too) cuts the frames into a fresh
// directory of the job's scratch dir (the kernel removes it at every ending);
// each frame is streamed into a job file and described by one row.
import { createReadStream } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { InputError, ToolBlockedError, UpstreamError, type RunInput, type Static, type ToolContext } from '../../core/tools/contract.ts'
import { bestVideoFormat, frameTimesFromShowinfo, imageSize, videoFramesCommands, type FramesMode, type MediaItem } from '../lib/media/index.ts'
import type { PlatformHealth } from '../lib/media-tools/platform-health.ts'
import { ytdlpRows } from '../lib/media-tools/ytdlp-info.ts'
import type { videoFramesInput, videoFramesRow } from './schema.ts'
import type { VideoFramesSettings } from './settings.ts'

type Row = Static<typeof videoFramesRow>
type Ctx = ToolContext<RunInput<typeof videoFramesInput>, Row, VideoFramesSettings, PlatformHealth>

/** Paths that are media files ffmpeg reads as they are (no page to resolve). */
const MEDIA_PATH = /\.(mp4|m4v|mov|webm|mkv|avi|flv|ts|mpg|mpeg|3gp|ogv|m3u8|mpd)$/i
// showinfo writes a line per frame; a run of 500 frames needs ~150 KB of stderr.
const STDERR_BYTES = 1024 * 1024
const STORE_CONCURRENCY = 8

export async function runVideoFrames (ctx: Ctx): Promise<void> {
  const input = ctx.input
  const maxFrames = Math.min(input.max_frames, ctx.remaining())
  if (maxFrames < 1) return
  const mode = framesMode(input)
  const source = ctx.upload ? ctx.upload.path : await mediaUrl(ctx, input.url)
  const dir = await mkdtemp(join(await ctx.scratchDir(), 'frames-'))
  try {
    ctx.stage('Cutting frames with ffmpeg')
    const commands = videoFramesCommands({ input: source, outputDir: dir, maxFrames, format: input.format, width: input.width }, mode)
    const frames: Array<{ file: string, at: number | null }> = []
    for (const command of commands) {
      ctx.signal.throwIfAborted()
      const result = await ctx.exec.run('ffmpeg', command.args, { network: ctx.upload === null, timeoutMs: ctx.settings.timeout_ms, maxStderrBytes: STDERR_BYTES, cwd: dir })
      if (result.exitCode !== 0) throw ffmpegFailure(result.stderr, ctx.upload !== null)
      if (command.at !== undefined) {
        const name = command.output
        if ((await readdir(dir)).includes(name)) frames.push({ file: name, at: command.at })
        else ctx.warn(`No frame at ${command.at} s: the video is shorter.`)
      } else {
        const times = frameTimesFromShowinfo(result.stderr)
        const files = (await readdir(dir)).filter(f => f.startsWith('frame-')).sort()
        files.forEach((file, i) => frames.push({ file, at: times[i] ?? null }))
      }
    }
    if (frames.length === 0) {
      ctx.warn(mode.mode === 'scene' ? 'No scene change passed the threshold: try a lower scene_threshold.' : 'ffmpeg wrote no frame (an empty or unreadable video stream).')
      return
    }
    const contentType = input.format === 'png' ? 'image/png' : 'image/jpeg'
    // Stored a few at a time: each is a file write and a database row, and the job's time is mostly theirs after ffmpeg.
    const rows: Row[] = []
    for (let start = 0; start < frames.length; start += STORE_CONCURRENCY) {
      ctx.signal.throwIfAborted()
      ctx.stage(`Storing frames: ${start} of ${frames.length}`)
      const batch = frames.slice(start, start + STORE_CONCURRENCY)
      // The first bytes give the size; the file itself is streamed into the store.
      const sizes = await Promise.all(batch.map(async frame => imageSize(await readHead(join(dir, frame.file)))))
      // Each store is asked for in time order, with no await between: the job's files list and zip in it.
      rows.push(...await Promise.all(batch.map(async (frame, offset): Promise<Row> => {
        const index = start + offset
        const size = sizes[offset]
        const name = `frame-${String(index).padStart(5, '0')}${frame.at === null ? '' : `-${clock(frame.at).replace(/:/g, '-')}`}.${contentType === 'image/png' ? 'png' : 'jpg'}`
        const stored = await ctx.artifact({ name, contentType, body: createReadStream(join(dir, frame.file)) })
        return {
          input_url: input.url, source_url: ctx.upload ? null : source, index, time_s: frame.at, timestamp: frame.at === null ? null : clock(frame.at),
          file: { id: stored.id, name: stored.name, url: stored.url, size: stored.size, content_type: contentType },
          width: size?.width ?? null, height: size?.height ?? null,
        }
      })))
    }
    await ctx.push(rows)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function framesMode (input: Ctx['input']): FramesMode {
  if (input.mode === 'timestamps') {
    if (!input.timestamps?.length) throw new InputError('mode "timestamps" needs timestamps: a list of seconds into the video.')
    return { mode: 'timestamps', timestamps: input.timestamps }
  }
  if (input.mode === 'scene') return { mode: 'scene', threshold: input.scene_threshold }
  return { mode: 'interval', everySeconds: input.every_seconds }
}

/** The URL ffmpeg reads: the link itself when it names a media file, else the tallest video format yt-dlp finds (within max_height). */
async function mediaUrl (ctx: Ctx, url: string): Promise<string> {
  if (MEDIA_PATH.test(new URL(url).pathname)) return url
  ctx.stage('Finding the video with yt-dlp')
  const items = await ytdlpRows<MediaItem>(ctx, { url, playlist: 'single', parser: 'mediaItemsFromJson' })
  const format = items[0] ? bestVideoFormat(items[0].formats, { maxHeight: ctx.settings.max_height }) : null
  if (!format?.url || !/^https?:\/\//i.test(format.url)) throw new InputError('No video stream was found at this link.')
  return format.url
}

/** A failed ffmpeg run → the job's outcome, from its last error lines (no path: the runner replaced them). */
function ffmpegFailure (stderr: string, upload: boolean): Error {
  const tail = stderr.split('\n').filter(l => l.trim() !== '' && !l.includes('Parsed_showinfo')).slice(-3).join(' ').slice(-300)
  if (/Server returned 40[13]|Server returned 429|HTTP error 40[13]|HTTP error 429/i.test(stderr)) return new ToolBlockedError('the video host refused the download')
  if (/Server returned 404|HTTP error 404|Server returned 410/i.test(stderr)) return new InputError('The video URL answered 404 (not found).')
  // "Format not on whitelist": a playlist, manifest or list (hls, dash, concat …), which the kernel opens as media only.
  if (/Invalid data found when processing input|does not contain any stream|Output file #0 does not contain|matches no streams|Format not on whitelist/i.test(stderr)) {
    return new InputError(upload ? 'The file is not a video ffmpeg can read.' : 'The URL is not a video ffmpeg can read.')
  }
  return new UpstreamError(`ffmpeg failed: ${tail || 'no message'}`)
}

/** A frame's first 64 KB: enough for a JPEG's frame header or a PNG's IHDR. */
async function readHead (path: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  let length = 0
  for await (const chunk of createReadStream(path, { start: 0, end: 64 * 1024 - 1 })) { chunks.push(chunk as Buffer); length += (chunk as Buffer).length }
  return Buffer.concat(chunks, length)
}

/** Seconds → HH:MM:SS.mmm. */
function clock (seconds: number): string {
  const ms = Math.round(seconds * 1000)
  const pad = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`
}
