// A yt-dlp stand-in for the media tools' job tests (YTDLP_PATH): a shell
// script whose link (its last argument) picks a real refusal text (quoted from
// yt-dlp bug reports, as in test/plugins/media-lib/ytdlp-failures.test.ts) or,
// for any other link, prints a captured info dict. A real refusal cannot be
// had offline (ytdlp-tools.test.ts has real yt-dlp's 429). Each link it is
// asked for is appended to `calls` (what a run asked the platform for).
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

export const COOKIES_ADVICE = 'Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies. Also see  https://github.com/yt-dlp/yt-dlp/wiki/Extractors#exporting-youtube-cookies  for tips on effectively exporting YouTube cookies'

/** Link token → what yt-dlp printed on stderr before exiting 1. */
export const REFUSALS: Record<string, string> = {
  LOGINWALL: '[Instagram] Clq_poiJd63: Downloading JSON metadata\nERROR: [Instagram] Clq_poiJd63: Requested content is not available, rate-limit reached or login required. Use --cookies, --cookies-from-browser, --username and --password, or --netrc (instagram) to provide account credentials',
  BOTCHECK: `ERROR: [youtube] dQw4w9WgXcQ: Sign in to confirm you’re not a bot. ${COOKIES_ADVICE}`,
  AGEGATE: `[youtube] jBtLD2zxTlY: Downloading webpage\nERROR: [youtube] jBtLD2zxTlY: Sign in to confirm your age. This video may be inappropriate for some users. ${COOKIES_ADVICE}`,
  IPBLOCK: 'ERROR: [TikTok] 7100000000000000000: Your IP address is blocked from accessing this post',
  PRIVATE: 'ERROR: [youtube] xxxxxxxxxxx: Private video. Sign in if you\'ve been granted access to this video',
}

/**
 * Writes the stand-in into `dir` and returns its path and the file listing the
 * links it was asked for. `infoJson` is printed for any link without a
 * refusal token; `byHost` gives another info dict for links containing a host.
 */
export function fakeYtdlp (dir: string, infoJson: string, byHost: Record<string, string> = {}): { path: string, calls: string } {
  const cases = Object.keys(REFUSALS).map(token => {
    writeFileSync(join(dir, `${token}.txt`), `${REFUSALS[token]}\n`)
    return `  *${token}*) cat '${join(dir, `${token}.txt`)}' >&2; exit 1 ;;`
  })
  const hosts = Object.entries(byHost).map(([host, info]) => `  *${host}*) cat '${info}'; exit 0 ;;`)
  const path = join(dir, 'yt-dlp')
  const calls = join(dir, 'yt-dlp.calls')
  writeFileSync(calls, '')
  writeFileSync(path, ['#!/bin/sh', '[ "$1" = --version ] && { echo 2025.11.12; exit 0; }', 'for link; do :; done', `echo "$link" >> '${calls}'`, 'case "$link" in', ...cases, ...hosts, `  *) cat '${infoJson}'; exit 0 ;;`, 'esac', ''].join('\n'))
  chmodSync(path, 0o755)
  return { path, calls }
}

/** The links the stand-in was asked for, in order. */
export const calledLinks = (calls: string): string[] => readFileSync(calls, 'utf8').split('\n').filter(line => /^https?:/.test(line))

/** tools.config.json with only these entries (as shipped). */
export function toolsConfig (dir: string, name: string, keys: string[]): string {
  const file = JSON.parse(readFileSync(resolve('tools.config.json'), 'utf8'))
  const path = join(dir, `${name}.tools.config.json`)
  writeFileSync(path, JSON.stringify({ tools: file.tools.filter((e: { key: string }) => keys.includes(e.key)), retired: [] }))
  return path
}
