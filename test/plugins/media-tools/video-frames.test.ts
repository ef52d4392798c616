// video_frames end to end: real ffmpeg (and yt-dlp for a page link) through the
// egress proxy against a local site (its name, media.test, resolves only in
// the guard's injected resolver) serving a 3 s clip the test makes with ffmpeg:
// 1 frame/s gives 3 frames of the clip's size, timestamps and the frame cap
// hold, a cancel mid-ffmpeg leaves no child, a private target is refused.
import t from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import { build, signup, tempDir } from '../../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../../helpers/jobs.ts'
import { eventually, hasProgram } from '../../exec/_exec.ts'
import { multipartBody } from '../../artifacts/multipart.ts'

const ffmpegsWith = (token: string): number =>
  execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' }).split('\n').filter(l => l.includes(token) && /ffmpeg/.test(l) && !/^\s*Z/.test(l)).length

const missing = ['ffmpeg', 'yt-dlp'].filter(p => !hasProgram(p))
if (missing.length > 0) {
  t.test('video_frames', { skip: `needs ${missing.join(', ')} (.ci/run installs them)` }, async () => {})
} else {
  const dir = tempDir(t)
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=3:size=160x120:rate=10', '-c:v', 'mpeg4', '-pix_fmt', 'yuv420p', '-f', 'mp4', join(dir, 'clip.mp4')])
  const clip = readFileSync(join(dir, 'clip.mp4'))
  const slow: ServerResponse[] = []
  const hits: string[] = []
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    hits.push(`${req.method} ${req.url}`)
    if (req.url === '/watch.html') {
      res.setHeader('content-type', 'text/html')
      res.end('<!doctype html><html><head><title>Clip</title></head><body><video src="/clip.mp4" controls></video></body></html>')
      return
    }
    if (req.url === '/clip.mp4') {
      res.setHeader('content-type', 'video/mp4')
      res.end(clip)
      return
    }
    if (req.url?.startsWith('/slow-')) {
      // A stream that never ends: ffmpeg waits on it until the job is cancelled.
      res.writeHead(200, { 'content-type': 'video/mp4' })
      res.write(clip.subarray(0, 64))
      slow.push(res)
      return
    }
    res.statusCode = 404
    res.end()
  }
  const site = createServer(handler).listen(0, '127.0.0.1')
  await once(site, 'listening')
  const port = (site.address() as { port: number }).port
  const inside = createServer(handler).listen(0, '127.0.0.2')
  await once(inside, 'listening')
  const insidePort = (inside.address() as { port: number }).port
  t.teardown(() => { for (const r of slow) r.destroy(); for (const s of [site, inside]) { s.closeAllConnections(); s.close() } })

  const BASE = `http://media.test:${port}`
  const app = await build(t, { network: { allowedTargets: [`127.0.0.1:${port}`], lookup: async (name: string) => name === 'media.test' ? [{ address: '127.0.0.1', family: 4 }] : [] } })
  const user = await signup(app)
  const start = async (params: Record<string, unknown>) => {
    const res = await startJob(app, user.apiKey, params, 'video_frames')
    t.equal(res.statusCode, 202, res.body)
    return res.json().job_id as string
  }
  const run = async (params: Record<string, unknown>) => {
    const id = await start(params)
    const status = await waitForEnd(app, user.apiKey, id, 60_000)
    const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results ?? []
    return { status, rows }
  }

  t.test('a 3 s clip at 1 frame/s: 3 JPEG frames of its size at 0, 1 and 2 s', async t => {
    const { status, rows } = await run({ url: `${BASE}/clip.mp4`, every_seconds: 1 })
    t.match(status, { status: 'done', records: 3, error: null })
    t.same(rows.map((r: { time_s: number }) => r.time_s), [0, 1, 2])
    t.same(rows.map((r: { timestamp: string }) => r.timestamp), ['00:00:00.000', '00:00:01.000', '00:00:02.000'])
    for (const row of rows) {
      t.match(row, { width: 160, height: 120, source_url: `${BASE}/clip.mp4`, file: { content_type: 'image/jpeg', name: /^frame-\d{5}-00-00-0\d\.000\.jpg$/ } })
      const res = await app.inject({ url: row.file.url, headers: { 'x-api-key': user.apiKey } })
      t.equal(res.statusCode, 200)
      t.same([...res.rawPayload.subarray(0, 2)], [0xff, 0xd8], 'a JPEG')
      t.equal(res.rawPayload.length, row.file.size)
    }
  })

  t.test('a page link resolved by yt-dlp; PNG frames at timestamps, one past the end is a warning', async t => {
    const { status, rows } = await run({ url: `${BASE}/watch.html`, mode: 'timestamps', timestamps: [2.5, 0.5, 10], format: 'png', width: 80 })
    t.match(status, { status: 'done', records: 2, warning: /No frame at 10 s/ })
    t.same(rows.map((r: { time_s: number }) => r.time_s), [0.5, 2.5])
    t.match(rows[0], { width: 80, height: 60, file: { content_type: 'image/png' } })
  })

  t.test('an uploaded video (multipart tool-run): frames without any network', async t => {
    hits.length = 0
    const { payload, headers } = multipartBody([['tool', 'video_frames'], ['params', JSON.stringify({ every_seconds: 1, max_frames: 10 })]], { name: 'my clip.mp4', type: 'video/mp4', data: clip })
    const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { ...headers, 'x-api-key': user.apiKey }, payload })
    t.equal(res.statusCode, 202, res.body)
    const id = res.json().job_id
    const status = await waitForEnd(app, user.apiKey, id, 60_000)
    t.match(status, { status: 'done', records: 3 })
    const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results
    t.match(rows[0], { input_url: 'upload://my clip.mp4', source_url: null, width: 160, height: 120 })
    t.same(hits, [], 'nothing was fetched')
    const zip = await app.inject({ url: `/api/tool-run/${id}/artifacts.zip`, headers: { 'x-api-key': user.apiKey } })
    t.equal(zip.statusCode, 200, 'the frames come as one zip too')
    t.same([...zip.rawPayload.subarray(0, 2)], [0x50, 0x4b], 'a zip')
  })

  t.test('a tall upload at the widest width: the frame is scaled into 3840×3840 and 3840×2160 pixels; a wider width is a 400, uncharged', async t => {
    // The 64×384 upload: at width 3840 (7680 before) it asked ffmpeg for a 3840×23040 frame.
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x384:rate=5', '-c:v', 'mpeg4', '-pix_fmt', 'yuv420p', '-f', 'mp4', join(dir, 'tall.mp4')])
    const tall = readFileSync(join(dir, 'tall.mp4'))
    const send = (params: Record<string, unknown>) => {
      const { payload, headers } = multipartBody([['tool', 'video_frames'], ['params', JSON.stringify(params)]], { name: 'tall.mp4', type: 'video/mp4', data: tall })
      return app.inject({ method: 'POST', url: '/api/tool-run', headers: { ...headers, 'x-api-key': user.apiKey }, payload })
    }
    const before = await usageOf(app, user.apiKey)
    const wide = await send({ max_frames: 1, format: 'png', width: 7680 })
    t.equal(wide.statusCode, 400, wide.body)
    t.match(wide.json(), { detail: /width/ })
    t.equal((await usageOf(app, user.apiKey)).calls_today, before.calls_today, 'not charged')
    const res = await send({ max_frames: 1, format: 'png', width: 3840 })
    t.equal(res.statusCode, 202, res.body)
    const status = await waitForEnd(app, user.apiKey, res.json().job_id, 60_000)
    t.match(status, { status: 'done', records: 1 })
    const rows = (await app.inject({ url: `/api/tool-run/${res.json().job_id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results
    t.match(rows[0], { width: 640, height: 3840, file: { content_type: 'image/png' } }, 'aspect kept, inside the box')
  })

  t.test('twelve frames, stored eight at a time: rows, the file list and the zip all in time order', async t => {
    const { status, rows } = await run({ url: `${BASE}/clip.mp4`, every_seconds: 0.25, max_frames: 12 })
    t.match(status, { status: 'done', records: 12 })
    const times = rows.map((r: { time_s: number }) => r.time_s)
    t.same(times, [...times].sort((a, b) => a - b), 'rows by time')
    t.same(rows.map((r: { index: number }) => r.index), [...Array(12).keys()])
    const names = rows.map((r: { file: { name: string } }) => r.file.name)
    const listed = (await app.inject({ url: `/api/tool-run/${status.job_id}/artifacts`, headers: { 'x-api-key': user.apiKey } })).json()
    t.same(listed.files.map((a: { name: string }) => a.name), names, 'the file list in the rows\' order')
    const zip = await app.inject({ url: `/api/tool-run/${status.job_id}/artifacts.zip`, headers: { 'x-api-key': user.apiKey } })
    // Each entry's local header names it, in the archive's order.
    const inZip = [...zip.rawPayload.toString('latin1').matchAll(/frame-\d{5}[^/\0]*?\.jpg/g)].map(m => m[0]).slice(0, 12)
    t.same(inZip, names, 'the zip in the rows\' order')
  })

  t.test('max_frames caps the frames', async t => {
    const { status, rows } = await run({ url: `${BASE}/clip.mp4`, every_seconds: 0.5, max_frames: 2 })
    t.match(status, { status: 'done', records: 2 })
    t.equal(rows.length, 2)
  })

  t.test('cancelling mid-ffmpeg leaves no ffmpeg behind', async t => {
    const token = randomBytes(6).toString('hex')
    const id = await start({ url: `${BASE}/slow-${token}.mp4` })
    t.ok(await eventually(() => ffmpegsWith(token) > 0, 20_000), 'ffmpeg is reading the endless stream')
    const del = await app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': user.apiKey } })
    t.match(del.json(), { status: 'cancelled', error: 'cancelled', refunded: true })
    t.ok(await eventually(() => ffmpegsWith(token) === 0), 'no ffmpeg left')
  })

  t.test('a private target is refused, not refunded; it sees nothing', async t => {
    hits.length = 0
    const { status } = await run({ url: `http://127.0.0.2:${insidePort}/clip.mp4` })
    t.match(status, { status: 'error', refunded: false, error: /Refused to connect/ })
    t.same(hits, [])
  })

  t.test('timestamps mode without timestamps is the caller\'s error', async t => {
    const { status } = await run({ url: `${BASE}/clip.mp4`, mode: 'timestamps' })
    t.match(status, { status: 'error', refunded: false, error: /needs timestamps/ })
  })
}
