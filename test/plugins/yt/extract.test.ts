// yt's pure InnerTube parsers on the real captures (../shared/fixtures/captures/youtube/):
// /player + /next → a video, a channel's videos tab (videoRenderer and
// lockupViewModel generations), a playlist page, counts and dates as YouTube writes them.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CAPTURES_DIR, capturesPresent, readCapture, skipWithoutCaptures } from '../../extract/captures.ts'
import { playabilityOf, playabilityOfMessage } from '../../../plugins/lib/youtube/playability.ts'
import { captionsFromPlayer } from '../../../plugins/yt_tx/tracks.ts'
import { AGE_GATE_PLAYER } from '../../fixtures/youtube/innertube-standin.ts'
import {
  aboutFromBrowse, channelIdFromResolve, englishDate, parseClock, parseCount, readChannelPage, readPlaylistPage, readVideo, relativeDate, videoFromResponses,
} from '../../../plugins/yt/extract.ts'
import { parseTarget } from '../../../plugins/yt/targets.ts'

const NOW = Date.parse('2026-01-26T18:00:00Z')

t.test('counts, clocks and dates as YouTube writes them', async t => {
  t.equal(parseCount('6,403,051 views'), 6403051)
  t.equal(parseCount('24.6m subscribers'), 24_600_000)
  t.equal(parseCount('8.84K subscribers'), 8840)
  t.equal(parseCount('1.8bn views'), 1_800_000_000)
  t.equal(parseCount('24.6 million subscribers'), 24_600_000)
  t.equal(parseCount('No views'), 0)
  t.equal(parseCount('views'), null)
  t.equal(parseClock('1:07:34'), 4054)
  t.equal(parseClock('22:00'), 1320)
  t.equal(parseClock('LIVE'), null)
  t.equal(relativeDate('13 days ago', NOW), '2026-01-13')
  t.equal(relativeDate('Streamed 1 week ago', NOW), '2026-01-19')
  t.equal(relativeDate('Premieres tomorrow', NOW), null)
  t.equal(englishDate('Joined Jul 19, 2007'), '2007-07-19')
  t.equal(englishDate('28 Aug 2016'), '2016-08-28')
})

t.test('inputs: videos, channels by id, handle, /c/ and /user/, playlists; other sites refused', async t => {
  t.same(parseTarget('https://youtu.be/dQw4w9WgXcQ'), { kind: 'video', id: 'dQw4w9WgXcQ' })
  t.same(parseTarget('https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLMC9KNkIncKtPzgY-5rmhvj7fax8fdxoj'), { kind: 'video', id: 'dQw4w9WgXcQ' })
  t.same(parseTarget('UC6nSFpj9HTCZ5t-N3Rm3-HA'), { kind: 'channel', id: 'UC6nSFpj9HTCZ5t-N3Rm3-HA' })
  t.same(parseTarget('https://m.youtube.com/channel/UC6nSFpj9HTCZ5t-N3Rm3-HA/videos'), { kind: 'channel', id: 'UC6nSFpj9HTCZ5t-N3Rm3-HA' })
  t.same(parseTarget('@Vsauce'), { kind: 'channel_url', url: 'https://www.youtube.com/@Vsauce' })
  t.same(parseTarget('youtube.com/@Vsauce/videos'), { kind: 'channel_url', url: 'https://www.youtube.com/@Vsauce' })
  t.same(parseTarget('https://www.youtube.com/user/Vsauce'), { kind: 'channel_url', url: 'https://www.youtube.com/user/Vsauce' })
  t.same(parseTarget('https://www.youtube.com/playlist?list=PLMC9KNkIncKtPzgY-5rmhvj7fax8fdxoj'), { kind: 'playlist', id: 'PLMC9KNkIncKtPzgY-5rmhvj7fax8fdxoj' })
  t.same(parseTarget('PLMC9KNkIncKtPzgY-5rmhvj7fax8fdxoj'), { kind: 'playlist', id: 'PLMC9KNkIncKtPzgY-5rmhvj7fax8fdxoj' })
  t.equal(parseTarget('https://youtube.com.evil.test/@Vsauce'), null)
  t.equal(parseTarget('https://vimeo.com/123'), null)
})

