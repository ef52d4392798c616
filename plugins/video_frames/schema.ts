// video_frames's input and row: the one schema of each (the declaration's and the
// run's types come from here; run.ts never imports index.ts, which loads it).
import { Defaulted, Nullable, NullableFields, PatternString, Type } from '../../core/tools/contract.ts'

/** Frames per call at most (each is a stored file); the plan's per-run cap clamps it further. */
const MAX_FRAMES = 500

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
