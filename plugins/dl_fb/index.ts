// Tool `dl_fb` / agent `socialA_download`: a Facebook video's or reel's media
// URLs and metadata through yt-dlp (shared run code: plugins/lib/media-tools).
import { defineDownloadTool, PLATFORMS } from '../lib/media-tools/index.ts'

export default defineDownloadTool({
  key: 'dl_fb',
  agentName: 'socialA_download',
  title: 'Facebook video and reel downloader',
  platform: PLATFORMS.facebook,
  what: 'a video, a reel, a watch link or an fb.watch short link',
  notes: 'Facebook usually offers an SD and an HD file with sound (both direct links) and, for newer videos, DASH video and audio apart; private and some group videos need a logged-in session (the operator\'s cookies file), else the job ends blocked and refunded. Example: {"url": "https://www.facebook.com/watch/?v=10153231379946729"}.',
  examples: [
    { task: 'get the HD download link of a Facebook video', args: { url: 'https://www.facebook.com/watch/?v=10153231379946729' } },
    { task: 'download a Facebook reel', args: { url: 'https://www.facebook.com/reel/1195289424487498' } },
  ],
  keywords: ['facebook downloader', 'facebook download', 'fb', 'fb video', 'fb.watch', 'facebook reel', 'facebook watch', 'hd', 'sd', 'mp4', 'direct link', 'video file', 'save video', 'yt-dlp'],
  cues: ['download', 'mp4', 'video file', 'downloader', 'save', 'hd'],
  notFor: ['youtube', 'youtu', 'instagram', 'insta', 'ig', 'tiktok', 'tik tok', 'snapchat', 'snap', 'spotlight', 'thumbnail', 'cover', 'poster', 'preview image', 'ads', 'page details', 'frames'],
})