t.test('a video from its /player and /next answers', async t => {
  const player = readCapture(t, 'youtube/innertube_v1_player_mrbeast_2024.json')
  const next = readCapture(t, 'youtube/innertube_v1_next_related_2026.json')
  const plain = readCapture(t, 'youtube/innertube_v1_next_no-description_2024.json')
  if (!player || !next || !plain) return
  const { video, playability } = readVideo(player, next, '2isYuQZMbdU')
  t.same(playability, { status: 'OK', reason: null, age_gate: false, bot_wall: false, error: null })
  t.match(video, {
    video_id: '2isYuQZMbdU', title: 'I Gave My 100,000,000th Subscriber An Island', channel_name: 'MrBeast', channel_id: 'UCX6OQ3DkcsbYNE6H8uQQuVA',
    view_count: 220226287, duration_seconds: 930, published_at: '2022-08-04', category: 'Entertainment', is_live: false, is_short: false,
  })
  t.equal(video.like_count, 5, 'exact, from the like button\'s label')
  t.equal(video.comment_count, 7, 'the comments panel\'s count')
  // /next alone: what the watch page shows.
  const fromNext = videoFromResponses(null, plain, 'iuevw6218F0')
  t.match(fromNext, { title: 'Chris Rea - Auberge', channel_name: 'ChrisReaVideos', channel_id: 'UC_5q6nWPbD30-y6oiWF_oNA', view_count: 14324584, like_count: 35870, published_at: '2012-05-21' })
  t.same(readVideo(JSON.stringify({ playabilityStatus: { status: 'LOGIN_REQUIRED', reason: 'Sign in to confirm you’re not a bot' } }), null, 'x').playability.bot_wall, true)
  t.same(readVideo(JSON.stringify({ playabilityStatus: { status: 'LOGIN_REQUIRED', reason: 'Sign in to confirm your age' } }), null, 'x').playability.bot_wall, false, 'an age check is not a bot wall')
})

