// Tool `ig_covers` / agent `socialB_cover_download`: full-resolution cover
// images of Instagram reels and posts with caption, author and counts (shared
// run code: plugins/lib/media-tools/covers-tool.ts).
import { defineCoversTool, PLATFORMS } from '../lib/media-tools/index.ts'

export default defineCoversTool({
  key: 'ig_covers',
  agentName: 'socialB_cover_download',
  title: 'Instagram reel and post cover images',
  platform: PLATFORMS.instagram,
  what: 'a reel or a post',
  notes: 'The cover is the largest candidate Instagram lists (usually the 1080-wide original); Instagram has no animated covers. Most links need the operator\'s logged-in session (cookies file), else the job ends blocked and refunded. Example: {"url": "https://www.instagram.com/reel/C1a2b3c4d5e/"}.',
  pageVideos: false,
  examples: [
    { task: 'get the full size cover image of an Instagram reel', args: { url: 'https://www.instagram.com/reel/C1a2b3c4d5e/' } },
    { task: 'thumbnails, captions and like counts of several Instagram posts', args: { url: ['https://www.instagram.com/p/C1a2b3c4d5e/', 'https://www.instagram.com/reel/C9z8y7x6w5v/'] } },
  ],
  keywords: ['instagram cover', 'reel cover', 'reel thumbnail', 'instagram thumbnail', 'cover photo', 'cover image', 'poster', 'preview image', 'full size', 'full resolution', 'insta', 'ig', 'reels'],
  cues: ['thumbnail', 'cover', 'poster', 'preview image', 'picture', 'image'],
  notFor: ['youtube', 'youtu', 'tiktok', 'tik tok', 'facebook', 'fb', 'snapchat', 'snap', 'spotlight', 'mp4', 'video file', 'subtitles', 'srt', 'transcript', 'frames', 'screenshot', 'followers'],
})
