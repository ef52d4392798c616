// Tool `tt_covers` / agent `videoB_cover_download`: TikTok videos' static and
// animated cover images (shared run code: plugins/lib/media-tools/covers-tool.ts).
import { defineCoversTool, PLATFORMS } from '../lib/media-tools/index.ts'

export default defineCoversTool({
  key: 'tt_covers',
  agentName: 'videoB_cover_download',
  title: 'TikTok static and animated cover images',
  platform: PLATFORMS.tiktok,
  what: 'a video (www.tiktok.com/@user/video/…, vm.tiktok.com and vt.tiktok.com short links)',
  notes: 'TikTok lists a static cover (origin_cover, the full-resolution one, wins) and an animated one (dynamic_cover, a short animated WebP) for most videos. Example: {"url": "https://www.tiktok.com/@scout2015/video/6718335390845095173"}.',
  pageVideos: false,
  examples: [
    { task: 'get the animated cover of a TikTok video', args: { url: 'https://www.tiktok.com/@scout2015/video/6718335390845095173' } },
    { task: 'static and animated thumbnails of several TikToks', args: { url: ['https://www.tiktok.com/@scout2015/video/6718335390845095173', 'https://vm.tiktok.com/ZMeAbCdEf/'] } },
  ],
  keywords: ['tiktok cover', 'tiktok thumbnail', 'animated cover', 'dynamic cover', 'animated thumbnail', 'gif', 'webp', 'cover image', 'poster', 'preview image', 'tik tok', 'full size'],
  cues: ['thumbnail', 'cover', 'poster', 'preview image', 'picture', 'image', 'animated', 'gif', 'dynamic cover'],
  notFor: ['youtube', 'youtu', 'instagram', 'insta', 'ig', 'facebook', 'fb', 'snapchat', 'snap', 'spotlight', 'mp4', 'video file', 'watermark', 'frames', 'screenshot'],
})
