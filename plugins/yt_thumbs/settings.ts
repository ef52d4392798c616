// The operator's settings for yt_thumbs (tools.config.json, the `settings` of
// the `yt_thumbs` entry), with their defaults; the kernel validates them at
// boot and runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Concurrency, Milliseconds } from '../lib/settings.ts'

export const YtThumbsSettingsSchema = Type.Object({
  concurrency: Concurrency(4, 16, 'Videos checked at once.'),
  timeout_ms: Milliseconds(15_000, 'Timeout of one request to the image host.', 120_000),
}, { additionalProperties: false })

export type YtThumbsSettings = Static<typeof YtThumbsSettingsSchema>
