// The operator's settings for yt_thumbs (tools.config.json, the `settings` of
// the `yt_thumbs` entry), with their defaults; the kernel validates them at
// boot and runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'

export const YtThumbsSettingsSchema = Type.Object({
  concurrency: Type.Integer({ minimum: 1, maximum: 16, default: 4, description: 'Videos checked at once.' }),
  timeout_ms: Type.Integer({ minimum: 1000, maximum: 120_000, default: 15_000, description: 'Timeout of one request to the image host.' }),
}, { additionalProperties: false })

export type YtThumbsSettings = Static<typeof YtThumbsSettingsSchema>
