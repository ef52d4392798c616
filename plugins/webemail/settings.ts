// The operator's settings for webemail (tools.config.json, the `settings` of
// the `webemail` entry), with their defaults; the kernel validates them at boot
// and runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'

export const WebemailSettingsSchema = Type.Object({
  concurrency: Type.Integer({ minimum: 1, maximum: 64, default: 8, description: 'Pages fetched at once by the crawl.' }),
  page_timeout_ms: Type.Integer({ minimum: 1000, maximum: 300_000, default: 15_000, description: 'Navigation timeout of one page (the handler gets twice this).' }),
  default_phone_country: Type.String({ pattern: '^[A-Za-z]{2}$', default: 'US', description: 'Country for phone numbers written without one, when the site\'s domain says none.' }),
}, { additionalProperties: false })

export type WebemailSettings = Static<typeof WebemailSettingsSchema>
