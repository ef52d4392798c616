// The media programs as the kernel runs them (ProgramProfile, declared by each
// tool that runs one in its `programs`): yt-dlp, ffmpeg and ffprobe. The
// kernel spawns, limits, proxies and enforces the guard; what each program's
// arguments mean lives here. Every input is hostile: an upload named
// `holiday.mp4` may be an HLS playlist or an ffconcat list naming the server's
// files, which ffmpeg detects whatever the name, and a remote manifest may name
// `file:` URLs (README.md, "The programs' guards").
import type { MediaInputs, ProgramProfile } from '../../../core/tools/contract.ts'

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

/** The whitelists one input gets (input options: they go before `-i`, and after the tool's, so the guard's win). */
function inputOptions (input: string, inputs: MediaInputs): { options: string[], input: string } {
  const opened = inputs.open(input)
  if ('url' in opened) return { options: ['-protocol_whitelist', NETWORK_PROTOCOLS], input: opened.url }
  return { options: ['-protocol_whitelist', LOCAL_PROTOCOLS, '-format_whitelist', MEDIA_FORMATS], input: `file:${opened.path}` }
}

/** Options that make ffmpeg or ffprobe read a file by name, outside the input checks. */
const FILE_OPTIONS = new Set(['-attach', '-dump_attachment', '-filter_script', '-filter_complex_script', '-enable_drefs', '-passlogfile'])
const FILTER_OPTIONS = /^-(vf|af|filter|filter_complex|lavfi)(:|$)/
// Filters that open a file themselves (a source, a subtitle or font file, a command or LUT file).
const FILE_FILTERS = /(^|[^\w])(a?movie|subtitles|ass|a?sendcmd|a?zmq|lut1d|lut3d|frei0r|ladspa|lv2|textfile|fontfile|filename|file)\s*=/i

function refuseFileOptions (args: readonly string[]): void {
  for (let i = 0; i < args.length; i++) {
    const name = args[i].split(':')[0]
    if (FILE_OPTIONS.has(name)) throw new Error(`ctx.exec: ${name} is not allowed (it reads a file outside the input checks)`)
    if (FILTER_OPTIONS.test(args[i]) && i + 1 < args.length && FILE_FILTERS.test(args[i + 1])) {
      throw new Error('ctx.exec: a filter that opens a file is not allowed')
    }
  }
}

/** `ffmpeg version 5.1.6-0+deb12u1 Copyright …` → `5.1.6-0+deb12u1`. */
export function ffmpegVersion (firstLine: string): string | null {
  return /^ff(?:mpeg|probe) version (\S+)/.exec(firstLine.trim())?.[1] ?? null
}

const FFMPEG_FAMILY_VERSION = { args: ['-hide_banner', '-version'], parse: ffmpegVersion }

