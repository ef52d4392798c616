// yt-dlp info dicts → media rows, on real yt-dlp outputs (captures/ytdlp): a
// YouTube video with 45 formats, two Instagram reels, a flat playlist and a
// channel tab. TikTok's watermark marks are checked on format shapes written as
// yt-dlp's TikTok extractor writes them (no TikTok capture exists).
import t from 'tap'
import { Compile } from 'typebox/compile'
import { readCapture } from '../../extract/captures.ts'
import {
  bestCombinedFormat, bestVideoFormat, coverFromInfo, coversFromJson, mediaItemsFromJson, formatsFromInfo, isWatermarked, MediaItem, CoverItem, mediaItemFromInfo, mediaItemsFromInfo,
  pickSubtitleTrack, playlistFromInfo, thumbnailsFromInfo, urlExpiry,
} from '../../../plugins/lib/media/index.ts'

const itemCheck = Compile(MediaItem)
const coverCheck = Compile(CoverItem)
const json = (t: Parameters<typeof readCapture>[0], path: string) => { const text = readCapture(t, path); return text === null ? null : JSON.parse(text) }

t.test('a YouTube video: metadata, 45 formats, the best combined format and its expiry', async t => {
  const info = json(t, 'ytdlp/youtube_video.info.json')
  if (!info) return
  const [item, ...more] = mediaItemsFromInfo(info, { inputUrl: 'https://youtu.be/ABC123' })
  t.equal(more.length, 0, 'one item')
  t.ok(itemCheck.Check(item), 'the row matches MediaItem')
  t.match(item, {
    input_url: 'https://youtu.be/ABC123', id: 'ABC123', url: 'https://www.youtube.com/watch?v=ABC123', platform: 'Youtube',
    title: 'Pinchflat Example Video', uploader: 'PinchflatTestChannel', uploader_id: '@PinchflatTestChannel', channel_id: 'UCEABC123',
    duration: 582, upload_date: '2021-07-20', view_count: 9973, like_count: 333, comment_count: 44, live_status: 'not_live', flat: false,
    tags: ['test', 'development'],
  })
  t.equal(item!.formats.length, 45)
  t.equal(item!.best?.format_id, '22', 'the 720p mp4 with audio: the tallest combined format')
  t.match(item!.best, { ext: 'mp4', resolution: '1280x720', has_video: true, has_audio: true, protocol: 'https', filesize_approx: 144852182, expires_at: '2024-02-07T02:29:25.000Z', watermarked: false })
  const storyboard = item!.formats.find(f => f.format_id === 'sb0')!
  t.match(storyboard, { has_video: false, has_audio: false, protocol: 'mhtml' }, 'a storyboard is neither video nor audio')
  t.match(item!.formats.find(f => f.format_id === '251'), { has_video: false, has_audio: true, acodec: 'opus', vcodec: null, filesize: 8264649, resolution: 'audio only' })
  t.match(item!.formats.find(f => f.format_id === '313'), { has_video: true, has_audio: false, width: 3840, height: 2160, fps: 24 })
  const hls = item!.formats.find(f => f.format_id === '614')!
  t.equal(hls.protocol, 'm3u8_native')
  t.equal(hls.expires_at, '2024-02-07T02:29:25.000Z', 'the manifest URL\'s /expire/ path segment')
  t.equal(item!.thumbnail, 'https://i.ytimg.com/vi/ABC123/maxresdefault.jpg', 'the largest thumbnail')
  t.match(item!.thumbnails[0], { width: 1920, height: 1080, animated: false })
  t.same(item!.subtitles, [{ language: 'de', name: 'German', formats: ['json3', 'srv1', 'srv2', 'srv3', 'ttml', 'vtt'] }])
  t.ok(item!.automatic_captions.length > 200, `${item!.automatic_captions.length} automatic caption languages`)
  t.ok(item!.automatic_captions.every(c => c.language !== 'live_chat'))
})

t.test('subtitle choice: the uploader\'s track first, then automatic captions, in the preferred format', async t => {
  const info = json(t, 'ytdlp/youtube_video.info.json')
  if (!info) return
  t.match(pickSubtitleTrack(info, 'de'), { language: 'de', ext: 'vtt', automatic: false, name: 'German', url: /lang=de&fmt=vtt$/ })
  t.match(pickSubtitleTrack(info, 'en', ['json3']), { language: 'en', ext: 'json3', automatic: true, url: /kind=asr&lang=en&fmt=json3$/ })
  t.equal(pickSubtitleTrack(info, 'xx'), null)
})

