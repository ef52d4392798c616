// yt jobs through the kernel against a local InnerTube stand-in serving the
// real captures: youtubei.js runs unmodified, its fetch through the guarded
// client; videos (/player + /next), channels (handle → resolve_url, videos
// tab, about panel, continuations), playlists, mixed lists charged once,
// bot walls and 429 blocked and refunded, and the same rows over the agent endpoint.
import t from 'tap'
import { existsSync } from 'node:fs'
import { jobHarness, PLUGINS, withFreshAccount, type ToolEntry } from '../products/_harness.ts'
import { waitForEnd } from '../../helpers/jobs.ts'
import {
  ABOUT, AGE_GATED_VIDEO, BOT_WALL_VIDEO, MRBEAST_VIDEO, PLAYLIST_ID, RATE_LIMITED_VIDEO, startInnertube, UNAVAILABLE_VIDEO, VSAUCE_ID, type StandIn,
} from '../../fixtures/youtube/innertube-standin.ts'

/** A job's longest wait: the first job of an app boots the extraction workers, slow on a loaded machine. */
const RUN_MS = 120_000

const ytTool = (base: string, settings: Record<string, unknown> = {}): ToolEntry => ({ key: 'yt', plugin: `${PLUGINS}/yt`, enabled: true, upstream: { youtube: base }, settings })

// One stand-in (it keeps no state between requests) and one app on the default settings serve
// the tests, each under an account of its own and seeing only the requests made since it began;
// the two tests on other settings build their own app.
const standIn = await startInnertube(t)
const shared = standIn ? await jobHarness(t, [ytTool(standIn.base)]) : null
/** The shared stand-in as one test sees it: its base, and the requests from now on. */
function sinceNow (yt: StandIn | null): StandIn | null {
  if (!yt) return null
  const from = yt.requests.length
  return { base: yt.base, get requests () { return yt.requests.slice(from) }, bodies: () => yt.bodies().slice(from) }
}

t.test('a video: /player and /next through the guarded client, one row with every field', async t => {
  const yt = sinceNow(standIn)
  if (!yt) return
  const h = await withFreshAccount(shared!)
  const { status, rows } = await h.run('yt', { url: `https://youtu.be/${MRBEAST_VIDEO}?t=10` }, RUN_MS)
  t.match(status, { status: 'done', records: 1, error: null })
  t.match(rows[0], {
    input_url: `https://youtu.be/${MRBEAST_VIDEO}?t=10`, type: 'video', source: 'video', video_id: MRBEAST_VIDEO,
    url: `https://www.youtube.com/watch?v=${MRBEAST_VIDEO}`, title: 'I Gave My 100,000,000th Subscriber An Island',
    channel_name: 'MrBeast', channel_id: 'UCX6OQ3DkcsbYNE6H8uQQuVA', view_count: 220226287, duration_seconds: 930,
    published_at: '2022-08-04', category: 'Entertainment', like_count: 5, comment_count: 7,
    description: /^🚀Launch a store on Shopify/, is_live: false, was_live: false, is_short: false, error: null,
    subscriber_count: null, position: null,
  })
  t.equal(rows[0]!.thumbnails[0].url, 'https://i.ytimg.com/vi/2isYuQZMbdU/maxresdefault.jpg', 'largest thumbnail first')
  const paths = yt.requests.map(r => r.url.pathname).sort()
  t.same(paths, ['/youtubei/v1/next', '/youtubei/v1/player'], 'no session bootstrap requests: only the two InnerTube calls')
  const player = yt.requests.find(r => r.url.pathname === '/youtubei/v1/player')!
  t.equal(player.url.searchParams.get('prettyPrint'), 'false', 'youtubei.js\'s own request')
  t.match(JSON.parse(player.body), { videoId: MRBEAST_VIDEO, context: { client: { clientName: 'WEB', hl: 'en', gl: 'US' } } })
})

