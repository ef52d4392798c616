// The dl_* tools' link list through the whole kernel, yt-dlp a stand-in
// (fake-ytdlp.ts) answering the real info dicts of the captures or real
// refusal texts. A YouTube age gate is that link's row error (read by the
// YouTube library's one playability reader, as yt and yt_tx read the same
// answer); a refusal of this server (bot check, login wall, rate limit) stops
// the list: the rows already read are kept, the job's warning names the links
// not read and why, and the platform is not asked for them.
import t from 'tap'
import { join } from 'node:path'
import { build, signup, tempDir } from '../../helpers/build.ts'
import { startJob, waitForEnd } from '../../helpers/jobs.ts'
import { CAPTURES_DIR, readCapture } from '../../extract/captures.ts'
import { calledLinks, fakeYtdlp, toolsConfig } from './fake-ytdlp.ts'

t.test('a dl_* link list: age gates are row errors, a refusal stops the list and keeps the rows read', async t => {
  if (readCapture(t, 'ytdlp/youtube_video.info.json') === null || readCapture(t, 'ytdlp/instagram_reel.info.json') === null) return
  const dir = tempDir(t, 'media-list-')
  const ytdlp = fakeYtdlp(dir, join(CAPTURES_DIR, 'ytdlp/youtube_video.info.json'), { 'instagram.com': join(CAPTURES_DIR, 'ytdlp/instagram_reel.info.json') })
  const app = await build(t, { env: { TOOLS_CONFIG: toolsConfig(dir, 'dl', ['dl_yt', 'dl_ig']), YTDLP_PATH: ytdlp.path } })
  const user = await signup(app)
  const run = async (tool: string, url: string | string[]) => {
    const before = calledLinks(ytdlp.calls).length
    const res = await startJob(app, user.apiKey, { url }, tool)
    t.equal(res.statusCode, 202, res.body)
    const id = res.json().job_id
    const status = await waitForEnd(app, user.apiKey, id, 30_000)
    const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results ?? []
    return { status, rows, asked: calledLinks(ytdlp.calls).slice(before) }
  }
  const OK1 = 'https://www.youtube.com/watch?v=aaaaaaaaaa1'
  const OK2 = 'https://www.youtube.com/watch?v=aaaaaaaaaa2'
  const AGED = 'https://www.youtube.com/watch?v=AGEGATE0001'
  const WALL = 'https://www.youtube.com/watch?v=BOTCHECK001'

  await t.test('an age gate in a list is that link\'s row error; the list goes on', async t => {
    const { status, rows, asked } = await run('dl_yt', [OK1, AGED, OK2])
    t.match(status, { status: 'done', blocked: false, records: 3, warning: null })
    t.same(rows.map((r: { input_url: string }) => r.input_url), [OK1, AGED, OK2], 'rows keep the list\'s order')
    t.match(rows[0], { id: 'ABC123', platform: 'Youtube', error: null })
    t.match(rows[1], {
      id: 'AGEGATE0001', platform: 'Youtube', formats: [], best: null, file: null,
      error: 'age-restricted: YouTube asks to sign in to confirm the viewer\'s age ("Sign in to confirm your age. This video may be inappropriate for some users")',
    })
    t.notMatch(rows[1].error, /--cookies|yt-dlp -U|\[youtube\]/, 'no advice for yt-dlp\'s users, no extractor prefix')
    t.same(asked, [OK1, AGED, OK2], 'each link asked once')
  })

  await t.test('only age gates: the job failed, refunded, not blocked', async t => {
    const { status } = await run('dl_yt', AGED)
    t.match(status, { status: 'error', blocked: false, refunded: true, error: /age-restricted/ })
  })

  await t.test('a bot check partway through a list stops it: the rows read are kept, the links not read named, not asked', async t => {
    const { status, rows, asked } = await run('dl_yt', [OK1, AGED, WALL, OK2])
    t.match(status, { status: 'done', blocked: false, records: 2 })
    t.same(rows.map((r: { input_url: string }) => r.input_url), [OK1, AGED])
    t.equal(status.warning, `The source refused the rest of the list (${'[youtube] dQw4w9WgXcQ: Sign in to confirm you’re not a bot'}); 2 of the links were not read: "${WALL}", "${OK2}". The rows before it are kept.`)
    t.same(asked, [OK1, AGED, WALL], 'the link after the refusal was not asked for')
  })

  await t.test('a refusal before any media was read is the job\'s: blocked, refunded (an age gate read first counts as nothing read)', async t => {
    const walled = await run('dl_yt', [AGED, WALL, OK1])
    t.match(walled.status, { status: 'error', blocked: true, refunded: true, error: /not a bot/ })
    t.same(walled.asked, [AGED, WALL])
    const ig = await run('dl_ig', ['https://www.instagram.com/p/LOGINWALL1/', 'https://www.instagram.com/reel/Chunk8-jurw/'])
    t.match(ig.status, { status: 'error', blocked: true, refunded: true, error: /login required/ })
    t.equal(ig.asked.length, 1, 'Instagram was asked once')
  })

  await t.test('dl_ig: a login wall after a reel was read keeps the reel and names the rest', async t => {
    const REEL = 'https://www.instagram.com/reel/Chunk8-jurw/'
    const { status, rows, asked } = await run('dl_ig', [REEL, 'https://www.instagram.com/p/LOGINWALL1/', 'https://www.instagram.com/p/Other1/'])
    t.match(status, { status: 'done', blocked: false, records: 1, warning: /rate-limit reached or login required.*2 of the links were not read/ })
    t.match(rows, [{ input_url: REEL, id: 'Chunk8-jurw', error: null }])
    t.equal(asked.length, 2)
  })
})
