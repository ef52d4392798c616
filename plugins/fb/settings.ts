// The operator's settings for fb (tools.config.json, the `settings` of the
// `fb` entry), with their defaults; the kernel validates them at boot and runs
// read them as ctx.settings.
import { Type, type Static } from '../../core/tools/contract.ts'
import { Concurrency, Milliseconds } from '../lib/settings.ts'

/** The page fields asked of the Graph API (each maps to a row field; see README.md). */
const DEFAULT_GRAPH_FIELDS = [
  'id', 'name', 'username', 'link', 'category', 'category_list', 'about', 'description', 'general_info', 'website', 'phone',
  'emails', 'single_line_address', 'location', 'fan_count', 'followers_count', 'talking_about_count', 'verification_status',
  'picture.type(large)', 'cover',
]

export const FbSettingsSchema = Type.Object({
  api_version: Type.String({ pattern: '^v\\d+\\.\\d+$', default: 'v19.0', description: 'Graph API version in the request path, e.g. v19.0.' }),
  graph_fields: Type.Array(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_.(),]*$' }), { minItems: 1, maxItems: 60, default: DEFAULT_GRAPH_FIELDS, description: 'Page fields asked of the Graph API (when META_ACCESS_TOKEN is set).' }),
  concurrency: Concurrency(2, 8, 'Pages read at once.'),
  timeout_ms: Milliseconds(20_000, 'Timeout of one request.', 120_000),
  max_redirects: Type.Integer({ minimum: 0, maximum: 10, default: 4, description: 'Redirects followed per page (each one checked for a login, checkpoint or consent wall).' }),
  accept_language: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\r\\n]+$', default: 'en-US,en;q=0.9', description: 'Accept-Language of the page requests: the counts ("likes", "followers") are read in English.' }),
}, { additionalProperties: false })

export type FbSettings = Static<typeof FbSettingsSchema>
