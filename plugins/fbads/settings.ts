// The operator's settings for fbads (tools.config.json, the `settings` of the
// `fbads` entry), with their defaults; the kernel validates them at boot and
// runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Milliseconds, PageSize } from '../lib/settings.ts'

export const FbadsSettingsSchema = Type.Object({
  api_version: Type.String({ pattern: '^v\\d+\\.\\d+$', default: 'v19.0', description: 'Graph API version in the request path, e.g. v19.0.' }),
  page_size: PageSize(100, 500, 'Ads asked per ads_archive page.'),
  timeout_ms: Milliseconds(30_000, 'Timeout of one request.'),
}, { additionalProperties: false })

export type FbadsSettings = Static<typeof FbadsSettingsSchema>