t.test('one playability reader for every YouTube tool: every real player answer in the captures, and the refusals', async t => {
  if (!capturesPresent()) return skipWithoutCaptures(t, 'youtube/*player*')
  // Every /player answer the captures hold: the InnerTube JSON files with a playabilityStatus, and the watch page's embedded one.
  const answers: Array<[string, string]> = []
  for (const name of readdirSync(join(CAPTURES_DIR, 'youtube')).filter(n => n.endsWith('.json')).sort()) {
    const body = readFileSync(join(CAPTURES_DIR, 'youtube', name), 'utf8')
    if (JSON.parse(body).playabilityStatus !== undefined) answers.push([name, body])
  }
  const watch = readCapture(t, 'youtube/watch_page_youtube.html')
  const embedded = watch && /ytInitialPlayerResponse\s*=\s*(\{.+?\});(?:var |<\/script>)/s.exec(watch)?.[1]
  if (embedded) answers.push(['watch_page_youtube.html (ytInitialPlayerResponse)', embedded])
  const names = answers.map(([name]) => name)
  for (const name of [
    'innertube_player_caption_tracks_2025.json', 'innertube_player_response.json', 'innertube_player_response_ww1_nl_en.json',
    'innertube_v1_player_mrbeast_2024.json', 'watch_page_youtube.html (ytInitialPlayerResponse)',
  ]) t.ok(names.includes(name), `${name} is checked`)
  for (const [name, body] of answers) {
    const read = playabilityOf(JSON.parse(body))
    // A capture named for an age-restricted video (the real 2025 /player answer asked for in the
    // captures: LOGIN_REQUIRED, "This video may be inappropriate for some users.",
    // desktopLegacyAgeGateReason 1) is read as the age gate; every other one plays.
    if (/age[_-]?restricted/.test(name)) t.match(read, { status: 'LOGIN_REQUIRED', age_gate: true, bot_wall: false, error: /^age-restricted: / }, `${name}: an age gate`)
    else t.same(read, { status: 'OK', reason: null, age_gate: false, bot_wall: false, error: null }, `${name}: plays`)
    // yt and yt_tx read it through the same reader.
    t.same(readVideo(body, null, 'x').playability, read, `${name}: yt reads the same`)
    t.same(captionsFromPlayer(body).playability, read, `${name}: yt_tx reads the same`)
  }

  // No capture holds a refusal yet: these are the fields YouTube answers them with (AGE_GATE_PLAYER's are a real 2025 answer's).
  const age = playabilityOf(AGE_GATE_PLAYER)
  t.same(age, {
    status: 'LOGIN_REQUIRED', reason: 'This video may be inappropriate for some users.', age_gate: true, bot_wall: false,
    error: 'age-restricted: YouTube asks to sign in to confirm the viewer\'s age ("This video may be inappropriate for some users.")',
  }, 'LOGIN_REQUIRED with desktopLegacyAgeGateReason is an age gate, not a bot wall')
  t.same(captionsFromPlayer(JSON.stringify(AGE_GATE_PLAYER)).playability, age, 'yt_tx reads the age gate as yt does')
  t.same(readVideo(JSON.stringify(AGE_GATE_PLAYER), null, 'x').playability, age)
  const gates = [
    { status: 'LOGIN_REQUIRED', reason: 'This video may be inappropriate for some users.' },
    { status: 'LOGIN_REQUIRED', errorScreen: { playerErrorMessageRenderer: { reason: { simpleText: 'Sign in to confirm your age' }, subreason: { runs: [{ text: 'This video may be inappropriate for some users.' }] } } } },
    { status: 'AGE_CHECK_REQUIRED', reason: 'Sign in to confirm your age' },
    { status: 'UNPLAYABLE', errorScreen: { playerAgeGateRenderer: {} } },
    // The real 2025 answer's shape: a sign-in dialog beside the reason, and the legacy age-gate field.
    { status: 'LOGIN_REQUIRED', reason: 'This video may be inappropriate for some users.', errorScreen: { confirmDialogRenderer: { title: { runs: [{ text: 'You must sign in to view this video' }] }, dialogMessages: [{ runs: [{ text: 'This video may be inappropriate for some users.' }] }] } }, desktopLegacyAgeGateReason: 1, reasonTitle: 'You must sign in to view this video' },
  ]
  for (const p of gates) t.match(playabilityOf({ playabilityStatus: p }), { age_gate: true, bot_wall: false, error: /^age-restricted/ }, JSON.stringify(p))
  t.match(playabilityOf({ playabilityStatus: { status: 'LOGIN_REQUIRED', reason: 'Sign in to confirm you’re not a bot', errorScreen: {} } }), { age_gate: false, bot_wall: true })
  t.match(playabilityOf({ playabilityStatus: { status: 'LOGIN_REQUIRED', reason: 'Sign in to confirm you’re not a bot', desktopLegacyAgeGateReason: 1 } }), { age_gate: false, bot_wall: true }, '"not a bot" is a bot wall whatever else the answer says')
  t.match(playabilityOf({ playabilityStatus: { status: 'LOGIN_REQUIRED', reason: 'Sign in' } }), { bot_wall: true }, 'a sign-in wall that names no video reason is about who asks')
  t.match(playabilityOf({ playabilityStatus: { status: 'LOGIN_REQUIRED', reason: 'This video is private' } }), { age_gate: false, bot_wall: false, error: 'login required: This video is private' })
  t.match(playabilityOf({ playabilityStatus: { status: 'ERROR', reason: 'Video unavailable' } }), { age_gate: false, bot_wall: false, error: 'error: Video unavailable' })
  t.match(playabilityOf(null), { status: 'UNKNOWN', bot_wall: false, error: 'unknown: no reason given' })

  // dl_yt meets the same answers as yt-dlp's verdict (its reason and subreason, as yt-dlp prints them): the same rule.
  t.same(playabilityOfMessage('Sign in to confirm your age. This video may be inappropriate for some users'), {
    status: 'LOGIN_REQUIRED', reason: 'Sign in to confirm your age. This video may be inappropriate for some users', age_gate: true, bot_wall: false,
    error: 'age-restricted: YouTube asks to sign in to confirm the viewer\'s age ("Sign in to confirm your age. This video may be inappropriate for some users")',
  })
  t.match(playabilityOfMessage('This video may be inappropriate for some users.'), { age_gate: true, bot_wall: false }, 'the player answer\'s reason alone')
  t.match(playabilityOfMessage('Sign in to confirm you’re not a bot'), { status: 'LOGIN_REQUIRED', age_gate: false, bot_wall: true })
  t.match(playabilityOfMessage('Sign in to confirm you\'re not a bot. This helps protect our community'), { age_gate: false, bot_wall: true })
  t.match(playabilityOfMessage('Private video. Sign in if you\'ve been granted access to this video'), { age_gate: false, bot_wall: false })
  t.match(playabilityOfMessage('Video unavailable. This video has been removed by the uploader'), { status: 'ERROR', age_gate: false, bot_wall: false }, 'no page of "age" in "page" or "message"')
})

