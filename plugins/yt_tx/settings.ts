// The operator's settings for yt_tx (tools.config.json, the `settings` of the
// `yt_tx` entry), with their defaults; validated at boot, read as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Milliseconds } from '../lib/settings.ts'

export const YtTxSettingsSchema = Type.Object({
  timeout_ms: Milliseconds(20_000, 'Timeout of one request (InnerTube or timedtext).', 120_000),
  files: Type.Boolean({ default: true, description: 'Store each transcript as .txt, .srt and .vtt job files (ctx.artifact).' }),
}, { additionalProperties: false })

export type YtTxSettings = Static<typeof YtTxSettingsSchema>
