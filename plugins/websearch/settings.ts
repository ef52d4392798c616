// The operator's settings for websearch (tools.config.json, the `settings` of
// the `websearch` entry), with their defaults. Validated by the kernel at boot;
// runs read them as ctx.settings, the engine health gets its cooldowns from
// them once, in createState.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Concurrency, Milliseconds } from '../lib/settings.ts'

export const WebsearchSettingsSchema = Type.Object({
  cooldown_ms: Milliseconds(600_000, 'How long an engine is skipped after it refused.', 86_400_000),
  google_cooldown_ms: Milliseconds(1_800_000, 'How long Google is skipped after it refused (it flags an address for longer).', 86_400_000),
  concurrency: Concurrency(4, 64, 'Pages fetched at once when scraping.'),
  max_text_chars: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 100_000, description: 'Characters of readable text kept per page (the rest is cut, text_truncated: true).' }),
}, { additionalProperties: false })

export type WebsearchSettings = Static<typeof WebsearchSettingsSchema>
