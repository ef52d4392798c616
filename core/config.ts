// Configuration from the environment and tools.config.json, validated once at
// boot. A bad value stops the boot with a message that names it.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { dirname, isAbsolute, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Type, type Static } from 'typebox'
import { Compile } from 'typebox/compile'

export class ConfigError extends Error {
  constructor (message: string) { super(message); this.name = 'ConfigError' }
}

/**
 * The agent tool names a key has when it has no loaded plugin (not built yet,
 * or retired): an agent calling one is told the tool is not enabled (or
 * retired), as REST's 410 says, instead of "unknown tool".
 */
const AgentNames = Type.Array(Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9_]{2,63}$' }), { maxItems: 20 })

const ToolEntry = Type.Object({
  key: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]*$' }),
  plugin: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  enabled: Type.Boolean(),
  upstream: Type.Optional(Type.Record(Type.String(), Type.String())),
  credentials: Type.Optional(Type.Record(Type.String(), Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }))),
  settings: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  agent_names: Type.Optional(AgentNames),
}, { additionalProperties: false })

const RetiredEntry = Type.Object({
  key: Type.String({ minLength: 1 }),
  replacement: Type.Union([Type.String(), Type.Null()]),
  agent_names: Type.Optional(AgentNames),
}, { additionalProperties: false })

export const ToolsFile = Type.Object({
  $comment: Type.Optional(Type.String()),
  tools: Type.Array(ToolEntry),
  retired: Type.Array(RetiredEntry),
}, { additionalProperties: false })
export type ToolsFileConfig = Static<typeof ToolsFile>
export type ToolEntryConfig = Static<typeof ToolEntry>

const toolsFileCheck = Compile(ToolsFile)

export interface AppConfig {
  host: string
  port: number
  databaseUrl: string
  databaseProvider: 'sqlite' | 'postgresql'
  /** Absolute path of the SQLite file (sqlite only). */
  sqlitePath: string | null
  dataDir: string
  /** ARTIFACTS_DIR: the directory artifact store (core/artifacts), owner-only like DATA_DIR. */
  artifactsDir: string
  /** ARTIFACTS_S3_*: job files in an S3-compatible bucket instead of ARTIFACTS_DIR; null: the directory. */
  artifactsS3: S3StoreConfig | null
  adminApiKey: string | null
  blogApiKey: string | null
  publicTokens: string[]
  secretKey: string
  rateLimitPerMinute: number
  rateLimitProPerMinute: number
  allowPrivateTargets: boolean
  /** MAX_RESPONSE_BYTES: the most decoded bytes of one upstream response body, on every fetch path (core/net). */
  maxResponseBytes: number
  // --- the door: proxies, Host/Origin, HTTP timeouts, password hashing (see "Security settings" below)
  /** fastify `trustProxy`: false (no proxy), a hop count, or the proxies' addresses/CIDRs. */
  trustProxy: false | number | string[]
  /** Extra Host names accepted (the loopback names always are while listening on loopback). */
  allowedHosts: string[]
  /** Origins accepted (`scheme://host[:port]`), besides loopback origins. */
  allowedOrigins: string[]
  requestTimeoutMs: number
  headersTimeoutMs: number
  connectionTimeoutMs: number
  keepAliveTimeoutMs: number
  passwordHashConcurrency: number
  passwordHashQueue: number
  logLevel: string
  jobConcurrency: number
  /** The extraction worker pool (core/workers/extraction-pool.ts). */
  extraction: { workers: number, taskTimeoutMs: number, workerMemoryMb: number }
  proxyUrl: string | null
  userAgent: string
  /** The media programs ctx.exec runs (core/exec). */
  exec: ExecConfig
  redisUrl: string | null
  /** PUBLIC_URL: the origin the public pages name in canonical and Open Graph URLs; null: the request's own. */
  publicUrl: string | null
  /** The distributed mode (REDIS_URL): the BullMQ queue and who runs its jobs (core/jobs/bull-queue.ts). */
  distributed: DistributedConfig
  llm: LlmConfig
  // Job lifecycle timings (JOB_TIMEOUT_SECONDS … WEBHOOK_RETRY_BASE_MS): read here, like every
  // other setting, so a bad value stops the boot instead of, say, timing every job out at once.
  jobTimeoutSeconds: number
  jobHeartbeatMs: number
  jobSweepIntervalMs: number
  syncWaitSeconds: number
  webhookRetryBaseMs: number
  toolsConfigPath: string
  tools: ToolsFileConfig
  /** Every variable the process was started with (plugins read their credentials from it). */
  env: Readonly<Record<string, string | undefined>>
}

