// yt_tx jobs through the kernel against the InnerTube stand-in: caption
// tracks from the real player capture, the chosen track fetched as json3
// (the real timedtext capture) through the guarded client, language choice,
// automatic fallback, translation (tlang), the .txt/.srt/.vtt artifacts, and
// a video without captions as a row saying so.
import t from 'tap'
import { jobHarness, PLUGINS, withFreshAccount, type ToolEntry } from '../products/_harness.ts'
import { AGE_GATED_VIDEO, BOT_WALL_VIDEO, NO_CAPTIONS_VIDEO, RATE_LIMITED_VIDEO, SURFACE_VIDEO, startInnertube } from '../../fixtures/youtube/innertube-standin.ts'
import { pickTrack, type CaptionTrack } from '../../../plugins/yt_tx/tracks.ts'

const RUN_MS = 120_000
const ytTxTool = (base: string): ToolEntry => ({ key: 'yt_tx', plugin: `${PLUGINS}/yt_tx`, enabled: true, upstream: { youtube: base } })

t.test('track choice: manual before automatic, regional variants, translation', async t => {
  const track = (language: string, kind: 'manual' | 'auto', translatable = true): CaptionTrack => ({ language, name: language, kind, base_url: `https://www.youtube.com/api/timedtext?lang=${language}&kind=${kind}`, translatable })
  const tracks = [track('en', 'auto'), track('en', 'manual'), track('de-DE', 'manual'), track('ja', 'auto')]
  const none = { auto: true, translateTo: null, translationLanguages: ['fr', 'de'] }
  t.match(pickTrack(tracks, 'en', none), { track: { language: 'en', kind: 'manual' }, translate: null })
  t.match(pickTrack(tracks, 'de', none), { track: { language: 'de-DE' } })
  t.match(pickTrack(tracks, 'ja', none), { track: { language: 'ja', kind: 'auto' } })
  t.equal(pickTrack(tracks, 'ja', { ...none, auto: false }), null, 'no manual Japanese track and automatic ones refused')
  t.match(pickTrack(tracks, 'en', { ...none, translateTo: 'fr' }), { track: { language: 'en', kind: 'manual' }, translate: 'fr' })
  t.match(pickTrack(tracks, 'en', { ...none, translateTo: 'de' }), { track: { language: 'de-DE' }, translate: null }, 'a real track before a translation')
  t.equal(pickTrack(tracks, 'en', { ...none, translateTo: 'xx' }), null)
})

t.test('a transcript: the English track as json3, timed segments, text and three files; a video without captions', async t => {
  const yt = await startInnertube(t)
  if (!yt) return
  const h = await jobHarness(t, [ytTxTool(yt.base)])
  const { status, rows } = await h.run('yt_tx', { url: [`https://www.youtube.com/watch?v=${SURFACE_VIDEO}`, NO_CAPTIONS_VIDEO] }, RUN_MS)
  t.match(status, { status: 'done', records: 2 })
  const [surface, none] = rows
  t.match(surface, { video_id: SURFACE_VIDEO, title: 'Surface Go Review - It’s Awesome', has_captions: true, language: 'en', kind: 'manual', translated_from: null, error: null })
  t.ok(surface!.available_languages.length >= 9)
  t.ok(surface!.segments.length > 100)
  t.match(surface!.segments[0], { start_seconds: Number, end_seconds: Number, text: String })
  t.type(surface!.text, 'string')
  t.same(surface!.files.map((f: any) => f.name), [`${SURFACE_VIDEO}.en.txt`, `${SURFACE_VIDEO}.en.srt`, `${SURFACE_VIDEO}.en.vtt`])
  const srt = await h.app.inject({ url: surface!.files[1].url, headers: { 'x-api-key': h.user.apiKey } })
  t.equal(srt.statusCode, 200)
  t.match(srt.body, /^1\r?\n00:00:\d\d,\d{3} --> /)
  const timedtext = yt.requests.find(r => r.url.pathname === '/api/timedtext')!
  t.equal(timedtext.url.searchParams.get('fmt'), 'json3')
  t.equal(timedtext.url.searchParams.get('tlang'), null)
  t.match(none, { video_id: NO_CAPTIONS_VIDEO, has_captions: false, available_languages: [], segments: [], files: [], error: null })
})

