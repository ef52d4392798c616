// yt-dlp argument arrays, YouTube link forms and image sizes: pure functions.
import t from 'tap'
import { imageSize, youtubeVideoId, youtubeWatchUrl, ytdlpDownloadArgs, ytdlpInfoArgs, ytdlpSubtitleArgs } from '../../../plugins/lib/media/index.ts'

t.test('info: -J --no-download, one item, flat or full playlists, `--` before the URL', async t => {
  const single = ytdlpInfoArgs('https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PL1')
  t.ok(single.includes('--dump-single-json') && single.includes('--no-download') && single.includes('--no-playlist') && single.includes('--ignore-config'))
  t.same(single.slice(-2), ['--', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PL1'])
  const flat = ytdlpInfoArgs('https://www.youtube.com/@channel/videos', { playlist: 'flat', maxItems: 30, cookiesFile: '/etc/app/cookies.txt' })
  t.ok(flat.includes('--flat-playlist') && flat.includes('--yes-playlist') && !flat.includes('--no-playlist'))
  t.same(flat.slice(flat.indexOf('--playlist-end'), flat.indexOf('--playlist-end') + 2), ['--playlist-end', '30'])
  t.same(flat.slice(flat.indexOf('--cookies'), flat.indexOf('--cookies') + 2), ['--cookies', '/etc/app/cookies.txt'])
  const full = ytdlpInfoArgs('https://www.youtube.com/playlist?list=PL1', { playlist: 'full' })
  t.ok(full.includes('--yes-playlist') && !full.includes('--flat-playlist'))
  t.throws(() => ytdlpInfoArgs('--exec=rm -rf /'), RangeError, 'an option disguised as a URL')
  t.throws(() => ytdlpInfoArgs('file:///etc/passwd'), RangeError)
  t.throws(() => ytdlpInfoArgs('https://x.test/', { playlist: 'flat', maxItems: 0 }), RangeError)
})

t.test('download and subtitles', async t => {
  const dl = ytdlpDownloadArgs('https://www.tiktok.com/@a/video/1', { format: 'play_addr-0', output: '/scratch/media.%(ext)s', maxBytes: 104_857_600 })
  t.same(dl.slice(dl.indexOf('--format'), dl.indexOf('--format') + 2), ['--format', 'play_addr-0'])
  t.same(dl.slice(dl.indexOf('--max-filesize'), dl.indexOf('--max-filesize') + 2), ['--max-filesize', '104857600'])
  t.same(dl.slice(-2), ['--', 'https://www.tiktok.com/@a/video/1'])
  const subs = ytdlpSubtitleArgs('https://www.instagram.com/reel/X/', { languages: ['en', 'en.*'], output: '/scratch/subs' })
  t.ok(subs.includes('--skip-download') && subs.includes('--write-subs') && subs.includes('--write-auto-subs'))
  t.same(subs.slice(subs.indexOf('--sub-langs'), subs.indexOf('--sub-langs') + 2), ['--sub-langs', 'en,en.*'])
  t.same(subs.slice(subs.indexOf('--sub-format'), subs.indexOf('--sub-format') + 2), ['--sub-format', 'vtt/json3/best'])
  t.throws(() => ytdlpSubtitleArgs('https://x.test/', { languages: [], output: '/o' }), RangeError)
})

t.test('every YouTube link form gives the video id', async t => {
  const id = 'dQw4w9WgXcQ'
  for (const link of [
    id, `https://www.youtube.com/watch?v=${id}`, `https://www.youtube.com/watch?feature=share&v=${id}&t=42s`, `http://youtube.com/watch?v=${id}`,
    `https://m.youtube.com/watch?v=${id}`, `https://music.youtube.com/watch?v=${id}&list=RD1`, `https://youtu.be/${id}`, `https://youtu.be/${id}?si=abc&t=3`,
    `https://www.youtube.com/shorts/${id}`, `https://youtube.com/shorts/${id}?feature=share`, `https://www.youtube.com/embed/${id}?autoplay=1`,
    `https://www.youtube-nocookie.com/embed/${id}`, `https://www.youtube.com/live/${id}?si=x`, `https://www.youtube.com/v/${id}`,
    `youtube.com/watch?v=${id}`, `www.youtu.be/${id}`, `  https://youtu.be/${id}  `,
  ]) t.equal(youtubeVideoId(link), id, link)
  for (const other of ['https://www.youtube.com/@channel', 'https://www.youtube.com/playlist?list=PL1', 'https://evil-youtube.com/watch?v=dQw4w9WgXcQ', 'https://youtube.com.evil.test/watch?v=dQw4w9WgXcQ', 'https://vimeo.com/123', 'dQw4w9WgXc', 'javascript:alert(1)', '', 'ftp://youtu.be/dQw4w9WgXcQ']) {
    t.equal(youtubeVideoId(other), null, `not a video: ${other}`)
  }
  t.equal(youtubeWatchUrl(id), `https://www.youtube.com/watch?v=${id}`)
})

t.test('image sizes from the first bytes', async t => {
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x5a, 0x00, 0x78, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
  t.same(imageSize(jpeg), { width: 120, height: 90, type: 'jpeg' })
  t.equal(imageSize(jpeg.subarray(0, 12)), null, 'not enough bytes yet')
  const png = Buffer.alloc(24); png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]); png.writeUInt32BE(1280, 16); png.writeUInt32BE(720, 20)
  t.same(imageSize(png), { width: 1280, height: 720, type: 'png' })
  const gif = Buffer.from('GIF89a\x40\x01\xf0\x00', 'latin1')
  t.same(imageSize(gif), { width: 320, height: 240, type: 'gif' })
  const webp = Buffer.alloc(30); webp.write('RIFF', 0); webp.write('WEBP', 8); webp.write('VP8X', 12); webp.writeUIntLE(1279, 24, 3); webp.writeUIntLE(719, 27, 3)
  t.same(imageSize(webp), { width: 1280, height: 720, type: 'webp' })
  t.equal(imageSize(Buffer.from('<html>not found</html>')), null)
})
