// The one place that removes credentials from text before it leaves the
// server: job errors, warnings, stage texts, summaries, webhook bodies, tool
// endpoint answers (engine health) and every log line. Upstream errors carry
// full request URLs (SerpApi's `api_key=`, Google CSE's `key=`), so anything a
// plugin or a library writes is treated as possibly holding a secret.
//
// Two layers: the configured credential VALUES (built once per app from the
// config, see `secretValuesOf`) wherever they appear, raw or URL/JSON-encoded;
// and credential-shaped text whatever its value (`api_key=…` parameters, URL
// userinfo, `Authorization: Bearer …`), which also catches credentials this
// server never configured (a webhook URL's token, a user's proxy in a URL).
//
// A job's texts (error, warnings, stage, summary) also lose the server's own
// paths (DATA_DIR, ARTIFACTS_DIR, the work, upload and scratch folders):
// ffmpeg and other libraries name the files they opened.
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import type { AppConfig } from '../config.ts'

export const REDACTED = '[redacted]'

/**
 * Shorter configured values are not scrubbed as values: a 3-character
 * "credential" would redact ordinary words everywhere. Parameters and headers
 * that carry them are still scrubbed by shape.
 */
const MIN_SCRUBBED_VALUE_LENGTH = 6

/** Query/form parameter names whose value is a credential (compared case-insensitively). */
const CREDENTIAL_PARAMETERS = [
  'key', 'api_key', 'api-key', 'apikey', 'x-api-key', 'token', 'access_token', 'refresh_token', 'id_token', 'auth_token',
  'sig', 'signature', 'secret', 'client_secret', 'password', 'passwd', 'private_key',
]

/** Header-like names (`name: value`, `"name":"value"`) whose value is a credential. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'x-api-key', 'x-blog-key', 'x-auth-token', 'api-key']

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// `name=value` in a URL, a form body or prose: the name starts the text or
// follows a separator, so `monkey=1` is left alone. The value stops at the
// next separator; a trailing ": " (as in "…api_key=X: ECONNRESET") is kept.
// (A captured separator, not a lookbehind: the lookbehind is several times slower.)
const PARAMETER = new RegExp(
  `(^|[?&;\\s"'(,\\[{])(${CREDENTIAL_PARAMETERS.map(escapeRegExp).join('|')})=([^&#\\s"'<>\\\\]*?)(?=[&#\\s"'<>\\\\]|:\\s|:$|$)`,
  'gi',
)
// scheme://user:pass@host: everything before the @ goes (the user name often is the account).
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>\\]+@/gi
// Authorization: Bearer …, "x-api-key":"…", Proxy-Authorization=Basic …
const HEADER = new RegExp(
  `\\b(${CREDENTIAL_HEADERS.map(escapeRegExp).join('|')})(["']?\\s*[:=]\\s*["']?)(?:(Bearer|Basic|Digest|Token)\\s+)?[^\\s"',;&\\\\]+`,
  'gi',
)
// A bare "Bearer <token>" with no header name in front.
const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/-]{6,}=*/g

// Every header-like pattern needs one of these words: most log lines have none
// and skip two regex passes (each pattern is also skipped without its `=` or `://`).
const MAYBE_HEADER = /auth|key|bearer/i

/** Every form a value takes in text: raw, percent-encoded (both hex cases), form-encoded, JSON-escaped. */
function encodedForms (value: string): string[] {
  const percent = encodeURIComponent(value)
  const form = new URLSearchParams({ v: value }).toString().slice(2)
  return [value, percent, percent.replace(/%[0-9A-F]{2}/g, h => h.toLowerCase()), percent.replace(/%20/g, '+'), form, JSON.stringify(value).slice(1, -1)]
}

/**
 * The credential values this server holds, from the one config: every variable
 * tools.config.json names in `credentials`, SECRET_KEY (given or generated),
 * ADMIN_API_KEY, BLOG_API_KEY, LLM_API_KEY, ARTIFACTS_S3_SECRET_ACCESS_KEY,
 * PUBLIC_TOKENS, and the passwords of PROXY_URL (or each of PROXY_URLS), DATABASE_URL and REDIS_URL.
 */
