// yt-dlp argument arrays for the media tools, for the guarded runner
// (`ctx.exec.run('yt-dlp', args, { network: true })`). Pure. Every array ends
// with `--` and the URL, so a "URL" starting with a dash is never an option.

/** What every call shares: no user or system config file, no cache or progress on disk or stderr, plain messages. */
const BASE = ['--ignore-config', '--no-cache-dir', '--no-progress', '--no-color', '--socket-timeout', '20']

export interface InfoArgsOptions {
  /**
   * `single` (default): the item only, even on a watch URL inside a playlist.
   * `flat`: a playlist, channel or tab listed without opening each entry (ids, titles, durations; no formats).
   * `full`: each entry of the playlist opened (formats, captions): one request per entry.
   */
  playlist?: 'single' | 'flat' | 'full'
  /** For `flat` and `full`: at most this many entries (the run's remaining rows). */
  maxItems?: number
  /** A Netscape cookies file the operator configured (a logged-in session for Instagram, Facebook). */
  cookiesFile?: string
}

function checkUrl (url: string): string {
  if (!/^https?:\/\/\S+$/i.test(url)) throw new RangeError('yt-dlp is given http(s) URLs only')
  return url
}

/** `--dump-single-json --no-download` for one item or a playlist (see InfoArgsOptions.playlist). */
export function ytdlpInfoArgs (url: string, options: InfoArgsOptions = {}): string[] {
  const mode = options.playlist ?? 'single'
  const args = [...BASE, '--dump-single-json', '--no-download']
  if (mode === 'single') args.push('--no-playlist')
  else {
    args.push('--yes-playlist')
    if (mode === 'flat') args.push('--flat-playlist')
    if (options.maxItems !== undefined) {
      if (!Number.isInteger(options.maxItems) || options.maxItems < 1) throw new RangeError('maxItems must be a positive integer')
      args.push('--playlist-end', String(options.maxItems))
    }
  }
  if (options.cookiesFile) args.push('--cookies', options.cookiesFile)
  args.push('--', checkUrl(url))
  return args
}

export interface DownloadArgsOptions {
  /** yt-dlp format selector: a format id from the info row (`22`, `download_addr-0`) or an expression. */
  format: string
  /** Where the file goes: a path in the job's scratch dir (an output template: `%(ext)s` is allowed). */
  output: string
  /** yt-dlp stops a download past this many bytes (the tier's file cap). */
  maxBytes: number
  cookiesFile?: string
}

/** Downloads one chosen format of one item to `output`, within `maxBytes`. */
export function ytdlpDownloadArgs (url: string, options: DownloadArgsOptions): string[] {
  if (!Number.isInteger(options.maxBytes) || options.maxBytes < 1) throw new RangeError('maxBytes must be a positive integer')
  const args = [...BASE, '--no-playlist', '--format', options.format, '--max-filesize', String(options.maxBytes), '--no-part', '--no-mtime', '--output', options.output]
  if (options.cookiesFile) args.push('--cookies', options.cookiesFile)
  args.push('--', checkUrl(url))
  return args
}

export interface SubtitleArgsOptions {
  /** yt-dlp language patterns (`en`, `en.*`, `pt-BR`). */
  languages: string[]
  /** Output template in the job's scratch dir, e.g. `<dir>/subs` (yt-dlp appends `.<lang>.<ext>`). */
  output: string
  /** Preferred subtitle formats in order (default vtt, then json3, then whatever is offered). */
  formats?: string[]
  cookiesFile?: string
}

/**
 * Writes the uploader's subtitles, or the automatic captions where there are
 * none, without the video. Most tools fetch the track URL from the info row
 * instead (pickSubtitleTrack + ctx.http); this is for extractors whose tracks
 * need yt-dlp's own session to fetch.
 */
export function ytdlpSubtitleArgs (url: string, options: SubtitleArgsOptions): string[] {
  if (options.languages.length === 0) throw new RangeError('at least one subtitle language')
  const formats = [...(options.formats ?? ['vtt', 'json3']), 'best'].join('/')
  const args = [...BASE, '--no-playlist', '--skip-download', '--write-subs', '--write-auto-subs', '--sub-langs', options.languages.join(','), '--sub-format', formats, '--output', options.output]
  if (options.cookiesFile) args.push('--cookies', options.cookiesFile)
  args.push('--', checkUrl(url))
  return args
}
