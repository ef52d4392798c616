// The operator's settings for microblog (tools.config.json, the `settings` of
// the `microblog` entry), with their defaults; validated at boot, read by runs
// as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Milliseconds, PageSize } from '../lib/settings.ts'

export const MicroblogSettingsSchema = Type.Object({
  page_size: PageSize(100, 100, 'Posts asked per page (max_results of each X API request; the API takes 10 to 100 on search, 5 to 100 on timelines).', 10),
  timeout_ms: Milliseconds(20_000, 'Timeout of one request.'),
}, { additionalProperties: false })

export type MicroblogSettings = Static<typeof MicroblogSettingsSchema>
