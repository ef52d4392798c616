// ig_captions end to end: real yt-dlp reads a local page (under the name
// www.instagram.com, which only the guard's injected resolver knows) that
// embeds a clip with a WebVTT subtitle track; the caption's hashtags and
// mentions, the track as .srt/.vtt/.txt job files and its text in the row; a
// page without a track is a warning, not an error.
import t from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import { build, signup, tempDir } from '../../helpers/build.ts'
import { startJob, waitForEnd } from '../../helpers/jobs.ts'
import { hasProgram } from '../../exec/_exec.ts'

const VTT = 'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHello from the <b>test</b> clip\n\n00:00:01.000 --> 00:00:02.000\nSecond line &amp; more\n'
const page = (track: boolean) => '<!doctype html><html><head><title>Reel</title>' +
  '<meta property="og:description" content="Sunset run #travel #東京 with @friend.one">' +
  `</head><body><video controls><source src="/clip.mp4" type="video/mp4">${track ? '<track kind="subtitles" srclang="en" label="English" src="/subs.en.vtt">' : ''}</video></body></html>`

const missing = ['ffmpeg', 'yt-dlp'].filter(p => !hasProgram(p))
if (missing.length > 0) {
  t.test('ig_captions', { skip: `needs ${missing.join(', ')} (.ci/run installs them)` }, async () => {})
} else {
  const dir = tempDir(t)
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=160x120:rate=10', '-c:v', 'mpeg4', '-pix_fmt', 'yuv420p', '-f', 'mp4', join(dir, 'clip.mp4')])
  const clip = readFileSync(join(dir, 'clip.mp4'))
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const send = (type: string, body: string | Buffer) => { res.setHeader('content-type', type); res.end(body) }
    if (req.url === '/reel.html') return send('text/html', page(true))
    if (req.url === '/plain.html') return send('text/html', page(false))
    if (req.url === '/subs.en.vtt') return send('text/vtt', VTT)
    if (req.url === '/clip.mp4') return send('video/mp4', clip)
    res.statusCode = 404
    res.end()
  }
  const site = createServer(handler).listen(0, '127.0.0.1')
  await once(site, 'listening')
  const port = (site.address() as { port: number }).port
  t.teardown(() => { site.closeAllConnections(); site.close() })

  const app = await build(t, { network: { allowedTargets: [`127.0.0.1:${port}`], lookup: async (name: string) => name === 'www.instagram.com' ? [{ address: '127.0.0.1', family: 4 }] : [] } })
  const user = await signup(app)
  const run = async (params: Record<string, unknown>) => {
    const res = await startJob(app, user.apiKey, params, 'ig_captions')
    t.equal(res.statusCode, 202, res.body)
    const id = res.json().job_id
    const status = await waitForEnd(app, user.apiKey, id, 60_000)
    const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results ?? []
    return { status, rows }
  }

  t.test('the caption, its hashtags and mentions, and the subtitles as three files plus text', async t => {
    const url = `http://www.instagram.com:${port}/reel.html`
    const { status, rows } = await run({ url, language: 'en' })
    t.match(status, { status: 'done', records: 1, warning: null })
    t.match(rows[0], {
      input_url: url, hashtags: ['travel', '東京'], mentions: ['friend.one'], caption: /Sunset run/,
      subtitle_language: 'en', subtitle_automatic: false, subtitle_cues: 2, languages_offered: ['en'],
    })
    t.match(rows[0].subtitle_text, /^Hello from the test clip\nSecond line & more\n?$/)
    t.same(rows[0].files.map((f: { format: string }) => f.format), ['srt', 'vtt', 'txt'])
    const files: Record<string, string> = {}
    for (const file of rows[0].files) {
      const res = await app.inject({ url: file.url, headers: { 'x-api-key': user.apiKey } })
      t.equal(res.statusCode, 200, `${file.name} downloads`)
      t.equal(res.body.length > 0 && Buffer.byteLength(res.body), file.size)
      files[file.format] = res.body
    }
    t.match(files.srt, /^1\n00:00:00,000 --> 00:00:01,000\nHello from the test clip\n/)
    t.match(files.vtt, /^WEBVTT\n\n00:00:00\.000 --> 00:00:01\.000\nHello from the test clip/)
    t.match(files.vtt, /Second line &amp; more/)
  })

  t.test('no track in the language: the caption, and a warning naming what is offered', async t => {
    const { status, rows } = await run({ url: [`http://www.instagram.com:${port}/plain.html`, `http://www.instagram.com:${port}/reel.html`], language: 'fr' })
    t.match(status, { status: 'done', records: 2, warning: /No subtitles or automatic captions in "fr" for 2 items.*offers: none.*offers: en/ })
    t.match(rows[0], { hashtags: ['travel', '東京'], subtitle_language: null, subtitle_text: null, files: [] })
  })
}
