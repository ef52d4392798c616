// The yt-dlp-backed media tools end to end (dl_* and covers share one run
// code): real yt-dlp, its generic extractor reading a local page that embeds a
// clip the test makes with ffmpeg, through the egress proxy. The platform's
// host name (www.facebook.com) resolves to the fixture only in the guard's
// injected resolver, and only 127.0.0.1:<port> is allowed although private,
// so the proxy is the one route. The platform mappings themselves are tested
// on the real captures in test/plugins/media-lib/. Each run lands in the
// platforms' health (GET /api/media/status): a real yt-dlp refusal (HTTP 429)
// with its kind, a success ending the streak.
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
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=1', '-frames:v', '1', join(dir, 'cover.jpg')])
  const cover = readFileSync(join(dir, 'cover.jpg'))
  // A page's posts as Facebook's logged-out mobile layout links them (the capture's form: /<page>/videos/<slug>/<id>/).
  const PAGE_POSTS = '<!doctype html><html><head><title>Test Page - Posts | Facebook</title></head><body>' +
    '<a href="/TestPage/videos/?ref=page_internal&amp;mt_nav=0">Videos</a>' +
    '<a href="/TestPage/videos/a-test-clip/1000001/?__tn__=-R">clip</a><div data-store="&#123;&quot;videoID&quot;:&quot;1000001&quot;&#125;"></div>' +
    '<a href="/TestPage/videos/gone-clip/1000002/">gone</a></body></html>'
  const LOGIN = '<!doctype html><html><head><title>Log into Facebook</title></head><body><form id="login_form" action="/login/device-based/regular/login/" method="post"></form></body></html>'

  const hits: string[] = []
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    hits.push(`${req.headers.host} ${req.method} ${req.url}`)
    // The listed page's one live video is the clip's page.
    if (req.url === '/TestPage/videos/1000001/') req.url = '/page.html'
    if (req.url === '/page.html') {
      res.setHeader('content-type', 'text/html')
      res.end('<!doctype html><html><head><title>Test clip</title><meta property="og:title" content="Test clip">' +
        '<meta property="og:description" content="A test pattern #testsrc #ffmpeg with @someone">' +
        '<meta property="og:image" content="/cover.jpg"><meta property="og:video" content="/clip.mp4"><meta property="og:video:type" content="video/mp4">' +
        '</head><body><video src="/clip.mp4" poster="/cover.jpg" controls></video></body></html>')
      return
    }
    if (req.url === '/TestPage/videos' || req.url === '/WalledPage') {
      res.setHeader('content-type', 'text/html')
      res.end(req.url === '/WalledPage' ? LOGIN : PAGE_POSTS)
      return
    }
    // A platform that has had enough of this server (platform health).
    if (req.url?.startsWith('/limited.html')) {
      res.statusCode = 429
      res.end('Too Many Requests')
      return
    }
    if (req.url === '/cover.jpg') {
      res.setHeader('content-type', 'image/jpeg')
      res.end(cover)
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
    lookup: async (name: string) => name === 'www.facebook.com' || name === 'm.facebook.com' ? [{ address: '127.0.0.1', family: 4 }] : name === 'inside.facebook.com' ? [{ address: '127.0.0.2', family: 4 }] : [],
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

  t.test('fb_covers store_images: each cover is also kept as a job file, fetched through the guard', async t => {
    const { status, rows } = await run('fb_covers', { url: PAGE, store_images: true })
    t.match(status, { status: 'done', records: 1 })
    t.match(rows[0], { cover: { url: /\/cover\.jpg$/ }, cover_file: { content_type: 'image/jpeg', size: cover.length, name: /-cover\.jpg$/ }, animated_cover_file: null })
    const res = await app.inject({ url: rows[0].cover_file.url, headers: { 'x-api-key': user.apiKey } })
    t.equal(res.statusCode, 200)
    t.ok(res.rawPayload.equals(cover), 'the stored file is the cover image')
    const linked = await run('fb_covers', { url: PAGE })
    t.equal(linked.rows[0].cover_file, null, 'without store_images the image is linked only')
  })

  t.test('fb_covers page_videos: the page\'s video links read from its mobile HTML, each video through yt-dlp', async t => {
    hits.length = 0
    const pageLink = `http://www.facebook.com:${port}/TestPage/videos`
    const { status, rows } = await run('fb_covers', { url: pageLink, page_videos: true })
    t.ok(hits.includes(`m.facebook.com:${port} GET /TestPage/videos`), 'the page was read on the mobile host, through the guard')
    t.match(status, { status: 'done', records: 1, warning: /1000002/ })
    t.equal(rows.length, 1, 'the live video gives a row; the gone one is a warning')
    t.match(rows[0], { input_url: pageLink, cover: { url: /\/cover\.jpg$/ } })
    t.match(rows[0].caption ?? '', /test pattern|Test clip/)
  })

  t.test('fb_covers page_videos on a page behind Facebook\'s login says so', async t => {
    const { status } = await run('fb_covers', { url: `http://www.facebook.com:${port}/WalledPage`, page_videos: true })
    t.match(status.warning, /login page instead of the page's videos/)
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

  t.test('platform health: each run is recorded under its platform, a refusal with its kind, in GET /api/media/status', async t => {
    const health = async () => {
      const res = await app.inject({ url: '/api/media/status', headers: { 'x-api-key': user.apiKey } })
      t.equal(res.statusCode, 200, res.body)
      return res.json()
    }
    const before = await health()
    t.match(before, { observed: true, platforms: { facebook: { name: 'Facebook', last_success_at: String, last_refusal_at: null, consecutive_refusals: 0 } } }, 'the runs above were read')
    t.match(before.platforms.youtube, { name: 'YouTube', last_success_at: null, last_refusal_at: null, last_refusal_kind: null, consecutive_refusals: 0 }, 'a platform never run is unknown')

    const limited = `http://www.facebook.com:${port}/limited.html?token=tok-1234`
    for (const tool of ['dl_fb', 'fb_covers']) {
      const { status } = await run(tool, { url: limited })
      t.match(status, { status: 'error', blocked: true, refunded: true, error: /429/ }, `${tool}: yt-dlp's 429 ends the job blocked`)
    }
    const refused = await health()
    t.match(refused.platforms.facebook, { last_refusal_kind: 'rate_limited', last_refusal_message: /HTTP Error 429/, consecutive_refusals: 2, last_success_at: before.platforms.facebook.last_success_at })
    t.ok(Date.parse(refused.platforms.facebook.last_refusal_at) >= Date.parse(before.platforms.facebook.last_success_at), 'the refusal is newer than the success')
    t.notMatch(JSON.stringify(refused), /limited\.html|tok-1234|127\.0\.0\.1|--cookies|yt-dlp -U/, 'no link, no token, no address, no advice for yt-dlp\'s users')
    t.match(refused.note, /Facebook refused the last 2 runs \(rate limited\)/)

    const gone = await run('dl_fb', { url: `http://www.facebook.com:${port}/gone.html` })
    t.match(gone.status, { status: 'error', blocked: false })
    t.equal((await health()).platforms.facebook.consecutive_refusals, 2, 'a 404 is the link\'s failure, not the platform refusing: not counted')

    t.match((await run('fb_covers', { url: PAGE })).status, { status: 'done' })
    const after = (await health()).platforms.facebook
    t.match(after, { consecutive_refusals: 0, last_refusal_kind: 'rate_limited' }, 'a success ends the streak; the last refusal stays shown')
    t.ok(Date.parse(after.last_success_at) >= Date.parse(after.last_refusal_at), 'the success is the newest')
  })

  t.test('a platform name that resolves to a private address is refused; nothing reaches it', async t => {
    hits.length = 0
    const { status } = await run('dl_fb', { url: `http://inside.facebook.com:${insidePort}/page.html` })
    t.match(status, { status: 'error', refunded: false, error: /Refused to connect/ })
    t.same(hits, [], 'the private server saw nothing')
  })
}
