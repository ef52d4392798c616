// Tool `video_frames` / agent `video_frame_extractor`: frames of a video
// (every N seconds, at given timestamps, or on scene change) cut by ffmpeg,
// stored as JPEG or PNG job files with their timestamps.
import { defineTool } from '../../core/tools/contract.ts'
import { MEDIA_TOOL_CAPABILITY } from '../lib/media-tools/capability.ts'
import { VideoFramesSettingsSchema } from './settings.ts'
import { videoFramesInput, videoFramesRow } from './schema.ts'

export default defineTool({
  key: 'video_frames',
  agentName: 'video_frame_extractor',
  title: 'Video frame extractor (screenshots)',
  description: 'Cuts still frames out of a video with ffmpeg: one every N seconds (every_seconds, default 1), at given timestamps (seconds), or at each scene change; JPEG or PNG, optionally scaled to a width, at most max_frames. One row per frame: its time (seconds and HH:MM:SS.mmm), its size, and the image file\'s download URL (all of a job\'s files also come as one zip from the job\'s artifacts.zip link). Takes a direct media URL or a video page or social link (YouTube, TikTok, Instagram, Facebook…), which yt-dlp resolves to its best video format. Example: {"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "every_seconds": 10, "max_frames": 20}; {"url": "https://example.com/clip.mp4", "mode": "timestamps", "timestamps": [1.5, 30, 62]}.',
  input: videoFramesInput,
  row: videoFramesRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['source_url', 'index'],
  watch: ['time_s', 'width', 'height'],
  perRunFields: ['max_frames'],
  // A video file sent with a multipart tool-run stands in for `url` (the tier's max_file_mb caps it; 413 past it).
  upload: { param: 'url', contentTypes: ['video/*', 'application/octet-stream'] },
  examples: [
    { task: 'take a screenshot of a video every 10 seconds', args: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', every_seconds: 10, max_frames: 20 } },
    { task: 'grab frames at 5, 30 and 60 seconds of an mp4 as png', args: { url: 'https://example.com/clip.mp4', mode: 'timestamps', timestamps: [5, 30, 60], format: 'png' } },
    { task: 'extract one frame per scene of a TikTok video', args: { url: 'https://www.tiktok.com/@scout2015/video/6718335390845095173', mode: 'scene' } },
  ],
  keywords: ['frames', 'frame by frame', 'screenshots', 'screen capture', 'stills', 'still images', 'snapshot', 'ffmpeg', 'scene change', 'scene detection', 'keyframes', 'per second', 'jpeg', 'png', 'storyboard', 'video to images'],
  cues: ['frames', 'screenshots', 'stills', 'still images', 'snapshot', 'keyframes', 'every second', 'ffmpeg'],
  notFor: ['thumbnail', 'cover', 'transcript', 'subtitles', 'captions', 'mp4', 'video file'],
  settings: VideoFramesSettingsSchema,
  // A link it resolves with yt-dlp counts in its platform's health, like the other media tools' runs.
  ...MEDIA_TOOL_CAPABILITY,
  run: async (ctx) => (await import('./run.ts')).runVideoFrames(ctx),
})
