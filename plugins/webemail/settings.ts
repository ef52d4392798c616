// The operator's settings for webemail (tools.config.json, the `settings` of
// the `webemail` entry), with their defaults; the kernel validates them at boot
// and runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Concurrency, Milliseconds } from '../lib/settings.ts'

export const WebemailSettingsSchema = Type.Object({
  concurrency: Concurrency(8, 64, 'Pages fetched at once by the crawl.'),
  page_timeout_ms: Milliseconds(15_000, 'Navigation timeout of one page (the handler gets twice this).'),
  default_phone_country: Type.String({ pattern: '^[A-Za-z]{2}$', default: 'US', description: 'Country for phone numbers written without one, when the site\'s domain says none.' }),
}, { additionalProperties: false })

export type WebemailSettings = Static<typeof WebemailSettingsSchema>