/** ctx.exec: the media programs' binaries, limits, and the little of the environment a child gets. */
export interface ExecConfig {
  /** YTDLP_PATH, FFMPEG_PATH, FFPROBE_PATH: an absolute path, or a name looked up on `childPath`. */
  programs: { 'yt-dlp': string, ffmpeg: string, ffprobe: string }
  /** EXEC_TIMEOUT_MS: a run's default time limit. */
  timeoutMs: number
  /** EXEC_NETWORK_MAX_BYTES: the most bytes one run may move through the egress proxy. */
  networkMaxBytes: number
  /** EXEC_CPU_SECONDS: RLIMIT_CPU of every run (core/exec/sandbox.ts). */
  cpuSeconds: number
  /** EXEC_MEMORY_MB: RLIMIT_AS (address space) of every run, in MiB. */
  memoryMb: number
  /** The server's PATH, LANG and TZ: all a child inherits (no secret travels in them). */
  childPath: string
  childLang: string
  childTz: string | null
}

/** The S3-compatible bucket job files are kept in (core/artifacts/s3-store.ts). */
export interface S3StoreConfig {
  bucket: string
  region: string
  /** MinIO, R2 …: the service's URL; null: AWS S3 of the region. */
  endpoint: string | null
  accessKeyId: string
  secretAccessKey: string
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` (MinIO, most self-hosted stores). */
  forcePathStyle: boolean
  /** Prepended to every key: '' or a path ending in '/'. */
  prefix: string
}

/** REDIS_URL's queue: whether this process takes jobs off it, how many at once, how long a drain waits. */
export interface DistributedConfig {
  /** RUN_JOBS: this process runs jobs (always without REDIS_URL; with it, workers do, and an API process only when told). */
  runJobs: boolean
  /** WORKER_CONCURRENCY: jobs one process runs at once off the Redis queue. */
  workerConcurrency: number
  /** WORKER_SHUTDOWN_GRACE_MS: on SIGTERM, how long running jobs may go on before they are handed back. */
  shutdownGraceMs: number
  /** REDIS_KEY_PREFIX: the first part of the BullMQ queue's keys (several deployments, or test apps, share one Redis); the shared state's keys are fixed (`ejs:`, core/redis/README.md). */
  keyPrefix: string
}

/** The OpenAI-compatible model server behind POST /api/blog/generate. */
export interface LlmConfig {
  baseUrl: string | null
  apiKey: string | null
  /** Chat-completions model that writes the article. */
  model: string | null
  /** Image model for the featured image (POST {baseUrl}/images/generations); null: no image. */
  imageModel: string | null
  /** How long the article model may take to answer. */
  timeoutMs: number
}

type Env = Record<string, string | undefined>

function str (env: Env, name: string, fallback: string): string {
  const v = env[name]
  return v === undefined || v === '' ? fallback : v
}
function optional (env: Env, name: string): string | null {
  const v = env[name]
  return v === undefined || v.trim() === '' ? null : v.trim()
}
function int (env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  const n = Number(raw)
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`)
  return n
}
/** A value sent on the wire in a header (User-Agent, Authorization, a model name): no control characters. */
function headerSafe (env: Env, name: string): string | null {
  const v = optional(env, name)
  if (v !== null && /[\x00-\x1f\x7f]/.test(v)) throw new ConfigError(`${name} must not contain control characters (a newline, a tab …)`)
  return v
}
function urlSetting (env: Env, name: string, schemes: string[]): string | null {
  const v = optional(env, name)
  if (v === null) return null
  let parsed: URL
  try { parsed = new URL(v) } catch { throw new ConfigError(`${name} is not a valid URL`) }
  if (!schemes.includes(parsed.protocol.slice(0, -1))) throw new ConfigError(`${name} must be a ${schemes.map(s => `${s}://`).join(' or ')} URL, got "${parsed.protocol}//…"`)
  return v
}
/**
 * A program's binary (YTDLP_PATH …): a bare name, looked up on PATH, or an
 * absolute path. A relative path would depend on the directory the server was
 * started from; whether it exists is the boot's warning, not an error.
 */
function programPath (env: Env, name: string, fallback: string): string {
  const v = optional(env, name) ?? fallback
  if (/[\x00-\x1f\x7f]/.test(v)) throw new ConfigError(`${name} must not contain control characters`)
  if (v.includes('/') ? !isAbsolute(v) || v.endsWith('/') : !/^[\w.+-]+$/.test(v)) {
    throw new ConfigError(`${name} must be a program name found on PATH (e.g. ${fallback}) or an absolute path to it, got "${v}"`)
  }
  return v
}
function bool (env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false
  throw new ConfigError(`${name} must be 1/0 or true/false, got "${raw}"`)
}

/**
 * ARTIFACTS_S3_*: every variable is read (and a bad one refused) whether or not
 * the bucket is set, so a typo never passes silently; with the bucket, region and
 * both keys are required (the default AWS credential chain would read files
 * and instance metadata the operator did not name).
 */
function artifactsS3From (env: Env): S3StoreConfig | null {
  const bucket = optional(env, 'ARTIFACTS_S3_BUCKET')
  const region = optional(env, 'ARTIFACTS_S3_REGION')
  const endpoint = urlSetting(env, 'ARTIFACTS_S3_ENDPOINT', ['http', 'https'])
  const accessKeyId = headerSafe(env, 'ARTIFACTS_S3_ACCESS_KEY_ID')
  const secretAccessKey = headerSafe(env, 'ARTIFACTS_S3_SECRET_ACCESS_KEY')
  const forcePathStyle = bool(env, 'ARTIFACTS_S3_FORCE_PATH_STYLE', false)
  const rawPrefix = optional(env, 'ARTIFACTS_S3_PREFIX') ?? ''
  // S3 bucket naming rules (lower case, 3–63, no leading/trailing dot or hyphen); R2 and MinIO follow them.
  if (bucket !== null && !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError(`ARTIFACTS_S3_BUCKET must be a bucket name (3–63 lower-case letters, digits, dots and hyphens), got "${bucket}"`)
  if (region !== null && !/^[a-z0-9-]{2,32}$/.test(region)) throw new ConfigError(`ARTIFACTS_S3_REGION must be a region name such as us-east-1 (or auto for R2), got "${region}"`)
  if (accessKeyId !== null && !/^[\x21-\x7e]+$/.test(accessKeyId)) throw new ConfigError('ARTIFACTS_S3_ACCESS_KEY_ID must not contain spaces')
  // Safe characters only (AWS's list), no absolute path, no '.' or '..' segment: keys stay under the prefix.
  if (rawPrefix !== '' && (!/^[A-Za-z0-9!_.*'()/-]+$/.test(rawPrefix) || rawPrefix.startsWith('/') || rawPrefix.split('/').some(seg => seg === '.' || seg === '..') || rawPrefix.includes('//'))) {
    throw new ConfigError(`ARTIFACTS_S3_PREFIX must be a relative key prefix of letters, digits and !_.*'()/- (no leading '/', no '..'), got "${rawPrefix}"`)
  }
  if (bucket === null) return null
  if (region === null) throw new ConfigError('ARTIFACTS_S3_REGION must be set with ARTIFACTS_S3_BUCKET (the bucket\'s region; auto for R2, us-east-1 for most MinIO setups)')
  if (accessKeyId === null) throw new ConfigError('ARTIFACTS_S3_ACCESS_KEY_ID must be set with ARTIFACTS_S3_BUCKET')
  if (secretAccessKey === null) throw new ConfigError('ARTIFACTS_S3_SECRET_ACCESS_KEY must be set with ARTIFACTS_S3_BUCKET')
  const prefix = rawPrefix === '' || rawPrefix.endsWith('/') ? rawPrefix : `${rawPrefix}/`
  return { bucket, region, endpoint, accessKeyId, secretAccessKey, forcePathStyle, prefix }
}

function databaseFrom (env: Env, dataDir: string, cwd: string): Pick<AppConfig, 'databaseUrl' | 'databaseProvider' | 'sqlitePath'> {
  const url = str(env, 'DATABASE_URL', `file:${resolve(dataDir, 'app.db')}`)
  if (/^postgres(ql)?:\/\//.test(url)) {
    try { new URL(url) } catch { throw new ConfigError('DATABASE_URL is not a valid postgresql:// URL') }
    return { databaseUrl: url, databaseProvider: 'postgresql', sqlitePath: null }
  }
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length).split('?')[0]
    if (!path) throw new ConfigError('DATABASE_URL names no SQLite file')
    return { databaseUrl: url, databaseProvider: 'sqlite', sqlitePath: isAbsolute(path) ? path : resolve(cwd, path) }
  }
  throw new ConfigError('DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL)')
}

export function loadToolsFile (path: string): ToolsFileConfig {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new ConfigError(`TOOLS_CONFIG (${path}) cannot be read as JSON: ${(err as Error).message}`)
  }
  if (!toolsFileCheck.Check(parsed)) {
    const first = toolsFileCheck.Errors(parsed)[0]
    throw new ConfigError(`TOOLS_CONFIG (${path}) is invalid at "${first?.instancePath || '/'}": ${first?.message ?? 'invalid'}`)
  }
  const seen = new Set<string>()
  for (const key of [...parsed.tools.map(t => t.key), ...parsed.retired.map(r => r.key)]) {
    if (seen.has(key)) throw new ConfigError(`TOOLS_CONFIG (${path}) lists the tool key "${key}" twice`)
    seen.add(key)
  }
  return parsed
}

// --- Security settings: proxies, Host/Origin, HTTP timeouts, data at rest -----

const MIN_SECRET = 16
// proxy-addr's names for ranges, accepted in a TRUST_PROXY list.
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/**
 * TRUST_PROXY: `0` trusts no proxy (the client is the socket's peer); a hop
 * count n takes the address the n-th proxy from us saw, so a client cannot pick
 * its own address by writing the leftmost X-Forwarded-For; a comma list of
 * proxy addresses/CIDRs trusts exactly those. `true` (every hop) is refused: it
 * is what let clients rotate X-Forwarded-For.
 */
function trustProxyFrom (env: Env): AppConfig['trustProxy'] {
  const raw = (env.TRUST_PROXY ?? '').trim()
  if (raw === '' || ['false', 'no', 'off'].includes(raw.toLowerCase())) return false
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw)
    if (hops > 32) throw new ConfigError(`TRUST_PROXY must be a hop count between 0 and 32 or a list of proxy addresses, got ${raw}`)
    return hops === 0 ? false : hops
  }
  if (['true', 'yes', 'on'].includes(raw.toLowerCase())) {
    throw new ConfigError('TRUST_PROXY must be a hop count (1 = one proxy in front) or a comma list of proxy addresses/CIDRs; trusting every hop lets a client choose its address')
  }
  const entries = raw.split(',').map(e => e.trim()).filter(Boolean)
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/')
    const kind = isIP(address)
    const prefixOk = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (kind === 6 ? 128 : 32))
    if (!PROXY_RANGE_NAMES.has(entry) && (kind === 0 || !prefixOk || extra !== undefined)) {
      throw new ConfigError(`TRUST_PROXY: "${entry}" is not an IP address, a CIDR or one of loopback, linklocal, uniquelocal`)
    }
  }
  return entries
}

