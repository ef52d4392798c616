// The operator's settings for yt (tools.config.json, the `settings` of the
// `yt` entry), with their defaults; the kernel validates them at boot and
// runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Concurrency, Milliseconds } from '../lib/settings.ts'

export const YtSettingsSchema = Type.Object({
  timeout_ms: Milliseconds(20_000, 'Timeout of one InnerTube request.', 120_000),
  language: Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z]{2,4})?$', default: 'en', description: 'InnerTube `hl`: the language of YouTube\'s texts. The count and date readers know English wording ("24.6M subscribers", "3 days ago"), so change it only knowingly.' }),
  region: Type.String({ pattern: '^[A-Z]{2}$', default: 'US', description: 'InnerTube `gl`: the region YouTube answers for.' }),
  channel_about: Type.Boolean({ default: true, description: 'Read each channel\'s about panel (one more request): total views, joined date, country, links.' }),
  concurrency: Concurrency(3, 8, 'Entries read at once (a video is two requests, /player and /next; a channel or playlist reads its pages one after the other); rows keep the list\'s order.'),
}, { additionalProperties: false })

export type YtSettings = Static<typeof YtSettingsSchema>
