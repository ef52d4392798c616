// The media tools' platform health across processes: jobs on one app whose
// yt-dlp answers with real refusal texts (quoted from yt-dlp bug reports, as in
// test/plugins/media-lib/ytdlp-failures.test.ts) or the real Instagram info dict of the
// captures are in the other app's GET /api/media/status, per platform, with the
// refusal's kind and no link, id or advice. Two apps sharing one Redis stand
// for two processes; they enable different media tools, and both serve the
// endpoint. yt-dlp is a stand-in script (YTDLP_PATH) that prints those texts:
// a real refusal cannot be had offline (ytdlp-tools.test.ts has real yt-dlp's 429).
import t from 'tap'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { build, signup, tempDir } from '../../helpers/build.ts'
import { startJob, waitForEnd } from '../../helpers/jobs.ts'
import { startRedis } from '../../helpers/redis-server.ts'
import { CAPTURES_DIR, readCapture } from '../../extract/captures.ts'
import { platformOfLink, refusalMessage } from '../../../plugins/lib/media-tools/index.ts'
import { fakeYtdlp, toolsConfig } from './fake-ytdlp.ts'

t.test('the platform a link is on, and a refusal message as the record keeps it', async t => {
  t.equal(platformOfLink('https://m.youtube.com/watch?v=x'), 'youtube')
  t.equal(platformOfLink('https://youtu.be/x'), 'youtube')
  t.equal(platformOfLink('https://vm.tiktok.com/ZM/'), 'tiktok')
  t.equal(platformOfLink('https://fb.watch/abc/'), 'facebook')
  t.equal(platformOfLink('http://www.instagram.com:8080/reel/x/'), 'instagram')
  t.equal(platformOfLink('https://story.snapchat.com/s/x'), 'snapchat')
  t.equal(platformOfLink('https://notyoutube.com/watch'), null, 'a host that merely ends with the name')
  t.equal(platformOfLink('https://cdn.example.com/video.mp4'), null)
  t.equal(platformOfLink('not a link'), null)
  t.equal(refusalMessage('[youtube] dQw4w9WgXcQ: Sign in to confirm you’re not a bot'), 'Sign in to confirm you’re not a bot', 'no video id')
  t.equal(refusalMessage('[generic] Unable to download webpage: HTTP Error 429'), '[generic] Unable to download webpage: HTTP Error 429')
  t.equal(refusalMessage('Unsupported URL: https://www.tiktok.com/@someone/video/1?token=x'), 'Unsupported URL: (link)', 'no link')
  t.ok(refusalMessage('x'.repeat(400)).length <= 160, 'short')
})