t.test('a channel by @handle: channel row (header + about panel), then its videos across a continuation', async t => {
  const yt = sinceNow(standIn)
  if (!yt) return
  const h = await withFreshAccount(shared!)
  const { status, rows } = await h.run('yt', { url: 'https://www.youtube.com/@Vsauce', max_results: 40 }, RUN_MS)
  t.match(status, { status: 'done', records: 41 })
  t.match(rows[0], {
    type: 'channel', source: 'channel', channel_id: VSAUCE_ID, channel_name: 'Vsauce', title: 'Vsauce', handle: '@Vsauce',
    url: `https://www.youtube.com/channel/${VSAUCE_ID}`, subscriber_count: 24_600_000, video_count: 636,
    total_views: 2_734_155_112, joined_date: '2007-07-30', country: ABOUT.country, verified: true,
    links: [{ title: 'Instagram', url: 'https://instagram.com/electricpants' }, { title: 'Curiosity Box', url: 'https://www.curiositybox.com' }],
    video_id: null, error: null,
  })
  const videos = rows.slice(1)
  t.same(videos.map(v => v.position), Array.from({ length: 40 }, (_, i) => i + 1))
  t.match(videos[0], { type: 'video', source: 'channel', video_id: 'xHd4zsIbXJ0', title: 'All The Ghosts You Will Be', view_count: 6403051, duration_seconds: 1320, published_text: '6 months ago', channel_id: VSAUCE_ID, channel_name: 'Vsauce' })
  t.match(videos[0]!.published_at, /^\d{4}-\d{2}-\d{2}$/)
  t.match(videos[30], { video_id: 'BD-LB23rRBE', duration_seconds: 4054, view_count: 28, published_text: '13 days ago', channel_id: VSAUCE_ID }, 'page 2 read from the continuation')
  const browse = yt.bodies().filter((_, i) => yt.requests[i]!.url.pathname === '/youtubei/v1/browse')
  t.match(browse[0], { browseId: VSAUCE_ID, params: 'EgZ2aWRlb3PyBgQKAjoA' })
  t.equal(browse.filter(b => typeof b.continuation === 'string').length, 2, 'the about panel and one page of videos')
})

t.test('a playlist: its videos in order, capped at max_results', async t => {
  const yt = sinceNow(standIn)
  if (!yt) return
  const h = await withFreshAccount(shared!)
  const { status, rows } = await h.run('yt', { url: `https://www.youtube.com/playlist?list=${PLAYLIST_ID}`, max_results: 5 }, RUN_MS)
  t.match(status, { status: 'done', records: 5 })
  t.match(rows[0], { type: 'video', source: 'playlist', playlist_id: PLAYLIST_ID, playlist_title: /^Pop Music Playlist/, position: 1, video_id: 'euCqAq6BRa4', channel_name: 'DJ Snake', duration_seconds: 206, view_count: 1_800_000_000 })
  t.same(rows.map(r => r.position), [1, 2, 3, 4, 5])
})

t.test('a mixed list is one call; unknown and unavailable entries are row errors, a non-YouTube entry a warning', async t => {
  const yt = sinceNow(standIn)
  if (!yt) return
  const h = await jobHarness(t, [ytTool(yt.base, { channel_about: false })])
  const { status, rows } = await h.run('yt', { url: [MRBEAST_VIDEO, UNAVAILABLE_VIDEO, 'UCnotAchannel00000000000', PLAYLIST_ID, 'https://example.com/watch'], max_results: 2 }, RUN_MS)
  t.match(status, { status: 'done', warning: /not a YouTube video, channel or playlist: "https:\/\/example.com\/watch"/ })
  t.same(rows.map(r => `${r.type}:${r.source}:${r.input_url}`), [
    `video:video:${MRBEAST_VIDEO}`, `video:video:${UNAVAILABLE_VIDEO}`, 'channel:channel:UCnotAchannel00000000000',
    `video:playlist:${PLAYLIST_ID}`, `video:playlist:${PLAYLIST_ID}`,
  ])
  t.match(rows[1], { video_id: UNAVAILABLE_VIDEO, error: 'error: Video unavailable' })
  t.match(rows[2], { error: /not found on YouTube/ })
  t.equal((await h.usage()).calls_today, 1, 'one charge for the whole list')
})

