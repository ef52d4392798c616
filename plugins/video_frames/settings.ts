// The operator's settings for video_frames (tools.config.json), validated at boot.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Milliseconds } from '../lib/settings.ts'

export const VideoFramesSettingsSchema = Type.Object({
  cookies_file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, pattern: '^/', description: 'Absolute path of a Netscape cookies file handed to yt-dlp when it resolves a social link. Unset: no cookies.' })),
  timeout_ms: Milliseconds(600_000, 'Longest one yt-dlp or ffmpeg run may take.', 3_600_000),
  max_height: Type.Integer({ minimum: 144, maximum: 4320, default: 1080, description: 'Tallest video format cut from when a social link is resolved by yt-dlp (frames of a 4K video are large and slow).' }),
  max_info_mb: Type.Integer({ minimum: 1, maximum: 512, default: 32, description: 'Largest yt-dlp answer read when resolving a link, in MB.' }),
}, { additionalProperties: false })

export type VideoFramesSettings = Static<typeof VideoFramesSettingsSchema>