export function secretValuesOf (config: AppConfig): string[] {
  const values: Array<string | null | undefined> = [config.secretKey, config.adminApiKey, config.blogApiKey, config.llm.apiKey, config.artifactsS3?.secretAccessKey, ...config.publicTokens]
  for (const tool of config.tools.tools) {
    for (const variable of Object.values(tool.credentials ?? {})) values.push(config.env[variable]?.trim())
  }
  for (const url of [...config.proxy.urls, config.databaseProvider === 'postgresql' ? config.databaseUrl : null, config.redisUrl]) {
    if (!url) continue
    try {
      const password = new URL(url).password
      if (password) values.push(decodeURIComponent(password))
    } catch { /* validated at boot; nothing to add */ }
  }
  return values.filter((v): v is string => typeof v === 'string')
}

/**
 * A folder of the server's and the word that stands for it in a job's texts.
 * `jobs`: it holds one folder per job (DATA_DIR/work), whose upload and
 * scratch get their own words.
 */
export interface ServerPath { path: string, label: string, jobs?: boolean }

/** DATA_DIR's work folder, ARTIFACTS_DIR and DATA_DIR, as a job's texts name them. */
export function serverPathsOf (config: Pick<AppConfig, 'dataDir' | 'artifactsDir'>): ServerPath[] {
  return [
    { path: join(config.dataDir, 'work'), label: '[work]', jobs: true },
    { path: config.artifactsDir, label: '[artifacts]' },
    { path: config.dataDir, label: '[data]' },
  ]
}

// A path ends where a name cannot go on: `/srv/data` is not replaced inside `/srv/database`.
const PATH_END = '(?=$|[/\\s\'"`:,;()\\[\\]{}<>|])'

/** The patterns that replace the paths, most specific first: a job's upload and scratch, then each folder, longest first. */
function pathPatterns (paths: readonly ServerPath[]): Array<[RegExp, string]> {
  const variants = (path: string): string[] => {
    const trimmed = path.replace(/\/+$/, '')
    let real = trimmed
    try { real = realpathSync(trimmed) } catch { /* not there (yet): its name is what texts show */ }
    return [...new Set([trimmed, real])].filter(p => p.length > 1)
  }
  const patterns: Array<[RegExp, string]> = []
  for (const { path } of paths.filter(p => p.jobs)) {
    for (const v of variants(path)) {
      const job = `${escapeRegExp(v)}/[^/\\s'"\`:,;]+`
      patterns.push([new RegExp(`${job}/upload/file${PATH_END}`, 'g'), '[upload]'], [new RegExp(`${job}/scratch${PATH_END}`, 'g'), '[scratch]'])
    }
  }
  const plain = paths.flatMap(p => variants(p.path).map(v => [v, p.label] as const)).sort((a, b) => b[0].length - a[0].length)
  for (const [v, label] of plain) patterns.push([new RegExp(`${escapeRegExp(v)}${PATH_END}`, 'g'), label])
  return patterns
}

export class SecretScrubber {
  private readonly values: RegExp | null
  private readonly paths: Array<[RegExp, string]>

  constructor (values: Iterable<string>, options: { paths?: readonly ServerPath[] } = {}) {
    this.paths = pathPatterns(options.paths ?? [])
    const forms = new Set<string>()
    for (const value of values) {
      const trimmed = value.trim()
      if (trimmed.length < MIN_SCRUBBED_VALUE_LENGTH) continue
      for (const form of encodedForms(trimmed)) forms.add(form)
    }
    // Longest first, so a value that contains another is removed whole.
    const sorted = [...forms].sort((a, b) => b.length - a.length)
    this.values = sorted.length ? new RegExp(sorted.map(escapeRegExp).join('|'), 'g') : null
  }

