// The yt-dlp-backed media tools end to end (dl_* and covers share one run
// code): real yt-dlp, its generic extractor reading a local page that embeds a
// clip the test makes with ffmpeg, through the egress proxy. The platform's
// host name (www.facebook.com) resolves to the fixture only in the guard's
// injected resolver, and only 127.0.0.1:<port> is allowed although private,
// so the proxy is the one route. The platform mappings themselves are tested
// on the real captures in test/plugins/media-lib/.
import t from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import { build, signup, tempDir } from '../../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../../helpers/jobs.ts'
import { hasProgram } from '../../exec/_exec.ts'

const missing = ['ffmpeg', 'yt-dlp'].filter(p => !hasProgram(p))
if (missing.length > 0) {
  t.test('the yt-dlp media tools', { skip: `needs ${missing.join(', ')} (.ci/run installs them)` }, async () => {})
} else {
  const dir = tempDir(t)
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=160x120:rate=10', '-c:v', 'mpeg4', '-pix_fmt', 'yuv420p', '-f', 'mp4', join(dir, 'clip.mp4')])
  const clip = readFileSync(join(dir, 'clip.mp4'))

  const hits: string[] = []
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    hits.push(`${req.headers.host} ${req.method} ${req.url}`)
    if (req.url === '/page.html') {
      res.setHeader('content-type', 'text/html')
      res.end('<!doctype html><html><head><title>Test clip</title><meta property="og:title" content="Test clip">' +
        '<meta property="og:description" content="A test pattern #testsrc #ffmpeg with @someone">' +
        '<meta property="og:image" content="/cover.jpg"><meta property="og:video" content="/clip.mp4"><meta property="og:video:type" content="video/mp4">' +
        '</head><body><video src="/clip.mp4" poster="/cover.jpg" controls></video></body></html>')
      return
    }
    if (req.url === '/clip.mp4') {
      res.setHeader('content-type', 'video/mp4')
      res.end(clip)
      return
    }
    res.statusCode = 404
    res.end('not found')
  }
  const site = createServer(handler).listen(0, '127.0.0.1')
  await once(site, 'listening')
  const port = (site.address() as { port: number }).port
  const inside = createServer(handler).listen(0, '127.0.0.2')
  await once(inside, 'listening')
  const insidePort = (inside.address() as { port: number }).port
  t.teardown(() => { site.closeAllConnections(); site.close(); inside.closeAllConnections(); inside.close() })

  const PAGE = `http://www.facebook.com:${port}/page.html`
  const network = {
    allowedTargets: [`127.0.0.1:${port}`],
    lookup: async (name: string) => name === 'www.facebook.com' ? [{ address: '127.0.0.1', family: 4 }] : name === 'inside.facebook.com' ? [{ address: '127.0.0.2', family: 4 }] : [],
  }
  const app = await build(t, { network })
  const user = await signup(app)
  const run = async (tool: string, params: Record<string, unknown>) => {
    const res = await startJob(app, user.apiKey, params, tool)
    t.equal(res.statusCode, 202, res.body)
    const id = res.json().job_id
    const status = await waitForEnd(app, user.apiKey, id, 60_000)
    const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results ?? []
    return { status, rows }
  }

  t.test('dl_fb: one row for the embedded video, with its format and direct URL', async t => {
    hits.length = 0
    const { status, rows } = await run('dl_fb', { url: PAGE })
    t.match(status, { status: 'done', records: 1, error: null })
    t.equal(rows.length, 1)
    const row = rows[0]
    t.match(row, { input_url: PAGE, platform: /generic|html5/i, flat: false })
    const urls = [row.best?.url, ...row.formats.map((f: { url: string | null }) => f.url)]
    t.ok(urls.some((u: unknown) => typeof u === 'string' && u.endsWith('/clip.mp4')), `the clip's URL is a format (${JSON.stringify(urls)})`)
    t.ok(hits.includes(`www.facebook.com:${port} GET /page.html`), 'the page was read under the platform name, through the proxy')
  })

  t.test('dl_fb download: true stores the format as a job file, streamed from yt-dlp', async t => {
    const { status, rows } = await run('dl_fb', { url: PAGE, download: true })
    t.match(status, { status: 'done', records: 1, error: null })
    t.match(rows[0].file, { size: clip.length, content_type: 'video/mp4', name: /\.mp4$/ })
    const res = await app.inject({ url: rows[0].file.url, headers: { 'x-api-key': user.apiKey } })
    t.equal(res.statusCode, 200)
    t.ok(res.rawPayload.equals(clip), 'the stored file is the clip')
  })

  t.test('fb_covers: the cover, caption, hashtags and mentions', async t => {
    const { status, rows } = await run('fb_covers', { url: PAGE })
    t.match(status, { status: 'done', records: 1 })
    t.match(rows[0], { input_url: PAGE, cover: { url: /\/cover\.jpg$/ }, animated_cover: null })
    t.match(rows[0].caption ?? '', /test pattern|Test clip/)
  })

  t.test('a list: a link that fails is a warning, the others give rows', async t => {
    const { status, rows } = await run('dl_fb', { url: [PAGE, `http://www.facebook.com:${port}/gone.html`] })
    t.match(status, { status: 'done', records: 1, warning: /gone\.html/ })
    t.notMatch(status.warning, /\/work|\/tmp/, 'no internal path')
    t.equal(rows[0].input_url, PAGE)
  })

  t.test('one link that fails ends the job as yt-dlp\'s failure maps it', async t => {
    const { status } = await run('dl_fb', { url: `http://www.facebook.com:${port}/gone.html` })
    t.match(status, { status: 'error', refunded: true })
    t.notMatch(status.error, /\/work|\/tmp|yt-dlp -U|--cookies/, 'no path, no advice to the operator')
  })

  t.test('a link of another platform is a 400 before any charge', async t => {
    const before = (await usageOf(app, user.apiKey)).calls_today
    for (const [tool, url] of [['dl_fb', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'], ['dl_yt', 'https://www.tiktok.com/@a/video/1'], ['tt_covers', 'https://www.instagram.com/reel/x/'], ['dl_ig', 'file:///etc/passwd'], ['dl_tt', ['https://www.tiktok.com/@a/video/1', 'https://evil.example/tiktok.com/']]] as const) {
      const res = await startJob(app, user.apiKey, { url }, tool)
      t.equal(res.statusCode, 400, `${tool} ${JSON.stringify(url)}: ${res.body}`)
      t.match(res.json(), { detail: /url/ })
    }
    t.equal((await usageOf(app, user.apiKey)).calls_today, before, 'nothing charged')
  })

  t.test('a platform name that resolves to a private address is refused; nothing reaches it', async t => {
    hits.length = 0
    const { status } = await run('dl_fb', { url: `http://inside.facebook.com:${insidePort}/page.html` })
    t.match(status, { status: 'error', refunded: false, error: /Refused to connect/ })
    t.same(hits, [], 'the private server saw nothing')
  })
}