/** A comma list of host names (ALLOWED_HOSTS), lower-cased, without port. */
function hostList (env: Env, name: string): string[] {
  return (optional(env, name) ?? '').split(',').map(h => h.trim().toLowerCase()).filter(Boolean).map(h => {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/.test(h)) throw new ConfigError(`${name}: "${h}" is not a host name (give names without scheme or port)`)
    return h
  })
}

/** A comma list of origins (ALLOWED_ORIGINS), normalised as browsers send them: `scheme://host[:port]`. */
function originList (env: Env, name: string): string[] {
  return (optional(env, name) ?? '').split(',').map(o => o.trim()).filter(Boolean).map(o => {
    let url: URL
    try { url = new URL(o) } catch { throw new ConfigError(`${name}: "${o}" is not an origin such as https://app.example.com`) }
    if (!['http:', 'https:'].includes(url.protocol) || url.origin === 'null' || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
      throw new ConfigError(`${name}: "${o}" is not an origin such as https://app.example.com`)
    }
    return url.origin
  })
}

/** PUBLIC_URL: one origin (`https://example.com`), what the public pages' canonical and Open Graph URLs start with. */
function publicOrigin (env: Env): string | null {
  const origins = originList(env, 'PUBLIC_URL')
  if (origins.length > 1) throw new ConfigError('PUBLIC_URL must be one origin such as https://example.com, not a list')
  return origins[0] ?? null
}

