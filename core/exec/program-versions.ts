// The media programs' versions, for the operator: yt-dlp follows the sites it
// reads (a site may change what a client must do every few weeks), so an old one
// fails in ways that look like the site's refusals. Read once per process, off
// the request path (a Python start costs ~0.3 s of CPU), and reported by the
// health route; an old yt-dlp is a boot warning.
import { execFile } from 'node:child_process'

/** yt-dlp older than this many days is reported as stale. */
export const YTDLP_STALE_DAYS = 90
/** The first yt-dlp with `--js-runtimes` (the JavaScript runtime some sites' challenges now need). */
export const YTDLP_JS_RUNTIMES_SINCE = '2025.11.12'
const VERSION_TIMEOUT_MS = 10_000

export interface ProgramVersion {
  /** What the program printed of its version, or null when it did not run. */
  version: string | null
  /** yt-dlp only: its release date (from the version), and whether it is older than YTDLP_STALE_DAYS. */
  released?: string | null
  stale?: boolean | null
}

export type ProgramVersions = Record<'yt-dlp' | 'ffmpeg' | 'ffprobe', ProgramVersion>

/** `2023.03.04`, `2025.11.12.1` (a nightly), `2025.11.12.232151`: the release date. */
export function ytdlpReleaseDate (version: string): string | null {
  const m = /^(\d{4})\.(\d{2})\.(\d{2})(?:\.\d+)?$/.exec(version.trim())
  if (!m) return null
  const date = `${m[1]}-${m[2]}-${m[3]}`
  return Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ? null : date
}

/** `ffmpeg version 5.1.6-0+deb12u1 Copyright …` → `5.1.6-0+deb12u1`. */
export function ffmpegVersion (firstLine: string): string | null {
  return /^ff(?:mpeg|probe) version (\S+)/.exec(firstLine.trim())?.[1] ?? null
}

/** Whole days from a release date to now. */
export function ageInDays (released: string, now: Date): number {
  return Math.floor((now.getTime() - Date.parse(`${released}T00:00:00Z`)) / 86_400_000)
}

/** Whether this yt-dlp knows `--js-runtimes` (released on or after YTDLP_JS_RUNTIMES_SINCE). */
export function ytdlpHasJsRuntimes (version: string | null): boolean {
  const released = version ? ytdlpReleaseDate(version) : null
  return released !== null && released >= YTDLP_JS_RUNTIMES_SINCE.replace(/\./g, '-')
}

function firstLineOf (binary: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise(resolve => {
    execFile(binary, args, { timeout: VERSION_TIMEOUT_MS, env, maxBuffer: 64 * 1024 }, (err, stdout) => {
      resolve(err ? null : (String(stdout).split('\n')[0]?.trim() || null))
    })
  })
}

/**
 * Runs each program's version command (the binaries as ExecService resolves
 * them; null: not installed). The environment is the children's own (PATH,
 * LANG), never the server's.
 */
export async function readProgramVersions (binaries: Record<keyof ProgramVersions, string | null>, env: NodeJS.ProcessEnv, now: Date): Promise<ProgramVersions> {
  const [ytdlp, ffmpeg, ffprobe] = await Promise.all([
    binaries['yt-dlp'] ? firstLineOf(binaries['yt-dlp'], ['--ignore-config', '--version'], env) : null,
    binaries.ffmpeg ? firstLineOf(binaries.ffmpeg, ['-hide_banner', '-version'], env).then(line => line && (ffmpegVersion(line) ?? line)) : null,
    binaries.ffprobe ? firstLineOf(binaries.ffprobe, ['-hide_banner', '-version'], env).then(line => line && (ffmpegVersion(line) ?? line)) : null,
  ])
  const released = ytdlp ? ytdlpReleaseDate(ytdlp) : null
  return {
    'yt-dlp': { version: ytdlp, released, stale: released === null ? null : ageInDays(released, now) > YTDLP_STALE_DAYS },
    ffmpeg: { version: ffmpeg },
    ffprobe: { version: ffprobe },
  }
}
