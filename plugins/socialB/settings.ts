// The operator's settings for socialB (tools.config.json, the `settings` of the
// `socialB` entry), with their defaults; validated at boot, read by runs as
// ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Milliseconds, PageSize } from '../lib/settings.ts'

export const SocialBSettingsSchema = Type.Object({
  page_size: PageSize(50, 200, 'Accounts asked per friendships page (`count`).'),
  page_delay_ms: Type.Integer({ minimum: 0, maximum: 600_000, default: 3000, description: 'Pause between two pages of one list: Instagram flags a session that pages faster than a person scrolls.' }),
  timeout_ms: Milliseconds(20_000, 'Timeout of one request.'),
  app_id: Type.String({ pattern: '^\\d{6,20}$', default: '936619743392459', description: 'The `X-IG-App-ID` header the Instagram web client sends; the web API refuses requests without it.' }),
}, { additionalProperties: false })

export type SocialBSettings = Static<typeof SocialBSettingsSchema>