/** ffmpeg: each input follows `-i`; it is checked, opened as `file:<real path>` or a URL, and given its whitelists. */
export const ffmpegProgram: ProgramProfile = {
  name: 'ffmpeg',
  binarySetting: 'FFMPEG_PATH',
  version: FFMPEG_FAMILY_VERSION,
  guard (args, inputs) {
    refuseFileOptions(args)
    const out: string[] = []
    for (let i = 0; i < args.length; i++) {
      if (args[i] === '-i' && i + 1 < args.length) {
        const { options, input } = inputOptions(args[i + 1], inputs)
        out.push(...options, '-i', input)
        i++
        continue
      }
      out.push(args[i])
    }
    return out
  },
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

/** ffprobe: one input, after `-i` or positional; a second one is refused. */
export const ffprobeProgram: ProgramProfile = {
  name: 'ffprobe',
  binarySetting: 'FFPROBE_PATH',
  version: FFMPEG_FAMILY_VERSION,
  guard (args, inputs) {
    refuseFileOptions(args)
    const out = [...args]
    const positions: number[] = []
    for (let i = 0; i < out.length; i++) {
      const arg = out[i]
      if (arg === '-i') { if (i + 1 < out.length) positions.push(++i); continue }
      if (arg.startsWith('-') && arg.length > 1) { if (FFPROBE_VALUE_OPTIONS.has(arg.split(':')[0])) i++; continue }
      positions.push(i)
    }
    if (positions.length === 0) return out
    if (positions.length > 1) throw new Error('ctx.exec: ffprobe reads one input')
    const { options, input } = inputOptions(out[positions[0]], inputs)
    out[positions[0]] = input
    // ffprobe reads all its options before it opens the input, and the last of a repeated one wins: the guard's.
    return [...out, ...options]
  },
}

/** yt-dlp older than this many days is reported as stale. */
export const YTDLP_STALE_DAYS = 90
/** The first yt-dlp with `--js-runtimes` (the JavaScript runtime some sites' challenges now need). */
export const YTDLP_JS_RUNTIMES_SINCE = '2025.11.12'
/** The operator's choice of JavaScript runtime (validated by the configuration, README.md: Configuration). */
const JS_RUNTIME_SETTING = 'YTDLP_JS_RUNTIME'

/** `2023.03.04`, `2025.11.12.1` (a nightly), `2025.11.12.232151`: the release date. */
export function ytdlpReleaseDate (version: string): string | null {
  const m = /^(\d{4})\.(\d{2})\.(\d{2})(?:\.\d+)?$/.exec(version.trim())
  if (!m) return null
  const date = `${m[1]}-${m[2]}-${m[3]}`
  return Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ? null : date
}

/** Whether this yt-dlp knows `--js-runtimes` (released on or after YTDLP_JS_RUNTIMES_SINCE). */
export function ytdlpHasJsRuntimes (version: string | null): boolean {
  const released = version ? ytdlpReleaseDate(version) : null
  return released !== null && released >= YTDLP_JS_RUNTIMES_SINCE.replace(/\./g, '-')
}

/**
 * yt-dlp options (and their abbreviations: yt-dlp accepts any unambiguous
 * prefix) that would undo the guard: another proxy, file:// URLs, a local list
 * of URLs or info JSON, another downloader or its arguments (curl and aria2c
 * read file: URLs), commands, config files, another ffmpeg, and what the
 * profile itself sets (the JavaScript runtime, remote components).
 */
const YTDLP_REFUSED = [
  '--proxy', '--enable-file-urls', '--batch-file', '--load-info-json', '--downloader', '--external-downloader',
  '--downloader-args', '--external-downloader-args', '--exec', '--exec-before-download', '--config-locations',
  '--config-location', '--ffmpeg-location', '--netrc-location', '--netrc-cmd', '--plugin-dirs', '--geo-verification-proxy',
  '--js-runtimes', '--remote-components',
]

/**
 * yt-dlp: user URLs come after `--` (http(s) only, ytdlp-args.ts) and yt-dlp
 * refuses file:// URLs itself; no option may undo the guard; the ffmpeg it
 * starts for HLS or DASH opens network protocols only; no config file adds
 * options; the ffmpeg it merges with is FFMPEG_PATH's.
 */
export const ytdlpProgram: ProgramProfile = {
  name: 'yt-dlp',
  binarySetting: 'YTDLP_PATH',
  version: {
    args: ['--ignore-config', '--version'],
    parse: line => line.trim() || null,
    releasedOn: ytdlpReleaseDate,
    staleAfterDays: YTDLP_STALE_DAYS,
    staleWarning: 'sites change what a client must do every few weeks, so the video tools fail (often as refusals) until it is updated (README, Media programs)',
  },
  guard (args) {
    for (const arg of args) {
      if (arg === '--') break
      if (/^-a/.test(arg)) throw new Error('ctx.exec: yt-dlp -a (a local list of URLs) is not allowed')
      if (!arg.startsWith('--')) continue
      const name = arg.split('=')[0]
      if (name.length > 2 && YTDLP_REFUSED.some(option => option.startsWith(name))) throw new Error(`ctx.exec: yt-dlp ${name} is not allowed (the kernel's guard sets it)`)
    }
    // The ffmpeg yt-dlp downloads HLS or DASH with (when its native downloader cannot) opens network protocols only.
    return ['--downloader-args', `ffmpeg_i:-protocol_whitelist ${NETWORK_PROTOCOLS}`, ...args]
  },
  leadingArgs ({ version, setting, binaryOf }) {
    const runtime = setting(JS_RUNTIME_SETTING)
    const ffmpeg = binaryOf(ffmpegProgram)
    return [
      // No system or user config file may add options (a proxy, an exec hook) behind the guard's back.
      '--ignore-config',
      ...(runtime && ytdlpHasJsRuntimes(version) ? ['--js-runtimes', runtime] : []),
      // The ffmpeg yt-dlp merges and remuxes with is FFMPEG_PATH's (it passes its proxy on as -http_proxy).
      ...(ffmpeg ? ['--ffmpeg-location', ffmpeg] : []),
    ]
  },
  // yt-dlp has no "offline" switch: a proxy that refuses everything is one.
  offline: 'refusing-proxy',
  bootWarnings (version, setting) {
    if (setting(JS_RUNTIME_SETTING) && !ytdlpHasJsRuntimes(version)) {
      return [`${JS_RUNTIME_SETTING} is set, but yt-dlp ${version} predates --js-runtimes (${YTDLP_JS_RUNTIMES_SINCE}): it is not passed on`]
    }
    return []
  },
}

/** Every media program the media tools run, for a declaration's `programs`. */
export const MEDIA_PROGRAMS: readonly ProgramProfile[] = [ytdlpProgram, ffmpegProgram, ffprobeProgram]