t.test('Instagram reels: counts, caption, DASH-only formats, the combined format, the full-size cover', async t => {
  const templated = json(t, 'ytdlp/instagram_reel_2_urls_templated.info.json')
  const real = json(t, 'ytdlp/instagram_reel.info.json')
  if (!templated || !real) return
  const item = mediaItemFromInfo(templated)
  t.ok(itemCheck.Check(item))
  t.match(item, { id: 'DVWFcoHjsnI', platform: 'Instagram', channel: 'dustinmotors', uploader: 'Dustin Patton', like_count: 47339, comment_count: 160, duration: 12, published_at: '2026-03-01T14:28:05.000Z', upload_date: '2026-03-01' })
  t.equal(item.formats.length, 7)
  t.match(item.best, { format_id: '1', width: 640, height: 1134, has_audio: true, has_video: true }, 'the one progressive format; the DASH ones carry video or audio only')
  t.match(item.formats.find(f => f.format_id === 'dash-1682383186460055a'), { has_video: false, has_audio: true })
  const cover = coverFromInfo(templated, { inputUrl: 'https://www.instagram.com/reel/DVWFcoHjsnI/' })
  t.ok(coverCheck.Check(cover))
  t.match(cover, { author: 'dustinmotors', author_id: '38390439', like_count: 47339, caption: 'Finally off jack stands and this happens …', cover: { width: 1080, height: 1914, url: /reel_thumb_2\.jpg$/ }, animated_cover: null })

  const realItem = mediaItemFromInfo(real)
  t.match(realItem, { id: 'Chunk8-jurw', uploader: 'Instagram', upload_date: '2022-08-26' })
  t.equal(realItem.best, null, 'the maintainers removed the media URLs: no combined format with a URL')
  t.ok(realItem.formats.every(f => !f.has_audio), 'every format of this reel is video only')
  const realCover = coverFromInfo(real)
  t.match(realCover.cover, { url: /^https:\/\/instagram\.fjpa1-1\.fna\.fbcdn\.net\//, width: null })
  t.equal(urlExpiry(realCover.cover!.url), '2026-08-25T14:13:20.000Z', 'fbcdn oe= is a hex Unix time (four days after the capture)')
})

t.test('a flat playlist: one row per entry, naming the playlist; a channel tab with no entries', async t => {
  const playlist = json(t, 'ytdlp/youtube_flat_playlist_trimmed.json')
  const channel = json(t, 'ytdlp/youtube_channel_tab_playlist_flat.json')
  if (!playlist || !channel) return
  const rows = mediaItemsFromInfo(playlist, { inputUrl: 'https://www.youtube.com/playlist?list=PLhixgUqwRTjwvBI-hmbZ2rpkAl4lutnJG' })
  t.equal(rows.length, 5)
  t.ok(rows.every(r => itemCheck.Check(r)))
  t.same(rows.map(r => r.id), ['Ekcseve-mOg', 'BW9ybETXAM8', 'OXdFckukh2I', 'Hmmr1oLt-V8', 'jJuDP7Rz2hE'])
  t.match(rows[1], { flat: true, url: 'https://www.youtube.com/watch?v=BW9ybETXAM8', duration: 56, uploader: 'LiveOverflow', playlist_id: 'PLhixgUqwRTjwvBI-hmbZ2rpkAl4lutnJG', playlist_title: 'Minecraft:HACKED', playlist_index: 2, formats: [], best: null })
  t.match(rows[0]!.thumbnail, /Ekcseve-mOg\/3\.jpg$/)
  t.match(playlistFromInfo(playlist), { title: 'Minecraft:HACKED', channel: 'LiveOverflow', entry_count: 5, view_count: 261607 })
  t.same(mediaItemsFromInfo(channel), [])
  t.match(playlistFromInfo(channel), { id: 'PinchflatTestChannel', entry_count: 2, follower_count: 35000 })
  t.equal(playlistFromInfo({ id: 'x', formats: [] }), null, 'a single item is no playlist')
  const nested = mediaItemsFromInfo({ _type: 'playlist', id: 'UC1', title: 'Channel', entries: [{ _type: 'playlist', id: 'UC1-videos', title: 'Videos', entries: [{ _type: 'url', id: 'abcdefghijk', url: 'https://www.youtube.com/watch?v=abcdefghijk', ie_key: 'Youtube' }, null] }] })
  t.match(nested, [{ id: 'abcdefghijk', playlist_title: 'Videos', flat: true, platform: 'Youtube' }], 'a channel\'s tabs flattened, a null entry skipped')
})

// Format shapes as yt-dlp's TikTok extractor writes them (_parse_aweme_video_app and the web parser).
const tiktokFormats = (hasWatermark: boolean) => [
  { format_id: 'download_addr-0', format_note: `Download video${hasWatermark ? ', watermarked' : ''}`, vcodec: 'h264', acodec: 'aac', width: 1080, height: 1920, preference: hasWatermark ? -2 : -1, protocol: 'https', ext: 'mp4', url: 'https://v16m.tiktokcdn.com/dl.mp4?x-expires=1767225600' },
  { format_id: 'play_addr-0', format_note: 'Direct video', vcodec: 'h265', acodec: 'aac', width: 720, height: 1280, protocol: 'https', ext: 'mp4', url: 'https://v16m.tiktokcdn.com/play.mp4?expire=1767225600' },
]

t.test('TikTok: the watermark-free format is preferred and the row says which it returned', async t => {
  const marked = formatsFromInfo({ formats: tiktokFormats(true) })
  t.same(marked.map(f => f.watermarked), [true, false])
  const best = bestCombinedFormat(marked)
  t.match(best, { format_id: 'play_addr-0', watermarked: false, expires_at: '2026-01-01T00:00:00.000Z' }, 'watermark-free wins over a taller watermarked one')
  t.match(bestCombinedFormat(formatsFromInfo({ formats: tiktokFormats(false) })), { format_id: 'download_addr-0', watermarked: false }, 'unmarked: the tallest')
  const onlyMarked = bestCombinedFormat(formatsFromInfo({ formats: [tiktokFormats(true)[0]!] }))
  t.match(onlyMarked, { format_id: 'download_addr-0', watermarked: true, expires_at: '2026-01-01T00:00:00.000Z' }, 'only a watermarked one offered: returned, and marked as such')
  t.ok(isWatermarked({ format_note: 'watermarked' }), 'the web and Douyin parsers\' note')
  t.notOk(isWatermarked({ format_note: 'No watermark' }))
  t.notOk(isWatermarked({ format_note: 'watermark-free' }))
})

t.test('covers: animated TikTok covers apart from the static ones', async t => {
  const info = {
    id: '7106594312292453675', extractor_key: 'TikTok', description: 'New dance #fyp #dance with @lisa.dancer and @lisa.dancer', uploader: 'dancer1', channel: 'Dance One', view_count: 12, like_count: 3, comment_count: 1, timestamp: 1654683543,
    thumbnails: [
      { id: 'cover', url: 'https://p16.tiktokcdn.com/cover.jpeg', preference: -1 },
      { id: 'dynamic_cover', url: 'https://p16.tiktokcdn.com/dynamic.image', preference: -2 },
      { id: 'origin_cover', url: 'https://p16.tiktokcdn.com/origin.jpeg', width: 1080, height: 1920, preference: -1 },
    ],
  }
  const cover = coverFromInfo(info)
  t.ok(coverCheck.Check(cover))
  t.match(cover, { author: 'Dance One', hashtags: ['fyp', 'dance'], mentions: ['lisa.dancer'], published_at: '2022-06-08T10:19:03.000Z' })
  t.match(cover.cover, { id: 'origin_cover', width: 1080, animated: false })
  t.match(cover.animated_cover, { id: 'dynamic_cover', animated: true })
  t.same(thumbnailsFromInfo({ thumbnail: 'https://x.test/a.gif' }).map(x => x.animated), [true], 'a GIF is animated')
})

t.test('URL expiry forms', async t => {
  t.equal(urlExpiry('https://rr1---sn-x.googlevideo.com/videoplayback?expire=1707272965&ei=x'), '2024-02-07T02:29:25.000Z')
  t.equal(urlExpiry('https://manifest.googlevideo.com/api/manifest/hls_playlist/expire/1707272965/ei/x/file/index.m3u8'), '2024-02-07T02:29:25.000Z')
  t.equal(urlExpiry('https://v16.tiktokcdn.com/v.mp4?x-expires=1767225600&x-signature=abc'), '2026-01-01T00:00:00.000Z')
  t.equal(urlExpiry('https://scontent.cdninstagram.com/v.mp4?oe=695A3A00'), '2026-01-04T09:59:28.000Z')
  t.equal(urlExpiry('https://cdn.test/v.mp4?hdnts=st=1700000000~exp=1767225600~acl=/*~hmac=ab'), '2026-01-01T00:00:00.000Z')
  t.equal(urlExpiry('https://cdn.test/v.mp4?expire=12'), null, 'not a plausible instant')
  t.equal(urlExpiry('https://cdn.test/v.mp4'), null)
  t.equal(urlExpiry('not a url'), null)
  t.equal(urlExpiry(null), null)
})

t.test('the video to cut frames from, and the pool entry points on stdout text', async t => {
  const text = readCapture(t, 'ytdlp/youtube_video.info.json')
  const playlistText = readCapture(t, 'ytdlp/youtube_flat_playlist_trimmed.json')
  if (text === null || playlistText === null) return
  const [item] = mediaItemsFromJson(text, { inputUrl: 'ABC123' })
  t.equal(bestVideoFormat(item!.formats)?.format_id, '313', 'the 2160p webm (video only is fine for frames)')
  t.match(bestVideoFormat(item!.formats, { maxHeight: 1080 }), { format_id: '137', height: 1080, protocol: 'https' }, 'capped at 1080p: the direct mp4 with the higher bitrate')
  t.equal(bestVideoFormat([]), null)
  t.throws(() => mediaItemsFromJson('ERROR: [youtube] x: Private video'), SyntaxError)
  const covers = coversFromJson(playlistText, { inputUrl: 'https://www.youtube.com/playlist?list=PLhixgUqwRTjwvBI-hmbZ2rpkAl4lutnJG' })
  t.equal(covers.length, 5, 'a cover per entry of a page\'s (or playlist\'s) video list')
  t.ok(covers.every(c => coverCheck.Check(c)))
  t.match(covers[0], { id: 'Ekcseve-mOg', author: 'LiveOverflow', cover: { url: /Ekcseve-mOg\/3\.jpg$/ } })
})
