// Tool `dl_ig` / agent `socialB_download`: an Instagram post's or reel's media
// URLs and metadata through yt-dlp (shared run code: plugins/lib/media-tools).
import { defineDownloadTool, PLATFORMS } from '../lib/media-tools/index.ts'

export default defineDownloadTool({
  key: 'dl_ig',
  agentName: 'socialB_download',
  title: 'Instagram post and reel downloader',
  platform: PLATFORMS.instagram,
  what: 'a reel, a post (a carousel gives one row per video) or an IGTV video',
  notes: 'Instagram answers most links only to a logged-in session (the operator\'s cookies file); without one a login wall ends the job blocked and refunded. Reels often come as separate video and audio DASH formats, so "best" may be null: pick a video and an audio format. Example: {"url": "https://www.instagram.com/reel/C1a2b3c4d5e/"}.',
  examples: [
    { task: 'get the video download link of an Instagram reel', args: { url: 'https://www.instagram.com/reel/C1a2b3c4d5e/' } },
    { task: 'download links for the videos of several Instagram posts', args: { url: ['https://www.instagram.com/p/C1a2b3c4d5e/', 'https://www.instagram.com/p/C9z8y7x6w5v/'] } },
  ],
  keywords: ['instagram downloader', 'instagram download', 'insta', 'ig', 'reel', 'reels', 'instagram video', 'save reel', 'igtv', 'carousel', 'mp4', 'direct link', 'video file', 'yt-dlp'],
  cues: ['download', 'mp4', 'video file', 'downloader', 'save', 'direct link'],
  notFor: ['youtube', 'youtu', 'tiktok', 'tik tok', 'facebook', 'fb', 'snapchat', 'snap', 'spotlight', 'thumbnail', 'cover', 'poster', 'preview image', 'subtitles', 'srt', 'transcript', 'frames', 'followers', 'following'],
})
