// yt_thumbs jobs through the kernel against a local stand-in for i.ytimg.com:
// maxres → sd → hq → mq → default checked with HEAD, YouTube's 120×90
// placeholder (served with 404, and once with 200) counted as missing, the
// real size read from the image, lists of every link form, 429 → blocked.
import t from 'tap'
import type { ServerResponse } from 'node:http'
import { jobHarness, PLUGINS, startServer, type RecordedRequest, type ToolEntry } from '../products/_harness.ts'

const ytThumbsTool = (base: string, settings: Record<string, unknown> = {}): ToolEntry => ({ key: 'yt_thumbs', plugin: `${PLUGINS}/yt_thumbs`, enabled: true, upstream: { ytimg: base }, settings })

/** A baseline JPEG's first bytes: SOI, a JFIF APP0 segment, the SOF0 frame header with the size, then filler as the scan data. */
function jpeg (width: number, height: number, bytes = 4000): Buffer {
  const head = Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
    0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01,
  ])
  return Buffer.concat([head, Buffer.alloc(Math.max(0, bytes - head.length - 2), 0x55), Buffer.from([0xff, 0xd9])])
}

const PLACEHOLDER = jpeg(120, 90, 1097)

/**
 * The image host: `full` has every size (maxres at 1920×1080, a custom upload);
 * `nomax` lacks maxres (404 with the placeholder, as YouTube answers); `fake200`
 * answers maxres and sd with a 200 placeholder; `blocked` answers 429; anything
 * else is an unknown video (404 everywhere).
 */
function imageHost () {
  const sizes: Record<string, [number, number]> = { maxresdefault: [1920, 1080], sddefault: [640, 480], hqdefault: [480, 360], mqdefault: [320, 180], default: [120, 90] }
  return (req: RecordedRequest, res: ServerResponse) => {
    const m = /^\/(vi|vi_webp)\/([\w-]{11})\/(\w+)\.(jpg|webp)$/.exec(req.url.pathname)
    const reply = (status: number, body: Buffer) => {
      res.writeHead(status, { 'content-type': m?.[4] === 'webp' ? 'image/webp' : 'image/jpeg', 'content-length': String(body.length) })
      res.end(req.method === 'HEAD' ? undefined : body)
    }
    if (!m) return reply(404, PLACEHOLDER)
    const [, , id, file] = m
    if (id === 'blockedvid0') { res.writeHead(429, { 'content-type': 'text/plain' }); res.end('Too Many Requests'); return }
    if (id === 'brokenvid00') { res.writeHead(503, { 'content-type': 'text/plain' }); res.end('unavailable'); return }
    const size = sizes[file!]
    if (!size) return reply(404, PLACEHOLDER)
    if (id === 'fullvideo01') return reply(200, jpeg(size[0], size[1]))
    if (id === 'nomaxres001') return file === 'maxresdefault' ? reply(404, PLACEHOLDER) : reply(200, jpeg(size[0], size[1]))
    if (id === 'fake200vid0') return file === 'maxresdefault' || file === 'sddefault' ? reply(200, PLACEHOLDER) : reply(200, jpeg(size[0], size[1]))
    return reply(404, PLACEHOLDER)
  }
}

t.test('the largest existing size, its real dimensions, checked with HEAD', async t => {
  const host = await startServer(t, imageHost())
  const h = await jobHarness(t, [ytThumbsTool(host.base)])
  const { status, rows } = await h.run('yt_thumbs', { url: 'https://www.youtube.com/watch?v=fullvideo01&t=3s' })
  t.match(status, { status: 'done', records: 1 })
  t.match(rows[0], {
    input_url: 'https://www.youtube.com/watch?v=fullvideo01&t=3s', video_id: 'fullvideo01', video_url: 'https://www.youtube.com/watch?v=fullvideo01',
    found: true, quality: 'maxres', thumbnail_url: `${host.base}/vi/fullvideo01/maxresdefault.jpg`, width: 1920, height: 1080, content_type: 'image/jpeg', size_bytes: 4000, error: null,
    checked: [{ quality: 'maxres', result: 'found', http_status: 200 }],
  })
  t.same(host.requests.map(r => `${r.method} ${r.url.pathname}`), ['HEAD /vi/fullvideo01/maxresdefault.jpg', 'GET /vi/fullvideo01/maxresdefault.jpg'])
  t.equal(host.requests[1]!.headers.range, 'bytes=0-65535', 'only the image\'s first bytes are read')
})

t.test('store_image: the image found is also kept as a job file, streamed', async t => {
  const host = await startServer(t, imageHost())
  const h = await jobHarness(t, [ytThumbsTool(host.base)])
  const { status, rows } = await h.run('yt_thumbs', { url: ['fullvideo01', 'noSuchVideo'], store_image: true })
  t.match(status, { status: 'done', records: 2 })
  t.match(rows[0], { video_id: 'fullvideo01', found: true, quality: 'maxres', file: { name: 'fullvideo01-maxres.jpg', content_type: 'image/jpeg', size: 4000, url: /^\/api\/tool-run\/[\w-]+\/artifacts\/[\w-]+$/ } })
  t.equal(rows[1].file, null, 'nothing found, nothing stored')
  const download = await h.app.inject({ url: rows[0].file.url, headers: { 'x-api-key': h.user.apiKey } })
  t.equal(download.statusCode, 200)
  t.ok(download.rawPayload.equals(jpeg(1920, 1080)), 'the stored file is the image')
  t.ok(host.requests.some(r => r.method === 'GET' && r.url.pathname === '/vi/fullvideo01/maxresdefault.jpg' && r.headers.range === undefined), 'read whole for the copy')
  const linked = await h.run('yt_thumbs', { url: 'fullvideo01' })
  t.equal(linked.rows[0].file, null, 'without store_image it is linked only')
})

