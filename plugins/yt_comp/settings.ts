// The operator's settings for yt_comp (tools.config.json, the `settings` of
// the `yt_comp` entry), with their defaults; the kernel validates them at boot
// and runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'

export const YtCompSettingsSchema = Type.Object({
  top_videos: Type.Integer({ minimum: 1, maximum: 10, default: 3, description: 'Most viewed recent videos listed per channel.' }),
  engagement_videos: Type.Integer({ minimum: 0, maximum: 10, default: 3, description: 'Newest videos per channel looked up one by one for likes and comments (engagement); 0 leaves engagement out.' }),
}, { additionalProperties: false })

export type YtCompSettings = Static<typeof YtCompSettingsSchema>