/**
 * DATA_DIR holds the database, its secrets and every tenant's rows: owner-only
 * (0700), created that way and tightened at start if it was created wider.
 * A sticky directory (/tmp, /var/tmp, /dev/shm: one every user of the machine
 * shares) is refused rather than tightened: making it 0700 would lock every
 * other user out (a benchmark script of ours once did that to /tmp). A
 * world-writable one without the sticky bit is tightened as before: a volume
 * given to the service alone can be made that way (Kubernetes' emptyDir is 0777).
 */
function secureDataDir (dataDir: string, name = 'DATA_DIR'): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const mode = statSync(dataDir).mode
  if ((mode & 0o077) === 0) return
  if ((mode & 0o1000) !== 0) {
    throw new ConfigError(`${name} (${dataDir}) is a shared directory (sticky, like /tmp): point ${name} at a directory of the service's own`)
  }
  try {
    chmodSync(dataDir, 0o700)
  } catch (err) {
    throw new ConfigError(`${name} (${dataDir}) is readable by others and cannot be made owner-only (0700): ${(err as Error).message}`)
  }
}

/** Makes sure `path` is a directory we can use, or stops the boot naming the variable that chose it. */
function directory (path: string, name: string, mode?: number): string {
  try {
    mkdirSync(path, { recursive: true, mode })
    if (!statSync(path).isDirectory()) throw new Error('not a directory')
  } catch (err) {
    throw new ConfigError(`${name}: ${path} cannot be used as a directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
  return path
}

/** A secret generated on first start and kept in DATA_DIR, readable by the owner only. */
function secretKeyFrom (env: Env, dataDir: string): string {
  const given = optional(env, 'SECRET_KEY')
  if (given) {
    if (given.length < MIN_SECRET) throw new ConfigError(`SECRET_KEY must be at least ${MIN_SECRET} characters`)
    return given
  }
  const file = resolve(dataDir, 'secret.key')
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim()
    // An empty or truncated file would otherwise become a guessable encryption key.
    if (stored.length < MIN_SECRET) throw new ConfigError(`SECRET_KEY file ${file} holds ${stored.length} characters, fewer than ${MIN_SECRET}: restore it, or remove it to have a new one generated (stored personal keys then can no longer be recovered)`)
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
    return stored
  }
  const secret = randomBytes(32).toString('base64url')
  writeFileSync(file, secret + '\n', { mode: 0o600 })
  chmodSync(file, 0o600)
  return secret
}

export function loadConfig (env: Env = process.env, cwd = process.cwd()): AppConfig {
  const dataDir = directory(resolve(cwd, str(env, 'DATA_DIR', './data')), 'DATA_DIR', 0o700)
  secureDataDir(dataDir)
  // Job files are tenants' data too: owner-only, wherever the operator puts them.
  const artifactsDir = directory(resolve(cwd, str(env, 'ARTIFACTS_DIR', resolve(dataDir, 'artifacts'))), 'ARTIFACTS_DIR', 0o700)
  secureDataDir(artifactsDir, 'ARTIFACTS_DIR')
  const db = databaseFrom(env, dataDir, cwd)
  if (db.sqlitePath) directory(dirname(db.sqlitePath), 'DATABASE_URL', 0o700)
  const toolsConfigPath = resolve(cwd, str(env, 'TOOLS_CONFIG', 'tools.config.json'))
  const publicTokens = (optional(env, 'PUBLIC_TOKENS') ?? '').split(',').map(t => t.trim()).filter(Boolean)
  for (const t of publicTokens) {
    if (!t.startsWith('pub-')) throw new ConfigError('PUBLIC_TOKENS must be a comma-separated list of tokens that start with "pub-"')
  }
  const proxyUrl = urlSetting(env, 'PROXY_URL', ['http', 'https', 'socks', 'socks4', 'socks5'])
  const llmBaseUrl = urlSetting(env, 'LLM_BASE_URL', ['http', 'https'])
  const logLevel = str(env, 'LOG_LEVEL', 'info')
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`)
  const requestTimeoutMs = int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000)
  const headersTimeoutMs = int(env, 'HEADERS_TIMEOUT_MS', 15_000, 1000, 3_600_000)
  // Node refuses a headers timeout longer than the request timeout.
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs})`)
  const adminApiKey = optional(env, 'ADMIN_API_KEY')
  if (adminApiKey && adminApiKey.length < 16) throw new ConfigError('ADMIN_API_KEY must be at least 16 characters')
  const blogApiKey = optional(env, 'BLOG_API_KEY')
  if (blogApiKey && blogApiKey.length < 16) throw new ConfigError('BLOG_API_KEY must be at least 16 characters')
  const host = str(env, 'HOST', '127.0.0.1')
  if (!/^[A-Za-z0-9.:_%[\]-]+$/.test(host)) throw new ConfigError(`HOST must be a host name or an IP address, got "${host}"`)
  const userAgent = headerSafe(env, 'USER_AGENT') ?? 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
  const redisUrl = urlSetting(env, 'REDIS_URL', ['redis', 'rediss'])
  // Without Redis the one process is the only one that can run jobs: RUN_JOBS=0 would leave them queued for ever.
  const runJobs = bool(env, 'RUN_JOBS', redisUrl === null)
  if (!runJobs && redisUrl === null) throw new ConfigError('RUN_JOBS=0 needs REDIS_URL: without the Redis queue no other process runs this one\'s jobs')
  const redisKeyPrefix = str(env, 'REDIS_KEY_PREFIX', 'ejs')
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(redisKeyPrefix)) throw new ConfigError(`REDIS_KEY_PREFIX must be 1 to 64 letters, digits, '_', '.' or '-', got "${redisKeyPrefix}"`)

  return {
    host,
    port: int(env, 'PORT', 3000, 0, 65535),
    ...db,
    dataDir,
    artifactsDir,
    artifactsS3: artifactsS3From(env),
    adminApiKey,
    blogApiKey,
    publicTokens,
    secretKey: secretKeyFrom(env, dataDir),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    rateLimitProPerMinute: int(env, 'RATE_LIMIT_PRO_PER_MINUTE', 600, 1, 1_000_000),
    allowPrivateTargets: bool(env, 'ALLOW_PRIVATE_TARGETS', false),
    // At least 64 KiB (a sitemap or a search page must fit); at most 1 GiB.
    maxResponseBytes: int(env, 'MAX_RESPONSE_BYTES', 5 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    trustProxy: trustProxyFrom(env),
    allowedHosts: hostList(env, 'ALLOWED_HOSTS'),
    allowedOrigins: originList(env, 'ALLOWED_ORIGINS'),
    requestTimeoutMs,
    headersTimeoutMs,
    connectionTimeoutMs: int(env, 'CONNECTION_TIMEOUT_MS', 300_000, 1000, 86_400_000),
    keepAliveTimeoutMs: int(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 3_600_000),
    passwordHashConcurrency: int(env, 'PASSWORD_HASH_CONCURRENCY', 2, 1, 64),
    passwordHashQueue: int(env, 'PASSWORD_HASH_QUEUE', 128, 0, 10_000),
    logLevel,
    jobConcurrency: int(env, 'JOB_CONCURRENCY', 4, 1, 256),
    extraction: {
      // Small by default: a worker under tsx with the DOM and phone libraries costs ≈ 60–100 MB while it lives.
      workers: int(env, 'EXTRACT_WORKERS', 2, 1, 64),
      taskTimeoutMs: int(env, 'EXTRACT_TASK_TIMEOUT_MS', 15_000, 100, 600_000),
      workerMemoryMb: int(env, 'EXTRACT_WORKER_MEMORY_MB', 512, 32, 16_384),
    },
    proxyUrl,
    userAgent,
    exec: {
      programs: {
        'yt-dlp': programPath(env, 'YTDLP_PATH', 'yt-dlp'),
        ffmpeg: programPath(env, 'FFMPEG_PATH', 'ffmpeg'),
        ffprobe: programPath(env, 'FFPROBE_PATH', 'ffprobe'),
      },
      timeoutMs: int(env, 'EXEC_TIMEOUT_MS', 600_000, 1000, 7 * 24 * 3600_000),
      // At least 1 MiB; at most 1 TiB.
      networkMaxBytes: int(env, 'EXEC_NETWORK_MAX_BYTES', 2 * 1024 ** 3, 1024 * 1024, 1024 ** 4),
      // 15 min of one core: a long HD decode fits; a run (or an orphan) spinning on a hostile input does not go on for ever.
      cpuSeconds: int(env, 'EXEC_CPU_SECONDS', 900, 1, 7 * 24 * 3600),
      // Address space, not RSS: thread stacks and malloc arenas count whole. ffmpeg cutting 3840-wide PNGs from
      // 1080p reserved 0.54 GB with 2 threads, 0.97 GB with 16 and 1.8 GB with 64 filter threads (core/exec/README.md).
      memoryMb: int(env, 'EXEC_MEMORY_MB', 2048, 512, 1024 * 1024),
      childPath: str(env, 'PATH', '/usr/local/bin:/usr/bin:/bin'),
      childLang: 'C.UTF-8',
      childTz: optional(env, 'TZ'),
    },
    redisUrl,
    publicUrl: publicOrigin(env),
    distributed: {
      runJobs,
      workerConcurrency: int(env, 'WORKER_CONCURRENCY', 2, 1, 256),
      shutdownGraceMs: int(env, 'WORKER_SHUTDOWN_GRACE_MS', 10_000, 0, 3_600_000),
      keyPrefix: redisKeyPrefix,
    },
    llm: {
      baseUrl: llmBaseUrl,
      apiKey: headerSafe(env, 'LLM_API_KEY'),
      model: headerSafe(env, 'LLM_MODEL'),
      imageModel: headerSafe(env, 'LLM_IMAGE_MODEL'),
      timeoutMs: int(env, 'LLM_TIMEOUT_MS', 60_000, 1, 600_000),
    },
    jobTimeoutSeconds: int(env, 'JOB_TIMEOUT_SECONDS', 900, 1, 7 * 24 * 3600),
    jobHeartbeatMs: int(env, 'JOB_HEARTBEAT_MS', 5000, 10, 600_000),
    jobSweepIntervalMs: int(env, 'JOB_SWEEP_INTERVAL_MS', 60_000, 10, 24 * 3600_000),
    syncWaitSeconds: int(env, 'SYNC_WAIT_SECONDS', 90, 1, 3600),
    webhookRetryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 1000, 1, 3600_000),
    toolsConfigPath,
    tools: loadToolsFile(toolsConfigPath),
    env: { ...env },
  }
}