t.test('bot walls end the job blocked and refunded: a LOGIN_REQUIRED "not a bot" answer, and HTTP 429', async t => {
  const yt = sinceNow(standIn)
  if (!yt) return
  const h = await withFreshAccount(shared!)
  const wall = await h.run('yt', { url: BOT_WALL_VIDEO }, RUN_MS)
  t.match(wall.status, { status: 'error', blocked: true, refunded: true, error: /not a bot/ })
  const limited = await h.run('yt', { url: `https://www.youtube.com/watch?v=${RATE_LIMITED_VIDEO}` }, RUN_MS)
  t.match(limited.status, { status: 'error', blocked: true, refunded: true, error: /429/ })
  t.equal((await h.usage()).calls_today, 0, 'both refunded')
})

t.test('an age gate is that video\'s row error; a bot wall partway through a list keeps the rows read and names the entries not read', async t => {
  const yt = sinceNow(standIn)
  if (!yt) return
  const h = await withFreshAccount(shared!)
  // One chunk of three videos (concurrency 3), then a playlist that is never asked for.
  const { status, rows } = await h.run('yt', { url: [MRBEAST_VIDEO, AGE_GATED_VIDEO, BOT_WALL_VIDEO, PLAYLIST_ID], max_results: 2 }, RUN_MS)
  t.match(status, { status: 'done', blocked: false, records: 2 })
  t.same(rows.map(r => [r.video_id, r.error]), [
    [MRBEAST_VIDEO, null],
    [AGE_GATED_VIDEO, 'age-restricted: YouTube asks to sign in to confirm the viewer\'s age ("This video may be inappropriate for some users.")'],
  ])
  t.equal(status.warning, `The source refused the rest of the list (YouTube asked to sign in ("Sign in to confirm you’re not a bot")); 2 of the entries were not read: "${BOT_WALL_VIDEO}", "${PLAYLIST_ID}". The rows before it are kept.`)
  t.notOk(yt.requests.some(r => r.url.pathname === '/youtubei/v1/browse'), 'the playlist after the refusal was not asked for')
  t.equal((await h.usage()).calls_today, 1, 'rows were read: the call is charged')
  // Only age-gated: a row error like any unplayable video, so every entry failed (refunded), not blocked.
  const alone = await h.run('yt', { url: AGE_GATED_VIDEO }, RUN_MS)
  t.match(alone.status, { status: 'error', blocked: false, refunded: true, error: /age-restricted/ })
})

t.test('the network guard applies: a private upstream is refused unless allowed', async t => {
  const yt = sinceNow(standIn)
  if (!yt) return
  const h = await jobHarness(t, [ytTool(yt.base)], { ALLOW_PRIVATE_TARGETS: '0' })
  const { status } = await h.run('yt', { url: MRBEAST_VIDEO }, RUN_MS)
  t.match(status, { status: 'error', error: /Refused to connect/ })
  t.equal(yt.requests.length, 0, 'youtubei.js never reached the stand-in')
})

t.test('the same job through tool-run and the agent endpoint gives the same rows', async t => {
  const yt = sinceNow(standIn)
  if (!yt) return
  const h = await withFreshAccount(shared!)
  const params = { url: [MRBEAST_VIDEO, `https://www.youtube.com/playlist?list=${PLAYLIST_ID}`], max_results: 3 }
  const fromToolRun = (await h.run('yt', params)).rows
  t.equal(fromToolRun.length, 4)
  if (!existsSync('core/agent/routes.ts')) return
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ])
  await h.app.listen({ port: 0, host: '127.0.0.1' })
  const address = h.app.server.address() as { port: number }
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${address.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${h.user.apiKey}` } } })
  const client = new Client({ name: 'yt-test', version: '0.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  const called = await client.callTool({ name: 'videoA_extract', arguments: { url: params.url, limit: 3, wait_seconds: 20 } }) as { structuredContent?: any, isError?: boolean }
  t.notOk(called.isError)
  const content = called.structuredContent
  if (content.status === 'running') {
    await waitForEnd(h.app, h.user.apiKey, content.job_id, 20_000)
    content.results = (await h.app.inject({ url: `/api/tool-run/${content.job_id}/results`, headers: { 'x-api-key': h.user.apiKey } })).json().results
  }
  t.same(content.results, fromToolRun)
})