t.test('chapters from the player bar markers', async t => {
  const next = { playerOverlays: { playerOverlayRenderer: { decoratedPlayerBarRenderer: { decoratedPlayerBarRenderer: { playerBar: { multiMarkersPlayerBarRenderer: { markersMap: [{ key: 'DESCRIPTION_CHAPTERS', value: { chapters: [
    { chapterRenderer: { title: { simpleText: 'Intro' }, timeRangeStartMillis: 0 } },
    { chapterRenderer: { title: { simpleText: 'The island' }, timeRangeStartMillis: 95_000 } },
  ] } }] } } } } } } }
  t.same(videoFromResponses(null, JSON.stringify(next), 'abcdefghijk').chapters, [{ title: 'Intro', start_seconds: 0 }, { title: 'The island', start_seconds: 95 }])
})

t.test('a channel\'s videos tab: header figures, the about token, videos and the continuation (both renderer generations)', async t => {
  const vsauce = readCapture(t, 'youtube/innertube_v1_browse_channel_vsauce_videos_tab_2026.json')
  const cc = readCapture(t, 'youtube/innertube_v1_browse_channel_videos_tab_2026.json')
  if (!vsauce || !cc) return
  const a = readChannelPage(vsauce, NOW)
  t.match(a.channel, { channel_id: 'UC6nSFpj9HTCZ5t-N3Rm3-HA', channel_name: 'Vsauce', handle: '@Vsauce', subscriber_count: 24_600_000, video_count: 636, verified: true, description: 'Our World is Amazing.' })
  t.type(a.channel.about_token, 'string')
  t.equal(a.page.videos.length, 30)
  t.type(a.page.continuation, 'string')
  t.match(a.page.videos[0], { video_id: 'xHd4zsIbXJ0', title: 'All The Ghosts You Will Be', view_count: 6403051, duration_seconds: 1320, published_text: '6 months ago' })
  const b = readChannelPage(cc, NOW)
  t.match(b.channel, { channel_name: 'Creative Commons', subscriber_count: 8840, video_count: 258 })
  t.equal(b.page.videos.length, 30, 'lockupViewModel items')
  t.match(b.page.videos[0], { video_id: 'BD-LB23rRBE', view_count: 28, duration_seconds: 4054, published_at: '2026-01-13' })
})

t.test('a playlist page, the about panel and a resolved handle', async t => {
  const playlist = readCapture(t, 'youtube/innertube_v1_browse_playlist_page1_2026.json')
  if (!playlist) return
  const p = readPlaylistPage(playlist, NOW)
  t.match(p.playlist, { title: /^Pop Music Playlist/ })
  t.equal(p.page.videos.length, 100)
  t.type(p.page.continuation, 'string')
  t.match(p.page.videos[0], { video_id: 'euCqAq6BRa4', channel_name: 'DJ Snake', channel_id: 'UC_x8HoD18XJkILQBreVENUQ', duration_seconds: 206, view_count: 1_800_000_000 })
  const about = aboutFromBrowse(JSON.stringify({ onResponseReceivedEndpoints: [{ appendContinuationItemsAction: { continuationItems: [{ aboutChannelRenderer: { metadata: { aboutChannelViewModel: {
    country: 'United States', viewCountText: '2,734,155,112 views', joinedDateText: { content: 'Joined Jul 30, 2007' }, videoCountText: '636 videos',
    links: [{ channelExternalLinkViewModel: { title: { content: 'Shop' }, link: { content: 'shop.example.com' } } }],
  } } } }] } }] }))
  t.same(about, { links: [{ title: 'Shop', url: 'https://shop.example.com' }], total_views: 2_734_155_112, video_count: 636, country: 'United States', joined_date: '2007-07-30' })
  t.equal(channelIdFromResolve(JSON.stringify({ endpoint: { browseEndpoint: { browseId: 'UC6nSFpj9HTCZ5t-N3Rm3-HA' } } })), 'UC6nSFpj9HTCZ5t-N3Rm3-HA')
  t.equal(channelIdFromResolve(JSON.stringify({ endpoint: { watchEndpoint: { videoId: 'x' } } })), null)
})
