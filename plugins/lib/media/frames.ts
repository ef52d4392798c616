// ffmpeg argument arrays for video_frames (frames every N seconds, at given
// timestamps, or on scene change) and the reader of the frame times ffmpeg
// reports. Pure: the runner (ctx.exec) takes the arrays as they are, never a
// shell line, so nothing in them is ever interpreted by a shell.

export type FrameImageFormat = 'jpeg' | 'png'

export interface FramesOptions {
  /** A local file (an upload, a download in the job's scratch dir) or an http(s) media URL. */
  input: string
  /** Directory the frames are written to (the job's scratch dir). */
  outputDir: string
  /** At most this many frames in all (every mode). */
  maxFrames: number
  format: FrameImageFormat
  /** Scale to this width, at most MAX_FRAME_SIDE (height keeps the aspect ratio, rounded to even); unset keeps the video's size. Either way the frame is bounded (boundedScale). */
  width?: number
}

/** The widest and tallest frame, and the most pixels one frame may have (3840×2160): a frame's memory and file are bounded whatever the video's size or shape. */
export const MAX_FRAME_SIDE = 3840
export const MAX_FRAME_PIXELS = 3840 * 2160

export type FramesMode =
  | { mode: 'interval', everySeconds: number }
  | { mode: 'timestamps', timestamps: number[] }
  | { mode: 'scene', threshold?: number }

export interface FramesCommand {
  /** ffmpeg's arguments (the binary is the runner's). */
  args: string[]
  /** The image file(s) it writes: a printf pattern (`frame-%05d.jpg`, numbered from 0) or one file name. */
  output: string
  /** The time (s) this command's single frame is taken at (timestamps mode); otherwise read them from stderr with frameTimesFromShowinfo. */
  at?: number
}

export const DEFAULT_SCENE_THRESHOLD = 0.4
const EXT: Record<FrameImageFormat, string> = { jpeg: 'jpg', png: 'png' }

/**
 * The input as ffmpeg must see it: an http(s) URL, or a local path behind
 * `file:` so a name with a colon or a leading dash is never read as a protocol
 * or an option. Anything else (`concat:`, `subfile:` …) is refused here;
 * ffmpeg's profile (programs.ts) checks the input again through the kernel on
 * every run and adds the protocol and format whitelists (README.md, "The
 * programs' guards").
 */