const infoPath = join(CAPTURES_DIR, 'ytdlp/instagram_reel.info.json')
t.test('refusals and successes recorded on one process are every process\'s platform health', async t => {
  if (readCapture(t, 'ytdlp/instagram_reel.info.json') === null) return
  const dir = tempDir(t, 'media-health-')
  const redis = await startRedis(t)
  const env = (keys: string[], name: string) => ({ TOOLS_CONFIG: toolsConfig(dir, name, keys), YTDLP_PATH: fakeYtdlp(dir, infoPath).path, REDIS_URL: redis.url })
  const a = await build(t, { env: env(['dl_yt', 'dl_ig', 'tt_covers'], 'a') })
  const b = await build(t, { env: env(['ig_captions'], 'b') })
  const [userA, userB] = [await signup(a), await signup(b)]

  const run = async (app: FastifyInstance, apiKey: string, tool: string, url: string | string[]) => {
    const res = await startJob(app, apiKey, { url }, tool)
    t.equal(res.statusCode, 202, res.body)
    return waitForEnd(app, apiKey, res.json().job_id, 30_000)
  }
  const health = async (app: FastifyInstance, apiKey: string) => {
    const res = await app.inject({ url: '/api/media/status', headers: { 'x-api-key': apiKey } })
    t.equal(res.statusCode, 200, res.body)
    return res.json()
  }

  const fresh = await health(b, userB.apiKey)
  t.equal(fresh.observed, false)
  t.same(fresh.platforms.instagram, { name: 'Instagram', last_success_at: null, last_refusal_at: null, last_refusal_kind: null, last_refusal_message: null, consecutive_refusals: 0 })
  t.match(fresh.note, /No media tool has read a platform yet/)

  t.match(await run(a, userA.apiKey, 'dl_ig', 'https://www.instagram.com/reel/Clq_poiJd63/?igsh=LOGINWALL-7f3a'), { status: 'error', blocked: true, refunded: true })
  // A list stops at its first refusal (the second link would meet the same wall): one more run, not two.
  t.match(await run(a, userA.apiKey, 'dl_ig', ['https://www.instagram.com/p/LOGINWALL1/', 'https://www.instagram.com/p/LOGINWALL2/']), { status: 'error', blocked: true })
  const walled = await health(b, userB.apiKey)
  t.match(walled.platforms.instagram, { last_success_at: null, last_refusal_at: String, last_refusal_kind: 'login_required', consecutive_refusals: 2 }, 'B sees the two refusals A met')
  t.equal(walled.platforms.instagram.last_refusal_message, 'Requested content is not available, rate-limit reached or login required')
  t.match(walled.note, /Instagram refused the last 2 runs \(login required\): a fresh cookies file/)
  t.notMatch(JSON.stringify(walled), /Clq_poiJd63|LOGINWALL|7f3a|instagram\.com\/|--cookies|--netrc/, 'no link, id or token, no yt-dlp advice')

  t.match(await run(a, userA.apiKey, 'dl_yt', 'https://www.youtube.com/watch?v=BOTCHECK001'), { status: 'error', blocked: true })
  // An age gate is the video's (dl_yt's row error: not blocked), yet yt-dlp's run was refused a login: recorded.
  t.match(await run(a, userA.apiKey, 'dl_yt', 'https://www.youtube.com/watch?v=AGEGATE0001'), { status: 'error', blocked: false, refunded: true, error: /age-restricted/ })
  t.match(await run(a, userA.apiKey, 'dl_yt', 'https://www.youtube.com/watch?v=PRIVATE0001'), { status: 'error', blocked: false, refunded: false })
  t.match(await run(a, userA.apiKey, 'tt_covers', 'https://www.tiktok.com/@someone/video/IPBLOCK'), { status: 'error', blocked: true })
  const walls = (await health(b, userB.apiKey)).platforms
  t.match(walls.youtube, { last_refusal_kind: 'login_required', last_refusal_message: 'Sign in to confirm your age. This video may be inappropriate for some users', consecutive_refusals: 2 }, 'the age gate after the bot check; a private video is the link\'s, not counted')
  t.match(walls.tiktok, { last_refusal_kind: 'geo_block', last_refusal_message: 'Your IP address is blocked from accessing this post', consecutive_refusals: 1 })
  t.match(walls.facebook, { last_success_at: null, last_refusal_at: null, consecutive_refusals: 0 }, 'a platform no run touched')

  const read = await run(b, userB.apiKey, 'ig_captions', 'https://www.instagram.com/reel/Chunk8-jurw/')
  t.match(read, { status: 'done', records: 1 }, 'B reads a reel (the real info dict)')
  const after = (await health(a, userA.apiKey)).platforms.instagram
  t.match(after, { last_success_at: String, last_refusal_kind: 'login_required', consecutive_refusals: 0 }, 'A sees B\'s success end the streak; the last refusal stays shown')
  t.ok(Date.parse(after.last_success_at) >= Date.parse(after.last_refusal_at))
  t.match((await health(a, userA.apiKey)).note, /YouTube refused the last 2 runs \(login required\).*TikTok refused the last run \(geo block\)/)
})

t.test('video_frames records the links it resolves with yt-dlp in the same platform health', async t => {
  if (readCapture(t, 'ytdlp/instagram_reel.info.json') === null) return
  const dir = tempDir(t, 'media-health-frames-')
  const app = await build(t, { env: { TOOLS_CONFIG: toolsConfig(dir, 'frames', ['video_frames']), YTDLP_PATH: fakeYtdlp(dir, infoPath).path } })
  const user = await signup(app)
  const res = await startJob(app, user.apiKey, { url: 'https://www.youtube.com/watch?v=BOTCHECK002' }, 'video_frames')
  t.equal(res.statusCode, 202, res.body)
  t.match(await waitForEnd(app, user.apiKey, res.json().job_id, 30_000), { status: 'error', blocked: true, refunded: true })
  const status = await app.inject({ url: '/api/media/status', headers: { 'x-api-key': user.apiKey } })
  t.equal(status.statusCode, 200, 'video_frames alone serves the endpoint')
  t.match(status.json().platforms.youtube, { last_refusal_kind: 'bot_check', consecutive_refusals: 1 })
})