t.test('a translation asks timedtext with tlang', async t => {
  const yt = await startInnertube(t)
  if (!yt) return
  const h = await jobHarness(t, [ytTxTool(yt.base)])
  const { status, rows } = await h.run('yt_tx', { url: SURFACE_VIDEO, translate_to: 'fr' }, RUN_MS)
  t.match(status, { status: 'done', records: 1 })
  t.match(rows[0], { has_captions: true, language: 'fr', translated_from: 'en', kind: 'manual' })
  t.equal(yt.requests.find(r => r.url.pathname === '/api/timedtext')!.url.searchParams.get('tlang'), 'fr')
})

t.test('an age gate is that video\'s row error; a refusal partway through a list keeps the transcripts already read', async t => {
  const yt = await startInnertube(t)
  if (!yt) return
  const shared = await jobHarness(t, [ytTxTool(yt.base)])

  // A three-video list with an age-restricted video in the middle: three rows, the job done and charged.
  const h = await withFreshAccount(shared)
  const aged = await h.run('yt_tx', { url: [SURFACE_VIDEO, AGE_GATED_VIDEO, NO_CAPTIONS_VIDEO] }, RUN_MS)
  t.match(aged.status, { status: 'done', blocked: false, records: 3 })
  t.same(aged.rows.map(r => [r.video_id, r.has_captions, r.error]), [
    [SURFACE_VIDEO, true, null],
    [AGE_GATED_VIDEO, false, 'age-restricted: YouTube asks to sign in to confirm the viewer\'s age ("This video may be inappropriate for some users.")'],
    [NO_CAPTIONS_VIDEO, false, null],
  ])
  t.ok(aged.rows[0]!.segments.length > 100, 'the first video\'s transcript is kept')
  t.equal((await h.usage()).calls_today, 1)

  // A bot wall on the second video: the first transcript is kept, the job done, the warning names the two not read.
  const playerAsked = (id: string) => yt.requests.filter(r => r.url.pathname === '/youtubei/v1/player' && JSON.parse(r.body).videoId === id).length
  const noCaptionsAsked = playerAsked(NO_CAPTIONS_VIDEO)
  const walled = await h.run('yt_tx', { url: [SURFACE_VIDEO, BOT_WALL_VIDEO, NO_CAPTIONS_VIDEO] }, RUN_MS)
  t.match(walled.status, { status: 'done', blocked: false, records: 1 })
  t.same(walled.rows.map(r => [r.video_id, r.has_captions, r.error]), [[SURFACE_VIDEO, true, null]])
  t.equal(walled.status.warning, `The source refused the rest of the list (YouTube asked to sign in ("Sign in to confirm you’re not a bot")); 2 of the videos were not read: "${BOT_WALL_VIDEO}", "${NO_CAPTIONS_VIDEO}". The rows before it are kept.`)
  t.equal(playerAsked(NO_CAPTIONS_VIDEO), noCaptionsAsked, 'nothing asked after the refusal')

  // HTTP 429 on the first video of a list: nothing was read, so the job is blocked and refunded.
  const before = (await h.usage()).calls_today
  const limited = await h.run('yt_tx', { url: [RATE_LIMITED_VIDEO, SURFACE_VIDEO] }, RUN_MS)
  t.match(limited.status, { status: 'error', blocked: true, refunded: true, error: /429/ })
  // A single video behind a bot wall: blocked and refunded.
  const single = await h.run('yt_tx', { url: BOT_WALL_VIDEO }, RUN_MS)
  t.match(single.status, { status: 'error', blocked: true, refunded: true, error: /not a bot/ })
  // A bot wall after only an age gate's error row: no transcript was read, so it is the job's too.
  const gatedThenWalled = await h.run('yt_tx', { url: [AGE_GATED_VIDEO, BOT_WALL_VIDEO, SURFACE_VIDEO] }, RUN_MS)
  t.match(gatedThenWalled.status, { status: 'error', blocked: true, refunded: true, error: /not a bot/ })
  t.equal((await h.usage()).calls_today, before, 'all three refunded')
})
