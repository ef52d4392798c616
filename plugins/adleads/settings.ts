// The operator's settings for adleads (tools.config.json, the `settings` of the
// `adleads` entry), with their defaults; the kernel validates them at boot and
// runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Concurrency } from '../lib/settings.ts'

export const AdleadsSettingsSchema = Type.Object({
  concurrency: Concurrency(3, 10, 'Businesses checked at once.'),
  meta_max_ads: Type.Integer({ minimum: 1, maximum: 1000, default: 25, description: 'Meta ads read per business.' }),
  google_max_creatives: Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'Google creatives read per business.' }),
}, { additionalProperties: false })

export type AdleadsSettings = Static<typeof AdleadsSettingsSchema>
