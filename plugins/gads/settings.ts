// The operator's settings for gads (tools.config.json, the `settings` of the
// `gads` entry), with their defaults; the kernel validates them at boot and
// runs read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Milliseconds, PageSize } from '../lib/settings.ts'

export const GadsSettingsSchema = Type.Object({
  running_within_days: Type.Integer({ minimum: 1, maximum: 365, default: 3, description: 'A creative last shown this many days ago or less counts as running now.' }),
  page_size: PageSize(40, 100, 'Creatives asked per SearchCreatives page.'),
  timeout_ms: Milliseconds(20_000, 'Timeout of one request.'),
  public_base: Type.String({ pattern: '^https?://\\S+$', default: 'https://adstransparency.google.com', description: 'Base of the public Transparency Center links put in rows.' }),
}, { additionalProperties: false })

export type GadsSettings = Static<typeof GadsSettingsSchema>
