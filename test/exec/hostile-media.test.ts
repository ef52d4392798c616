// Media as hostile input: an upload (or a remote answer) that is a playlist,
// a manifest or a list naming other files of the server must not make ffmpeg,
// ffprobe or yt-dlp open them. A "private" clip and subtitle file sit outside
// the job's folder; every attack names them (file:// URL, absolute and relative
// path), through the runner directly and through video_frames jobs; none of
// their bytes may come back, and no server path may show in what the caller
// reads. Real mp4 uploads (index at the end, seeking) still work.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { once } from 'node:events'
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import pino from 'pino'
import { InputError } from '../../core/tools/contract.ts'
import { build, signup, tempDir } from '../helpers/build.ts'
import { waitForEnd } from '../helpers/jobs.ts'
import { multipartBody } from '../artifacts/multipart.ts'
import { execService, hasProgram } from './_exec.ts'

const missing = ['ffmpeg', 'ffprobe', 'yt-dlp'].filter(p => !hasProgram(p))
if (missing.length > 0) {
  t.test('hostile media', { skip: `needs ${missing.join(', ')} (.ci/run installs them)` }, async () => {})
} else {
  const log = pino({ level: 'silent' })
  // The server's private files: a clip and a subtitle file no job created.
  const secret = tempDir(t, 'private-')
  const privateClip = join(secret, 'clip.mp4')
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=64x48:rate=5', '-c:v', 'mpeg4', '-f', 'mp4', privateClip])
  const privateVtt = join(secret, 'subs.vtt')
  writeFileSync(privateVtt, 'WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nPRIVATE-SUBTITLE-TEXT\n')
  // A real upload: ffmpeg writes the mp4 index (moov) at the end unless told otherwise.
  const goodDir = tempDir(t)
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=3:size=96x64:rate=10', '-c:v', 'mpeg4', '-f', 'mp4', join(goodDir, 'good.mp4')])
  const goodClip = readFileSync(join(goodDir, 'good.mp4'))

  const hls = (segment: string) => `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n${segment}\n#EXT-X-ENDLIST\n`
  const dash = (base: string) => `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT2S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
 <Period><AdaptationSet mimeType="video/mp4"><Representation id="v" bandwidth="100000" width="64" height="48" codecs="mp4v.20.9"><BaseURL>${base}</BaseURL></Representation></AdaptationSet></Period>
</MPD>
`
  /** Uploads naming the private files; `relativeTo`: the folder the upload lies in (a relative path starts there). */
  const attacks = (relativeTo: string): Array<{ name: string, body: string }> => [
    { name: 'holiday.mp4', body: hls(`file://${privateClip}`) },
    { name: 'x.m3u8', body: hls(privateClip) },
    { name: 'relative.m3u8', body: hls(relative(relativeTo, privateClip)) },
    { name: 'manifest.mpd', body: dash(`file://${privateClip}`) },
    { name: 'holiday.mpd.mp4', body: dash(privateClip) },
    { name: 'list.ffconcat', body: `ffconcat version 1.0\nfile ${privateClip}\n` },
  ]

  t.test('through the runner: a playlist, manifest or list upload is not opened as one', async t => {
    const job = tempDir(t, 'job-')
    const upload = join(job, 'upload', 'file')
    mkdirSync(dirname(upload))
    const scratch = join(job, 'scratch')
    mkdirSync(scratch)
    const { exec } = execService(t)
    const runner = exec.forJob(new AbortController().signal, log, { localRoots: [job] })
    for (const attack of attacks(dirname(upload))) {
      writeFileSync(upload, attack.body)
      const out = join(scratch, 'frame.png')
      const frames = await runner.run('ffmpeg', ['-hide_banner', '-nostdin', '-y', '-i', upload, '-map', '0:v:0', '-frames:v', '1', '-f', 'image2', '-update', '1', out], { cwd: scratch })
      t.not(frames.exitCode, 0, `${attack.name}: ffmpeg refused it`)
      t.match(frames.stderr, /Format not on whitelist/, `${attack.name}: as a format, before it opened anything`)
      t.notOk(existsSync(out), `${attack.name}: no frame was written`)
      t.notMatch(frames.stderr, job, `${attack.name}: no path of the job's in stderr`)
      const probe = await runner.run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration,format_name', '-of', 'json', upload], { cwd: scratch })
      t.not(probe.exitCode, 0, `${attack.name}: ffprobe refused it too`)
      t.notMatch(probe.stdout, /duration/, `${attack.name}: nothing of the private clip was described`)
    }
    // A subtitle playlist that includes a private WebVTT file: its text must not come out.
    writeFileSync(upload, hls(`file://${privateVtt}`))
    const subs = await runner.run('ffmpeg', ['-hide_banner', '-nostdin', '-y', '-i', upload, '-map', '0', '-f', 'webvtt', join(scratch, 'subs.vtt')], { cwd: scratch })
    t.not(subs.exitCode, 0, 'the subtitle playlist was refused')
    t.notOk(existsSync(join(scratch, 'subs.vtt')) && readFileSync(join(scratch, 'subs.vtt'), 'utf8').includes('PRIVATE'), 'no private subtitle text came out')
    // A demuxer the tool forces is held to the same list (hls, an image2 sequence).
    const forced = await runner.run('ffmpeg', ['-hide_banner', '-nostdin', '-f', 'hls', '-i', upload, '-f', 'null', '-'], { cwd: scratch })
    t.match(forced.stderr, /Format not on whitelist/)
    writeFileSync(upload, goodClip)
    const sequence = await runner.run('ffmpeg', ['-hide_banner', '-nostdin', '-f', 'image2', '-i', join(scratch, 'img-%03d.png'), '-f', 'null', '-'], { cwd: scratch })
    t.match(sequence.stderr, /Format not on whitelist/)
  })

  t.test('through the runner: inputs outside the job, other protocols and file-reading options are refused before anything starts', async t => {
    const job = tempDir(t, 'job-')
    const scratch = join(job, 'scratch')
    mkdirSync(scratch)
    writeFileSync(join(scratch, 'good.mp4'), goodClip)
    symlinkSync(privateClip, join(scratch, 'link.mp4'))
    const { exec } = execService(t)
    const runner = exec.forJob(new AbortController().signal, log, { localRoots: [job] })
    const ffmpeg = (input: string) => runner.run('ffmpeg', ['-nostdin', '-i', input, '-f', 'null', '-'], { cwd: scratch })
    for (const input of [privateClip, `file:${privateClip}`, `file://${privateClip}`, relative(scratch, privateClip), 'link.mp4', `concat:good.mp4|${privateClip}`,
      `subfile:,,start,0,end,0,,:${privateClip}`, 'pipe:0', '-', `data:video/mp4;base64,AAAA`, 'ftp://example.test/x.mp4']) {
      const error = await ffmpeg(input).catch(e => e)
      t.type(error, InputError, `refused: ${input}`)
      t.notMatch(error.message, /\//, 'the refusal names no path')
    }
    await t.rejects(runner.run('ffprobe', ['-v', 'error', '-show_format', privateClip], { cwd: scratch }), InputError, 'ffprobe: a path outside the job')
    await t.rejects(runner.run('ffprobe', ['-v', 'error', '-i', 'good.mp4', privateClip], { cwd: scratch }), /one input/, 'ffprobe: a second input')
    await t.rejects(runner.run('ffprobe', ['-show_format', '-unknown_option', privateClip, 'good.mp4'], { cwd: scratch }), /one input/, 'ffprobe: an option it does not know is not a way round')
    // Options and filters that read a file by name.
    for (const args of [['-i', 'good.mp4', '-vf', `movie=${privateClip}`, '-f', 'null', '-'], ['-i', 'good.mp4', '-filter_complex', `[0]subtitles=${privateVtt}`, '-f', 'null', '-'],
      ['-i', 'good.mp4', '-attach', privateClip, '-f', 'null', '-'], ['-enable_drefs', '1', '-i', 'good.mp4', '-f', 'null', '-']]) {
      await t.rejects(runner.run('ffmpeg', args, { cwd: scratch }), /not allowed/, args.join(' '))
    }
    // lavfi's movie source as an "input": a file of the job's by name, but lavfi is not a media format.
    const lavfi = await runner.run('ffmpeg', ['-nostdin', '-f', 'lavfi', '-i', `movie=${privateClip}`, '-f', 'null', '-'], { cwd: scratch })
    t.not(lavfi.exitCode, 0)
    t.match(lavfi.stderr, /Format not on whitelist/)
    // yt-dlp: no option that undoes the guard, abbreviated or not.
    writeFileSync(join(scratch, 'urls.txt'), 'file:///etc/passwd\n')
    for (const args of [['--enable-file-urls'], ['--enable-file'], ['--proxy', 'http://127.0.0.1:1'], ['--prox', ''], ['-a', 'urls.txt'], ['--downloader', 'curl'], ['--external-downloader-args', 'x'], ['--load-info-json', 'x.json'], ['--exec', 'id']]) {
      await t.rejects(runner.run('yt-dlp', [...args, '-J', '--', 'http://example.test/'], { cwd: scratch, network: true }), /not allowed/, args.join(' '))
    }
    // A job without folders (none given) opens no local file at all.
    await t.rejects(exec.forJob(new AbortController().signal, log).run('ffprobe', ['-show_format', join(scratch, 'good.mp4')]), InputError)
  })

  t.test('through the runner: a real mp4 (index at the end) is read, seeking included', async t => {
    const job = tempDir(t, 'job-')
    const { exec } = execService(t)
    const runner = exec.forJob(new AbortController().signal, log, { localRoots: [job] })
    writeFileSync(join(job, 'file'), goodClip)
    const probe = await runner.run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'json', 'file'], { cwd: job })
    t.equal(probe.exitCode, 0, probe.stderr)
    t.equal(Math.round(Number(JSON.parse(probe.stdout).format.duration)), 3)
    const seek = await runner.run('ffmpeg', ['-nostdin', '-ss', '2.5', '-i', join(job, 'file'), '-frames:v', '1', '-f', 'image2', '-update', '1', join(job, 'at.png')], { cwd: job })
    t.equal(seek.exitCode, 0, seek.stderr)
    t.ok(existsSync(join(job, 'at.png')), 'a frame after seeking')
  })

  t.test('a remote HLS manifest naming file: segments brings back nothing: yt-dlp (native or ffmpeg downloader), ffmpeg', async t => {
    const hits: string[] = []
    const site = createServer((req: IncomingMessage, res: ServerResponse) => {
      hits.push(req.url ?? '')
      if (req.url === '/page.html') {
        res.setHeader('content-type', 'text/html')
        res.end('<!doctype html><html><head><title>Holiday</title></head><body><video src="/holiday.m3u8"></video></body></html>')
        return
      }
      if (req.url === '/holiday.m3u8') {
        res.setHeader('content-type', 'application/vnd.apple.mpegurl')
        res.end(hls(`file://${privateClip}`))
        return
      }
      res.statusCode = 404
      res.end()
    }).listen(0, '127.0.0.1')
    await once(site, 'listening')
    t.teardown(() => { site.closeAllConnections(); site.close() })
    const port = (site.address() as { port: number }).port
    const { exec } = execService(t, { allowedTargets: [`127.0.0.1:${port}`], lookup: async (name: string) => name === 'media.test' ? [{ address: '127.0.0.1', family: 4 }] : [] })
    const runner = exec.forJob(new AbortController().signal, log)
    for (const downloader of [[], ['--hls-prefer-ffmpeg']]) {
      const result = await runner.run('yt-dlp', ['--no-progress', ...downloader, '-o', '-', '--', `http://media.test:${port}/page.html`], { network: true }).catch(e => e)
      const stdout: string = result.stdout ?? ''
      t.equal(stdout.length, 0, `${downloader.join(' ') || 'native'}: not a byte of the private clip (${result.exitCode ?? result.message})`)
    }
    t.ok(hits.includes('/holiday.m3u8'), 'the manifest was read, through the proxy')
    // ffmpeg on the manifest's URL: its segments may use the network protocols only.
    const out = join(tempDir(t), 'frame.png')
    const direct = await runner.run('ffmpeg', ['-nostdin', '-i', `http://media.test:${port}/holiday.m3u8`, '-frames:v', '1', '-f', 'image2', '-update', '1', out], { network: true })
    t.not(direct.exitCode, 0, 'ffmpeg did not read the file: segment')
    t.match(direct.stderr, /not on whitelist/)
    t.notOk(existsSync(out), 'no frame of the private clip')
  })

  t.test('video_frames jobs: hostile uploads fail as the caller\'s input, name no path; a real mp4 works', async t => {
    const dataDir = tempDir(t)
    const app = await build(t, { dataDir })
    const user = await signup(app)
    const upload = async (name: string, data: Buffer, params: Record<string, unknown> = {}) => {
      const { payload, headers } = multipartBody([['tool', 'video_frames'], ['params', JSON.stringify({ every_seconds: 1, max_frames: 5, ...params })]], { name, type: 'video/mp4', data })
      const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { ...headers, 'x-api-key': user.apiKey }, payload })
      t.equal(res.statusCode, 202, res.body)
      const id = res.json().job_id as string
      const status = await waitForEnd(app, user.apiKey, id, 60_000)
      const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results ?? []
      return { id, status, rows }
    }
    // Stored as DATA_DIR/work/<job>/upload/file: a relative path starts there.
    const uploadDir = join(dataDir, 'work', 'JOB', 'upload')
    for (const attack of attacks(uploadDir)) {
      const { status, rows } = await upload(attack.name, Buffer.from(attack.body))
      t.match(status, { status: 'error', refunded: false, records: 0, error: 'The file is not a video ffmpeg can read.' }, attack.name)
      t.same(rows, [], `${attack.name}: no frame came back`)
      for (const text of [status.error, status.warning, status.stage]) {
        t.notMatch(String(text), dataDir, `${attack.name}: no DATA_DIR path`)
        t.notMatch(String(text), secret, `${attack.name}: no private path`)
      }
    }
    const interval = await upload('good.mp4', goodClip)
    t.match(interval.status, { status: 'done', records: 3 })
    t.match(interval.rows[0], { width: 96, height: 64 })
    const stamps = await upload('good.mp4', goodClip, { mode: 'timestamps', timestamps: [0.5, 2.5] })
    t.match(stamps.status, { status: 'done', records: 2 })
    t.same(stamps.rows.map((r: { time_s: number }) => r.time_s), [0.5, 2.5])
    t.same(readdirSync(join(dataDir, 'work')).filter(n => !n.startsWith('.')), [], 'every job\'s folder is gone')
  })
}
