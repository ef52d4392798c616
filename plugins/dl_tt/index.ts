// Tool `dl_tt` / agent `videoB_download`: a TikTok video's media URLs, the
// watermark-free one first, and metadata through yt-dlp (shared run code:
// plugins/lib/media-tools; the watermark rule: plugins/lib/media isWatermarked).
import { defineDownloadTool, PLATFORMS } from '../lib/media-tools/index.ts'

export default defineDownloadTool({
  key: 'dl_tt',
  agentName: 'videoB_download',
  title: 'TikTok video downloader (no watermark)',
  platform: PLATFORMS.tiktok,
  what: 'a video (www.tiktok.com/@user/video/…, vm.tiktok.com and vt.tiktok.com short links) or a profile',
  notes: 'Watermark-free first: "best" is a format without TikTok\'s watermark whenever one is offered, and best.watermarked says which was returned (each format carries watermarked too); a run where only a watermarked one existed says so in its warning. Example: {"url": "https://www.tiktok.com/@scout2015/video/6718335390845095173"}.',
  examples: [
    { task: 'download a TikTok video without the watermark', args: { url: 'https://www.tiktok.com/@scout2015/video/6718335390845095173' } },
    { task: 'get the mp4 links of a TikTok short link', args: { url: 'https://vm.tiktok.com/ZMeAbCdEf/' } },
  ],
  keywords: ['tiktok downloader', 'tiktok download', 'no watermark', 'without watermark', 'watermark free', 'remove watermark', 'tik tok', 'douyin', 'mp4', 'direct link', 'video file', 'save tiktok', 'yt-dlp'],
  cues: ['download', 'mp4', 'video file', 'downloader', 'watermark', 'save'],
  notFor: ['youtube', 'youtu', 'instagram', 'insta', 'ig', 'facebook', 'fb', 'snapchat', 'snap', 'spotlight', 'thumbnail', 'cover', 'poster', 'preview image', 'gif', 'frames', 'still images'],
})