  /** The text with every credential value and credential-shaped part replaced by `[redacted]`. */
  scrub (text: string): string {
    if (typeof text !== 'string' || text === '') return text
    let out = this.values ? text.replace(this.values, REDACTED) : text
    if (out.includes('=')) out = out.replace(PARAMETER, (_m, before: string, name: string, value: string) => `${before}${name}=${value === '' ? '' : REDACTED}`)
    if (out.includes('://')) out = out.replace(USERINFO, `$1${REDACTED}@`)
    if (MAYBE_HEADER.test(out)) {
      out = out.replace(HEADER, (_m, name: string, sep: string, scheme?: string) => `${name}${sep}${scheme ? `${scheme} ` : ''}${REDACTED}`)
      out = out.replace(BEARER, `$1 ${REDACTED}`)
    }
    return out
  }

  /** The text with the server's folders (ServerPath) replaced by their words: `[upload]`, `[scratch]`, `[work]`, `[data]` … */
  withoutServerPaths (text: string): string {
    if (typeof text !== 'string' || !text.includes('/')) return text
    let out = text
    for (const [pattern, label] of this.paths) out = out.replace(pattern, label)
    return out
  }

  /** A job's error, warning or stage text: credentials scrubbed and the server's paths replaced. */
  scrubJobText (text: string): string {
    return this.withoutServerPaths(this.scrub(text))
  }

  /** A job's summary: every string in it as scrubJobText. */
  scrubJobValue<T> (value: T): T {
    return mapStrings(value, text => this.scrubJobText(text))
  }

  /**
   * Only the configured credential values, not credential-shaped text: for
   * result rows, whose `?token=…` links and `password=` snippets are the
   * caller's data, while this server's own keys never belong in them.
   */
  redactKnownValues (text: string): string {
    if (!this.values || typeof text !== 'string' || text === '') return text
    return text.replace(this.values, REDACTED)
  }

  /** A JSON-like value with every string in it (not the keys) scrubbed; other values as they are. */
  scrubValue<T> (value: T): T {
    return mapStrings(value, text => this.scrub(text))
  }
}

function mapStrings<T> (value: T, map: (text: string) => string): T {
  if (typeof value === 'string') return map(value) as T
  if (Array.isArray(value)) return value.map(v => mapStrings(v, map)) as T
  if (value !== null && typeof value === 'object' && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = mapStrings(v, map)
    return out as T
  }
  return value
}

/** The app's scrubber: built once from the config and registered in the container (`secrets`). */
export function createSecretScrubber (config: AppConfig): SecretScrubber {
  return new SecretScrubber(secretValuesOf(config), { paths: serverPathsOf(config) })
}

const URL_IN_TEXT = /\b(https?|wss?|ftp):\/\/[^\s"'<>\\]+/gi

function rewriteUrls (text: string, keepPath: boolean): string {
  if (typeof text !== 'string' || !text.includes('://')) return text
  return text.replace(URL_IN_TEXT, (match) => {
    // A sentence may end right after the URL: keep that punctuation outside it.
    const trail = /[.,;:!?)\]]+$/.exec(match)?.[0] ?? ''
    const raw = trail ? match.slice(0, -trail.length) : match
    try {
      const url = new URL(raw)
      return `${url.protocol}//${url.host}${keepPath && url.pathname !== '/' ? url.pathname : ''}${trail}`
    } catch {
      const [, scheme = '', rest = ''] = /^([a-z]+:\/\/)(.*)$/i.exec(raw) ?? []
      const host = rest.replace(/^[^/?#]*@/, '').split(/[/?#]/)[0]
      return `${scheme}${host}${trail}`
    }
  })
}

/**
 * Every URL in the text cut to its origin and path: no userinfo, query or
 * fragment. What a caller reads of an upstream failure names the host it
 * failed on, never the request's parameters (keys, the caller's query).
 */
export const withoutUrlQueries = (text: string): string => rewriteUrls(text, true)

/** Every URL in the text cut to its origin: for webhook targets, whose path is often their token. */
export const urlsAsOrigins = (text: string): string => rewriteUrls(text, false)

/** A URL as its origin only (webhook targets in logs). */
export function originOf (url: string): string {
  try {
    const parsed = new URL(url)
    return parsed.origin === 'null' ? `${parsed.protocol}//` : parsed.origin
  } catch {
    return '(not a valid URL)'
  }
}
