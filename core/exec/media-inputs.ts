// What ffmpeg, ffprobe and yt-dlp may open, checked by the runner before it
// spawns them (see README.md, "Inputs"). Every input is treated as hostile:
// an upload named holiday.mp4 may be an HLS playlist, a DASH manifest or an
// ffconcat list naming other files on the server's disk, and a remote page or
// manifest may name `file:` URLs.
//
// - ffmpeg (each `-i`) and ffprobe (its one input): an http(s) URL, opened
//   with network protocols only and only with `network: true`; or a file
//   inside the job's own folders (`localRoots`), opened as `file:` with
//   `-format_whitelist` of plain container and raw demuxers, so no playlist,
//   manifest, list or image sequence demuxer ever starts. Anything else
//   (`concat:`, `subfile:`, `pipe:`, a path elsewhere) is refused;
// - their options that read a file by name (`-attach`, filter scripts, the
//   `movie`, `subtitles`, `textfile=` … filters) are refused;
// - yt-dlp: no option that would undo the guard (`--proxy`,
//   `--enable-file-urls`, another downloader, …), and the ffmpeg it starts for
//   a download reads network protocols only.
import { realpathSync } from 'node:fs'
import { isAbsolute, resolve, sep } from 'node:path'
import { InputError, type MediaProgram } from '../tools/contract.ts'

/** What an http(s) input may use: `httpproxy` is ffmpeg's CONNECT tunnel through the egress proxy for https. */
export const NETWORK_PROTOCOLS = 'http,https,tcp,tls,crypto,httpproxy'
/**
 * A local input is one seekable file: `file` rather than `pipe` keeps seeking
 * (`-ss`, an mp4 whose index sits at the end); what stops a file from naming
 * other files is the format whitelist, not the protocol.
 */
export const LOCAL_PROTOCOLS = 'file'
/**
 * Demuxers that read their own bytes only. Not listed, so refused: hls, dash,
 * concat, image2 (sequences), the subtitle and playlist demuxers, lavfi, and
 * everything else. The mov demuxer's external data references stay off
 * (`enable_drefs` defaults to 0 and a tool may not set it).
 */
export const MEDIA_FORMATS = [
  'mov', 'mp4', 'm4a', '3gp', '3g2', 'mj2', 'matroska', 'webm', 'avi', 'flv', 'mpegts', 'mpeg', 'ogg', 'asf', 'ivf',
  'mpegvideo', 'm4v', 'h264', 'hevc', 'mp3', 'aac', 'wav', 'flac',
].join(',')

const REFUSED_INPUT = 'The media input must be an http(s) URL or a file of this job'

export interface InputScope {
  network: boolean
  /** The job's own folders (its upload and scratch); none: no local file may be opened. */
  localRoots: readonly string[]
  /** A relative input is resolved against the run's working directory, as the program would. */
  cwd: string
}

/** The arguments as the program will get them: inputs checked and normalised, the kernel's whitelists added. */
export function guardMediaArgs (program: MediaProgram, args: string[], scope: InputScope): string[] {
  if (program === 'yt-dlp') return guardYtdlp(args)
  refuseFileOptions(args)
  return program === 'ffmpeg' ? guardFfmpeg(args, scope) : guardFfprobe(args, scope)
}

/** The whitelists one input gets (input options: they go before `-i`, and after the tool's, so the kernel's win). */
function inputOptions (input: string, scope: InputScope): { options: string[], input: string } {
  if (/^https?:\/\//i.test(input)) {
    // A plugin bug: without a proxy the program would open its own socket.
    if (!scope.network) throw new Error('ctx.exec: an http(s) input needs network: true')
    return { options: ['-protocol_whitelist', NETWORK_PROTOCOLS], input }
  }
  return { options: ['-protocol_whitelist', LOCAL_PROTOCOLS, '-format_whitelist', MEDIA_FORMATS], input: `file:${localInput(input, scope)}` }
}

/** The real path of a local input, if it lies inside one of the job's folders. */
function localInput (input: string, scope: InputScope): string {
  // `file:` is the one scheme a local input may carry (ffmpeg strips it and opens the rest as a path).
  const path = input.replace(/^file:/i, '')
  // Any other scheme-like prefix (concat:, subfile:, pipe:, data:, a URL of another kind) is refused, not guessed at.
  if (path === '' || /^[a-z][a-z0-9+.-]*:/i.test(path) || path === '-') throw new InputError(REFUSED_INPUT)
  const absolute = isAbsolute(path) ? resolve(path) : resolve(scope.cwd, path)
  const real = realOrSelf(absolute)
  const inside = scope.localRoots.some(root => {
    const r = realOrSelf(resolve(root))
    return real === r || real.startsWith(r.endsWith(sep) ? r : r + sep)
  })
  if (!inside) throw new InputError(REFUSED_INPUT)
  return real
}

