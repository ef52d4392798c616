// Tool `video_frames` / agent `video_frame_extractor`: frames of a video
// (every N seconds, at given timestamps, or on scene change) cut by ffmpeg,
// stored as JPEG or PNG job files with their timestamps.
import { Defaulted, defineTool, Nullable, NullableFields, PatternString, Type } from '../../core/tools/contract.ts'
import { MEDIA_TOOL_CAPABILITY } from '../lib/media-tools/capability.ts'
import { VideoFramesSettingsSchema } from './settings.ts'

/** Frames per call at most (each is a stored file); the plan's per-run cap clamps it further. */
export const MAX_FRAMES = 500

export const videoFramesInput = Type.Object({
  url: PatternString('^(https?://[^\\s]+|upload://.+)$', 'must be an http or https URL of a video', { minLength: 1, maxLength: 2000, description: 'The video: a direct media URL (.mp4, .webm, .mov, .m3u8…) or a video page or social link (YouTube, TikTok, Instagram, Facebook…), which yt-dlp resolves to its best video format. On REST, a video file sent as multipart/form-data stands in for it (the server writes upload://<file name> here).' }),
  mode: Defaulted(Type.Union([Type.Literal('interval'), Type.Literal('timestamps'), Type.Literal('scene')], { description: 'interval (default): a frame every every_seconds; timestamps: one frame at each of timestamps; scene: a frame at each scene change.' }), 'interval'),
  every_seconds: Defaulted(Type.Number({ minimum: 0.04, maximum: 3600, description: 'Seconds between frames (interval mode); 0.04 is every frame of a 25 fps video.' }), 1),
  timestamps: Type.Optional(Type.Array(Type.Number({ minimum: 0, maximum: 86400 }), { minItems: 1, maxItems: MAX_FRAMES, description: 'Seconds into the video (timestamps mode).' })),
  scene_threshold: Defaulted(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, description: 'How different a frame must be from the last to count as a new scene (scene mode): lower gives more frames.' }), 0.4),
  max_frames: Defaulted(Type.Integer({ minimum: 1, maximum: MAX_FRAMES, description: 'Frames at most; clamped to the plan\'s per-run cap.' }), 50),
  format: Defaulted(Type.Union([Type.Literal('jpeg'), Type.Literal('png')], { description: 'Image format of the frames.' }), 'jpeg'),
  width: Type.Optional(Type.Integer({ minimum: 16, maximum: 3840, description: 'Scale the frames to this width (the aspect ratio is kept); unset keeps the video\'s size. Either way a frame is at most 3840 wide, 3840 high and 3840×2160 pixels: a larger one is scaled down into that, keeping its aspect ratio.' })),
}, { additionalProperties: false })

export const videoFramesRow = Type.Object({
  input_url: Type.String(),
  source_url: Nullable(Type.String({ description: 'The media URL ffmpeg read (a signed platform URL when yt-dlp resolved a link).' })),
  index: Type.Integer({ description: 'Frame number, from 0, in time order.' }),
  time_s: Nullable(Type.Number({ description: 'Seconds into the video.' })),
  timestamp: Nullable(Type.String({ description: 'The time as HH:MM:SS.mmm.' })),
  file: Type.Object({
    id: Type.String(),
    name: Type.String(),
    url: Type.String({ description: 'The image on this server (a job artifact, kept as long as the rows).' }),
    size: Type.Integer(),
    content_type: Type.String(),
  }),
  ...NullableFields(Type.Integer(), 'width', 'height'),
})

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
