// The operator's settings for yt_tx (tools.config.json, the `settings` of the
// `yt_tx` entry), with their defaults; validated at boot, read as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'

export const YtTxSettingsSchema = Type.Object({
  timeout_ms: Type.Integer({ minimum: 1000, maximum: 120_000, default: 20_000, description: 'Timeout of one request (InnerTube or timedtext).' }),
  files: Type.Boolean({ default: true, description: 'Store each transcript as .txt, .srt and .vtt job files (ctx.artifact).' }),
}, { additionalProperties: false })

export type YtTxSettings = Static<typeof YtTxSettingsSchema>
