// The media programs' versions: read once, off the request path, reported by
// /api/health; a stale yt-dlp is a boot warning; YTDLP_JS_RUNTIME reaches
// yt-dlp as --js-runtimes only when that yt-dlp takes it.
import t from 'tap'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { ageInDays, readProgramVersions } from '../../core/exec/program-versions.ts'
import { ffmpegVersion, MEDIA_PROGRAMS, ytdlpHasJsRuntimes, ytdlpReleaseDate } from '../../plugins/lib/media/programs.ts'
import { build } from '../helpers/build.ts'
import { execService } from './_exec.ts'

t.test('version texts', async t => {
  t.equal(ytdlpReleaseDate('2023.03.04'), '2023-03-04')
  t.equal(ytdlpReleaseDate('2025.11.12.232151\n'), '2025-11-12', 'a nightly')
  t.equal(ytdlpReleaseDate('2025.13.40'), null, 'not a date')
  t.equal(ytdlpReleaseDate('unknown'), null)
  t.equal(ffmpegVersion('ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026 the FFmpeg developers'), '5.1.9-0+deb12u1')
  t.equal(ffmpegVersion('ffprobe version n7.1 Copyright'), 'n7.1')
  t.equal(ageInDays('2026-08-29', new Date('2026-11-27T12:00:00Z')), 90)
  t.notOk(ytdlpHasJsRuntimes('2023.03.04'))
  t.notOk(ytdlpHasJsRuntimes('2025.11.11'))
  t.ok(ytdlpHasJsRuntimes('2025.11.12'))
  t.ok(ytdlpHasJsRuntimes('2026.10.01.1'))
  t.notOk(ytdlpHasJsRuntimes(null))
})

/** A stand-in yt-dlp that prints `version` for --version and writes its argv (one per line) to `argv.txt`. */
function fakeYtdlp (t: { teardown (fn: () => unknown): void }, version: string): { path: string, argv (): string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'fake-ytdlp-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'yt-dlp')
  writeFileSync(path, `#!/bin/sh\nfor a in "$@"; do [ "$a" = --version ] && { echo ${version}; exit 0; }; done\nprintf '%s\\n' "$@" > ${join(dir, 'argv.txt')}\necho '{}'\n`)
  chmodSync(path, 0o755)
  return { path, argv: () => readFileSync(join(dir, 'argv.txt'), 'utf8').trim().split('\n') }
}

t.test('the versions of the installed programs, and null for a missing one', async t => {
  const yt = fakeYtdlp(t, '2023.03.04')
  const versions = await readProgramVersions(MEDIA_PROGRAMS, { 'yt-dlp': yt.path, ffmpeg: null, ffprobe: null }, { PATH: '/usr/bin:/bin' }, new Date('2026-11-27T00:00:00Z'))
  t.same(versions['yt-dlp'], { version: '2023.03.04', released: '2023-03-04', stale: true })
  t.same(versions.ffmpeg, { version: null })
  const current = await readProgramVersions(MEDIA_PROGRAMS, { 'yt-dlp': fakeYtdlp(t, '2026.11.01').path, ffmpeg: null, ffprobe: null }, { PATH: '/usr/bin:/bin' }, new Date('2026-11-27T00:00:00Z'))
  t.equal(current['yt-dlp'].stale, false)
})

t.test('YTDLP_JS_RUNTIME: passed as --js-runtimes to a yt-dlp that takes it, never to an older one; a stale yt-dlp warns', async t => {
  for (const [version, passed] of [['2025.11.12', true], ['2023.03.04', false]] as const) {
    const yt = fakeYtdlp(t, version)
    const { exec } = execService(t, { programs: { 'yt-dlp': yt.path }, ytdlpJsRuntime: 'deno:/opt/deno/bin/deno' })
    const result = await exec.forJob(new AbortController().signal, pino({ level: 'silent' })).run('yt-dlp', ['-J', '--', 'https://example.com/v'])
    t.equal(result.exitCode, 0)
    const argv = yt.argv()
    const at = argv.indexOf('--js-runtimes')
    t.equal(at >= 0, passed, `yt-dlp ${version}: --js-runtimes ${passed ? 'passed' : 'not passed'}`)
    if (passed) t.equal(argv[at + 1], 'deno:/opt/deno/bin/deno')
  }
  const { exec } = execService(t, { programs: { 'yt-dlp': fakeYtdlp(t, '2023.03.04').path }, ytdlpJsRuntime: 'deno' })
  const lines: Array<Record<string, unknown>> = []
  ;(exec as unknown as { deps: { logger: pino.Logger } }).deps.logger = pino({ level: 'warn' }, { write: (line: string) => { lines.push(JSON.parse(line)) } })
  await exec.warnOutdated()
  t.match(lines.map(l => l.msg), [/yt-dlp 2023\.03\.04 is older than 90 days/, /YTDLP_JS_RUNTIME is set, but yt-dlp 2023\.03\.04 predates --js-runtimes/])
  await t.rejects(exec.forJob(new AbortController().signal, pino({ level: 'silent' })).run('yt-dlp', ['--js-runtimes', 'node:/tmp/x', '--', 'https://example.com/v']), /--js-runtimes is not allowed/, 'a tool may not choose the runtime')
})

t.test('/api/health reports the versions once read; the first probe starts the read and does not wait for it', async t => {
  const yt = fakeYtdlp(t, '2023.03.04')
  const app = await build(t, { env: { YTDLP_PATH: yt.path, FFMPEG_PATH: '/nonexistent/ffmpeg', FFPROBE_PATH: '/nonexistent/ffprobe' } })
  const first = await app.inject({ url: '/api/health' })
  t.equal(first.statusCode, 200)
  t.ok(first.json().media_programs === null || typeof first.json().media_programs === 'object')
  await app.services.exec.programVersions().read
  const later = (await app.inject({ url: '/api/health' })).json()
  t.same(later.media_programs, { 'yt-dlp': { version: '2023.03.04', released: '2023-03-04', stale: true }, ffmpeg: { version: null }, ffprobe: { version: null } })
  // The readiness probe reports both, and stays ready: the media programs are not required (the pool's first answer
  // awaited first: a loaded machine may take longer than a probe's 2 s to start a worker).
  await app.services.extraction.answering()
  const ready = await app.inject({ url: '/api/health/ready' })
  t.equal(ready.statusCode, 200)
  t.match(ready.json().checks.media_programs, { status: 'fail', required: false, detail: 'not installed or not answering: ffmpeg, ffprobe (only the tools that run them fail); out of date, update: yt-dlp 2023.03.04 (released 2023-03-04)' })
})
