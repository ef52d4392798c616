// The operator's settings every yt-dlp-backed media tool takes (dl_*, the
// covers): tools.config.json `settings` of each entry, validated at boot.
import { Type, type Static } from '../../../core/tools/contract.ts'
import { Milliseconds } from '../settings.ts'

export const YtdlpToolSettingsSchema = Type.Object({
  cookies_file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, pattern: '^/', description: 'Absolute path of a Netscape cookies file (a logged-in session) handed to yt-dlp with --cookies; Instagram and Facebook answer most links only to a session. Unset: no cookies.' })),
  timeout_ms: Milliseconds(180_000, 'Longest one yt-dlp run (one link) may take; past it its process group is killed and the link fails (refunded when it was the only one).', 3_600_000),
  max_info_mb: Type.Integer({ minimum: 1, maximum: 512, default: 32, description: 'Largest yt-dlp answer (its JSON on stdout) read for one link, in MB: a long playlist opened in full can pass it (ask for the flat listing instead).' }),
}, { additionalProperties: false })

export type YtdlpToolSettings = Static<typeof YtdlpToolSettingsSchema>