t.test('placeholders count as missing: a 404 maxres, and a 200 that is the 120×90 image', async t => {
  const host = await startServer(t, imageHost())
  const h = await jobHarness(t, [ytThumbsTool(host.base)])
  const { status, rows } = await h.run('yt_thumbs', { url: ['https://youtu.be/nomaxres001', 'https://www.youtube.com/shorts/fake200vid0'] })
  t.match(status, { status: 'done', records: 2 })
  t.match(rows[0], { video_id: 'nomaxres001', found: true, quality: 'sd', width: 640, height: 480, checked: [{ quality: 'maxres', result: 'missing', http_status: 404 }, { quality: 'sd', result: 'found' }] })
  t.match(rows[1], { video_id: 'fake200vid0', found: true, quality: 'hq', width: 480, height: 360, checked: [{ quality: 'maxres', result: 'placeholder', http_status: 200 }, { quality: 'sd', result: 'placeholder' }, { quality: 'hq', result: 'found' }] })
})

t.test('an unknown video: every size missing, found=false, a warning; webp on vi_webp', async t => {
  const host = await startServer(t, imageHost())
  const h = await jobHarness(t, [ytThumbsTool(host.base)])
  const { status, rows } = await h.run('yt_thumbs', { url: 'noSuchVideo', image_format: 'webp' })
  t.match(status, { status: 'done', records: 1, warning: /1 of 1 video has no thumbnail/ })
  t.match(rows[0], { video_id: 'noSuchVideo', found: false, quality: null, thumbnail_url: null, error: null })
  t.same(rows[0]!.checked.map((c: { quality: string, result: string }) => `${c.quality}:${c.result}`), ['maxres:missing', 'sd:missing', 'hq:missing', 'mq:missing', 'default:missing'])
  t.ok(host.requests.every(r => r.method === 'HEAD' && r.url.pathname.startsWith('/vi_webp/noSuchVideo/') && r.url.pathname.endsWith('.webp')))
})

t.test('a list of every link form: one row each, in order; not-YouTube entries skipped with a warning; one charge', async t => {
  const host = await startServer(t, imageHost())
  const h = await jobHarness(t, [ytThumbsTool(host.base, { concurrency: 2 })])
  const links = ['fullvideo01', 'https://m.youtube.com/watch?v=nomaxres001', 'https://www.youtube.com/embed/fake200vid0?rel=0', 'https://www.youtube.com/live/fullvideo01', 'https://vimeo.com/12345', 'https://youtu.be/nomaxres001']
  const { status, rows } = await h.run('yt_thumbs', { url: links })
  t.match(status, { status: 'done', records: 5, warning: /Skipped 1 entry that is not a YouTube video link or id: "https:\/\/vimeo\.com\/12345"/ })
  t.same(rows.map(r => [r.video_id, r.quality]), [['fullvideo01', 'maxres'], ['nomaxres001', 'sd'], ['fake200vid0', 'hq'], ['fullvideo01', 'maxres'], ['nomaxres001', 'sd']])
  t.equal(rows[3]!.input_url, 'https://www.youtube.com/live/fullvideo01')
  t.equal((await h.usage()).calls_today, 1)
})

t.test('outcomes: 429 blocked and refunded, 5xx an upstream error, nothing YouTube an input error, no url a 400', async t => {
  const host = await startServer(t, imageHost())
  const h = await jobHarness(t, [ytThumbsTool(host.base)])
  const blocked = await h.run('yt_thumbs', { url: 'blockedvid0' })
  t.match(blocked.status, { status: 'error', blocked: true, refunded: true, error: /429/ })
  const broken = await h.run('yt_thumbs', { url: ['brokenvid00'] })
  t.match(broken.status, { status: 'error', blocked: false, refunded: true, error: /image host failed/ })
  t.match(broken.rows[0], { video_id: 'brokenvid00', found: false, error: /HTTP 503/ }, 'the row says why')
  const mixed = await h.run('yt_thumbs', { url: ['brokenvid00', 'fullvideo01'] })
  t.match(mixed.status, { status: 'done', records: 2 }, 'one failure among others is that row\'s error')
  const notYoutube = await h.run('yt_thumbs', { url: ['https://vimeo.com/1', 'hello'] })
  t.match(notYoutube.status, { status: 'error', refunded: false, error: /No YouTube video link or id/ })
  const none = await h.run('yt_thumbs', {})
  t.equal(none.started, 400)
  t.match(none.status.detail, /url/)
  t.equal((await h.usage()).calls_today, 2, 'charged: the mixed run (done) and the input error; refunded: the blocked and the failed runs')
})

t.test('a private image host is refused without ALLOW_PRIVATE_TARGETS', async t => {
  const host = await startServer(t, imageHost())
  const h = await jobHarness(t, [ytThumbsTool(host.base)], { ALLOW_PRIVATE_TARGETS: '0' })
  const { status, rows } = await h.run('yt_thumbs', { url: 'fullvideo01' })
  t.equal(host.requests.length, 0, 'nothing reached the host')
  t.match(status, { status: 'error', refunded: false, error: /ALLOW_PRIVATE_TARGETS/ })
  t.equal(rows.length, 0)
})
