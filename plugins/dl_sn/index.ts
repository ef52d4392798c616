// Tool `dl_sn` / agent `videoC_download`: a Snapchat Spotlight or public story
// video's media URLs and metadata through yt-dlp (shared run code:
// plugins/lib/media-tools).
import { defineDownloadTool, PLATFORMS } from '../lib/media-tools/index.ts'

export default defineDownloadTool({
  key: 'dl_sn',
  agentName: 'videoC_download',
  title: 'Snapchat Spotlight and story downloader',
  platform: PLATFORMS.snapchat,
  what: 'a Spotlight video or a public story (www.snapchat.com/spotlight/…, story.snapchat.com, a public profile\'s story)',
  notes: 'yt-dlp reads Snapchat pages with its generic extractor (the page\'s embedded video), so a row may carry fewer counts than other platforms; a public profile\'s story can be several snaps, one row each. Example: {"url": "https://www.snapchat.com/spotlight/W7_EDlXWTBiXAEEniNoMPwAAYY2…"}.',
  examples: [
    { task: 'get the download link of a Snapchat Spotlight video', args: { url: 'https://www.snapchat.com/spotlight/W7_EDlXWTBiXAEEniNoMPwAAYYmZ0Y3Z1dWVlAY2b' } },
    { task: 'save a public Snapchat story', args: { url: 'https://story.snapchat.com/p/8a1f3c2e-0c7e-4f7a-9d45-2b1c3e4f5a6b' } },
  ],
  keywords: ['snapchat downloader', 'snapchat download', 'snap', 'snaps', 'spotlight', 'snapchat story', 'public story', 'ephemeral', 'mp4', 'direct link', 'video file', 'save snap', 'yt-dlp'],
  cues: ['download', 'mp4', 'video file', 'downloader', 'save'],
  notFor: ['youtube', 'youtu', 'instagram', 'insta', 'ig', 'tiktok', 'tik tok', 'facebook', 'fb', 'thumbnail', 'cover', 'poster', 'preview image', 'frames'],
})
