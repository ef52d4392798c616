// Tool `dl_yt` / agent `videoA_download`: a YouTube video's (or playlist's,
// channel's) formats, direct URLs and metadata through yt-dlp. The run code is
// shared by every dl_* tool (plugins/lib/media-tools/download-tool.ts).
import { defineDownloadTool, PLATFORMS } from '../lib/media-tools/index.ts'

export default defineDownloadTool({
  key: 'dl_yt',
  agentName: 'videoA_download',
  title: 'YouTube video downloader: formats and direct URLs',
  platform: PLATFORMS.youtube,
  what: 'a video, a Short, a live replay, a playlist or a channel',
  notes: 'YouTube gives combined video+audio files only up to 720p; higher resolutions are separate video and audio formats (has_video / has_audio say which). Example: {"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ"}; a playlist\'s entries: {"url": "https://www.youtube.com/playlist?list=PL…", "playlist": "flat", "limit": 50}.',
  examples: [
    { task: 'get the download links and formats of a YouTube video', args: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' } },
    { task: 'list the videos of a YouTube playlist with their durations', args: { url: 'https://www.youtube.com/playlist?list=PLBCF2DAC6FFB574DE', playlist: 'flat', max_results: 50 } },
  ],
  keywords: ['youtube downloader', 'youtube download', 'download youtube video', 'mp4', 'video file', 'direct link', 'direct url', 'formats', 'resolution', '1080p', '720p', 'yt-dlp', 'youtube-dl', 'save video', 'youtube shorts', 'youtu.be', 'googlevideo'],
  cues: ['download', 'mp4', 'video file', 'formats', 'resolution', 'quality', 'direct link', 'save'],
  notFor: ['instagram', 'insta', 'ig', 'tiktok', 'tik tok', 'facebook', 'fb', 'snapchat', 'snap', 'spotlight', 'thumbnail', 'cover', 'poster', 'preview image', 'subtitles', 'srt', 'transcript', 'captions', 'frames', 'screenshot', 'compare', 'competitors'],
})