function realOrSelf (path: string): string {
  try {
    return realpathSync(path)
  } catch {
    // A file that does not exist: the program will say so; it still has to lie inside the roots.
    return path
  }
}

function guardFfmpeg (args: string[], scope: InputScope): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-i' && i + 1 < args.length) {
      const { options, input } = inputOptions(args[i + 1], scope)
      out.push(...options, '-i', input)
      i++
      continue
    }
    out.push(args[i])
  }
  return out
}

/**
 * ffprobe options that take a value. Any other option is read as a flag, so a
 * value of an option missing here is taken for an input and checked as one:
 * the guard fails closed (the run is refused) rather than letting a second,
 * unchecked input through.
 */
const FFPROBE_VALUE_OPTIONS = new Set([
  '-v', '-loglevel', '-of', '-print_format', '-output_format', '-show_entries', '-select_streams', '-read_intervals',
  '-f', '-o', '-show_optional_fields', '-analyzeduration', '-probesize', '-fpsprobesize', '-formatprobesize', '-fflags',
  '-threads', '-cpuflags', '-protocol_whitelist', '-format_whitelist', '-user_agent', '-headers', '-timeout',
  '-rw_timeout', '-seekable', '-max_probe_packets', '-err_detect', '-skip_frame', '-codec', '-c',
])

function guardFfprobe (args: string[], scope: InputScope): string[] {
  const out = [...args]
  const inputs: number[] = []
  for (let i = 0; i < out.length; i++) {
    const arg = out[i]
    if (arg === '-i') { if (i + 1 < out.length) inputs.push(++i); continue }
    if (arg.startsWith('-') && arg.length > 1) { if (FFPROBE_VALUE_OPTIONS.has(arg.split(':')[0])) i++; continue }
    inputs.push(i)
  }
  if (inputs.length === 0) return out
  if (inputs.length > 1) throw new Error('ctx.exec: ffprobe reads one input')
  const { options, input } = inputOptions(out[inputs[0]], scope)
  out[inputs[0]] = input
  // ffprobe reads all its options before it opens the input, and the last of a repeated one wins: the kernel's.
  return [...out, ...options]
}

/** Options that make ffmpeg or ffprobe read a file by name, outside the input checks. */
const FILE_OPTIONS = new Set(['-attach', '-dump_attachment', '-filter_script', '-filter_complex_script', '-enable_drefs', '-passlogfile'])
const FILTER_OPTIONS = /^-(vf|af|filter|filter_complex|lavfi)(:|$)/
// Filters that open a file themselves (a source, a subtitle or font file, a command or LUT file).
const FILE_FILTERS = /(^|[^\w])(a?movie|subtitles|ass|a?sendcmd|a?zmq|lut1d|lut3d|frei0r|ladspa|lv2|textfile|fontfile|filename|file)\s*=/i

function refuseFileOptions (args: string[]): void {
  for (let i = 0; i < args.length; i++) {
    const name = args[i].split(':')[0]
    if (FILE_OPTIONS.has(name)) throw new Error(`ctx.exec: ${name} is not allowed (it reads a file outside the input checks)`)
    if (FILTER_OPTIONS.test(args[i]) && i + 1 < args.length && FILE_FILTERS.test(args[i + 1])) {
      throw new Error('ctx.exec: a filter that opens a file is not allowed')
    }
  }
}

/**
 * yt-dlp options (and their abbreviations: yt-dlp accepts any unambiguous
 * prefix) that would undo the guard: another proxy, file:// URLs, a local list
 * of URLs or info JSON, another downloader or its arguments (curl and aria2c
 * read file: URLs), commands, config files, another ffmpeg.
 */
const YTDLP_REFUSED = [
  '--proxy', '--enable-file-urls', '--batch-file', '--load-info-json', '--downloader', '--external-downloader',
  '--downloader-args', '--external-downloader-args', '--exec', '--exec-before-download', '--config-locations',
  '--config-location', '--ffmpeg-location', '--netrc-location', '--netrc-cmd', '--plugin-dirs', '--geo-verification-proxy',
  '--js-runtimes', '--remote-components',
]

function guardYtdlp (args: string[]): string[] {
  for (const arg of args) {
    if (arg === '--') break
    if (/^-a/.test(arg)) throw new Error('ctx.exec: yt-dlp -a (a local list of URLs) is not allowed')
    if (!arg.startsWith('--')) continue
    const name = arg.split('=')[0]
    if (name.length > 2 && YTDLP_REFUSED.some(option => option.startsWith(name))) throw new Error(`ctx.exec: yt-dlp ${name} is not allowed (the kernel's guard sets it)`)
  }
  // The ffmpeg yt-dlp downloads HLS or DASH with (when its native downloader cannot) opens network protocols only.
  return ['--downloader-args', `ffmpeg_i:-protocol_whitelist ${NETWORK_PROTOCOLS}`, ...args]
}