export function ffmpegInput (input: string): string[] {
  if (/^https?:\/\//i.test(input)) return ['-i', input]
  if (/^[a-z][a-z0-9+.-]*:/i.test(input) && !/^file:/i.test(input) && !/^[a-z]:[\\/]/i.test(input)) {
    throw new RangeError('ffmpeg input must be an http(s) URL or a local file')
  }
  return ['-i', /^file:/i.test(input) ? input : `file:${input}`]
}

const COMMON = ['-hide_banner', '-nostdin', '-y']
// showinfo logs each output frame's pts_time at the info level; -nostats keeps the progress line out of stderr.
const LOG = ['-loglevel', 'info', '-nostats']

function check (options: FramesOptions, mode: FramesMode): void {
  if (!Number.isInteger(options.maxFrames) || options.maxFrames < 1) throw new RangeError('maxFrames must be a positive integer')
  if (options.width !== undefined && (!Number.isInteger(options.width) || options.width < 16 || options.width > MAX_FRAME_SIDE)) throw new RangeError(`width must be an integer from 16 to ${MAX_FRAME_SIDE}`)
  if (mode.mode === 'interval' && !(mode.everySeconds > 0 && Number.isFinite(mode.everySeconds))) throw new RangeError('everySeconds must be a positive number')
  if (mode.mode === 'scene' && mode.threshold !== undefined && !(mode.threshold > 0 && mode.threshold < 1)) throw new RangeError('the scene threshold lies between 0 and 1')
  if (mode.mode === 'timestamps' && mode.timestamps.some(t => !(t >= 0 && Number.isFinite(t)))) throw new RangeError('timestamps are seconds from 0')
}

/** `fps=1/N` as an exact ratio of integers (ffmpeg reads a rate as num/den). */
function fpsFilter (everySeconds: number): string {
  const den = Math.round(everySeconds * 1000)
  return `fps=1000/${den}`
}

const imageArgs = (format: FrameImageFormat): string[] => (format === 'jpeg' ? ['-c:v', 'mjpeg', '-q:v', '2'] : ['-c:v', 'png'])

/**
 * The scale filter every frame goes through: `width` wide (the height keeping
 * the aspect ratio, even), or the video's own size; then, if that passes
 * MAX_FRAME_SIDE on either side or MAX_FRAME_PIXELS, scaled down into them
 * keeping the aspect ratio, both sides even (at least 2). A 64×384 video at
 * width 3840 gives 640×3840, not 3840×23040; a 7680×4320 one with no width
 * gives 3840×2160. The factor is computed by ffmpeg from the input's size
 * (iw, ih), which only it knows; +1e-6 keeps an exact size from rounding down.
 */
export function boundedScale (width?: number): string {
  const fit = `min(${MAX_FRAME_SIDE}/iw,min(${MAX_FRAME_SIDE}/ih,sqrt(${MAX_FRAME_PIXELS}/(iw*ih))))`
  const even = (side: string, factor: string) => `max(2,2*trunc(${side}*${factor}/2+1e-6))`
  if (width === undefined) {
    // Within the box: the video's size, untouched (odd sides too).
    return `scale=w='if(lt(${fit},1),${even('iw', fit)},iw)':h='if(lt(${fit},1),${even('ih', fit)},ih)'`
  }
  const asked = `${width}/iw`
  const factor = `min(${asked},${fit})`
  return `scale=w='if(lt(${factor},${asked}),${even('iw', factor)},${width})':h='${even('ih', factor)}'`
}
const scale = (width?: number): string[] => [boundedScale(width)]
const join = (dir: string, name: string) => `${dir.replace(/\/+$/, '')}/${name}`

/**
 * The ffmpeg command(s) for one frames request:
 * - `interval`: one run, `fps=1/N` (a 3 s video at 1 frame/s gives the frames at 0, 1 and 2 s);
 * - `scene`: one run, `select='gt(scene,T)'` (T default 0.4) with variable frame rate output;
 * - `timestamps`: one run per timestamp (sorted, repeats dropped, cut to maxFrames), seeking
 *   before the input (`-ss` then `-i`), which is fast and frame-accurate with ffmpeg ≥ 2.1.
 * Each run writes at most maxFrames images (`-frames:v`), ignores audio, subtitles and data
 * streams, and logs each frame's time (showinfo) for frameTimesFromShowinfo.
 */
export function videoFramesCommands (options: FramesOptions, mode: FramesMode): FramesCommand[] {
  check(options, mode)
  const ext = EXT[options.format]
  const input = ffmpegInput(options.input)
  if (mode.mode === 'timestamps') {
    const times = [...new Set(mode.timestamps.map(t => Math.round(t * 1000) / 1000))].sort((a, b) => a - b).slice(0, options.maxFrames)
    return times.map((at, i) => {
      const output = `frame-${String(i).padStart(5, '0')}.${ext}`
      const filters = scale(options.width)
      return {
        at,
        output,
        args: [...COMMON, ...LOG, '-ss', String(at), ...input, '-map', '0:v:0', '-an', '-sn', '-dn', ...(filters.length ? ['-vf', filters.join(',')] : []), '-frames:v', '1', ...imageArgs(options.format), '-f', 'image2', '-update', '1', join(options.outputDir, output)],
      }
    })
  }
  const select = mode.mode === 'interval'
    ? [fpsFilter(mode.everySeconds)]
    : [`select='gt(scene,${mode.threshold ?? DEFAULT_SCENE_THRESHOLD})'`]
  const filters = [...select, ...scale(options.width), 'showinfo']
  const output = `frame-%05d.${ext}`
  return [{
    output,
    args: [
      ...COMMON, ...LOG, ...input, '-map', '0:v:0', '-an', '-sn', '-dn',
      '-vf', filters.join(','),
      // Scene frames come at irregular times: keep them as they are instead of duplicating to a constant rate.
      ...(mode.mode === 'scene' ? ['-fps_mode', 'vfr'] : []),
      '-frames:v', String(options.maxFrames), ...imageArgs(options.format), '-f', 'image2', '-start_number', '0', join(options.outputDir, output),
    ],
  }]
}

/**
 * The time (s) of each frame written, in order, from ffmpeg's stderr: the
 * showinfo filter logs `n:<i> pts:<p> pts_time:<t>` per frame. The fps filter
 * starts at the first frame's time, so an interval run's times are 0, N, 2N…
 * for a video that starts at 0.
 */
export function frameTimesFromShowinfo (stderr: string): number[] {
  const times: number[] = []
  for (const m of stderr.matchAll(/\[Parsed_showinfo_\d+ [^\]]*\]\s+n:\s*(\d+)\s+pts:\s*-?\d+\s+pts_time:\s*(-?[\d.]+(?:e-?\d+)?)/g)) {
    times[Number(m[1])] = Number(m[2])
  }
  return times.filter(t => t !== undefined)
}
