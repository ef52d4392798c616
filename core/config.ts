// Configuration from the environment (core/config-schema.ts says which
// variables, their types, defaults and ranges) and tools.config.json, validated
// once at boot. A bad value stops the boot with a message that names it.
// Reading has no side effects: core/data-dir.ts makes the folders and the secret.
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { isAbsolute, resolve } from 'node:path'
import { Type, type Static } from 'typebox'
import { Compile } from 'typebox/compile'
import { ConfigSchema, configVariables, type ConfigValues, type ConfigVariable, type VariableSchema } from './config-schema.ts'

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
  /** `pool` (the default): the tool's requests go through PROXY_URLS; `none`: it connects directly. */
  proxy: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('pool')])),
}, { additionalProperties: false })

const RetiredEntry = Type.Object({
  key: Type.String({ minLength: 1 }),
  replacement: Type.Union([Type.String(), Type.Null()]),
  agent_names: Type.Optional(AgentNames),
}, { additionalProperties: false })

const ToolsFile = Type.Object({
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
  /** The outbound proxy pool (core/net/proxy-pool.ts): PROXY_URLS, or PROXY_URL as a list of one. */
  proxy: ProxyConfig
  userAgent: string
  /** The media programs ctx.exec runs (core/exec). */
  exec: ExecConfig
  redisUrl: string | null
  /** METRICS, METRICS_PORT: core/metrics. */
  metrics: { enabled: boolean, port: number | null }
  /** READY_MIN_FREE_MB: the free space below which the process is not ready. */
  readyMinFreeMb: number
  /** OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME: core/telemetry. */
  tracing: TracingConfig
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
  webhookRetryWindowMs: number
  toolsConfigPath: string
  tools: ToolsFileConfig
  /** Every variable the process was started with (plugins read their credentials from it). */
  env: Readonly<Record<string, string | undefined>>
}

/** Where traces go (core/telemetry/tracing.ts). */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL (traces are POSTed to `<endpoint>/v1/traces`, OTLP over HTTP, protobuf); null: no tracing. */
  endpoint: string | null
  /** OTEL_SERVICE_NAME. */
  serviceName: string
  /** OTEL_TRACE_STATUS_POLLS: a span for each job status poll (off: the hot poll is not traced). */
  statusPolls: boolean
  /** OTEL_TRACES_SAMPLER, by OpenTelemetry's names. */
  sampler: 'parentbased_always_on' | 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_off' | 'parentbased_traceidratio'
  /** OTEL_TRACES_SAMPLER_ARG: the ratio samplers' share, 0–1. */
  samplerRatio: number
}

interface ProxyConfig {
  urls: string[]
  rotation: 'request' | 'job'
  failureLimit: number
  cooldownMs: number
}

/** ctx.exec: the programs' limits, the settings their profiles read, and the little of the environment a child gets. */
export interface ExecConfig {
  /**
   * The environment the configuration was read from: a program profile names
   * the variable of its binary (an absolute path, or a name looked up on
   * `childPath`) and the settings it reads; the configuration schema has
   * validated those it documents. Never passed to a child.
   */
  settings: Readonly<Record<string, string | undefined>>
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
interface DistributedConfig {
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
interface LlmConfig {
  baseUrl: string | null
  apiKey: string | null
  /** Chat-completions model that writes the article. */
  model: string | null
  /** Image model for the featured image (POST {baseUrl}/images/generations); null: no image. */
  imageModel: string | null
  /** How long the article model may take to answer. */
  timeoutMs: number
}

/**
 * What loadConfig gives: AppConfig but for the secret key, which is SECRET_KEY
 * as given, or null when the boot step (core/data-dir.ts) is to read or make
 * DATA_DIR/secret.key.
 */
export type LoadedConfig = Omit<AppConfig, 'secretKey'> & { secretKey: string | null }

type Env = Record<string, string | undefined>

const configCheck = Compile(ConfigSchema)

/** A variable's text as given, or undefined when unset or blank. */
function given (env: Env, name: string): string | undefined {
  const raw = env[name]?.trim()
  return raw === undefined || raw === '' ? undefined : raw
}

function decode (name: string, schema: VariableSchema, raw: string): unknown {
  if (schema.type === 'integer') {
    if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
    return Number(raw)
  }
  if (schema.type === 'number') {
    if (!/^(?:\d+\.?\d*|\.\d+)$/.test(raw)) throw new ConfigError(`${name} must be a number, got "${raw}"`)
    return Number(raw)
  }
  if (schema.type === 'boolean') {
    if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true
    if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false
    throw new ConfigError(`${name} must be 1/0 or true/false, got "${raw}"`)
  }
  return raw
}

/** Why a decoded value breaks its variable's schema, in the words the schema gives. */
function refusal (name: string, schema: VariableSchema, value: unknown): string {
  if (schema.type === 'integer' || schema.type === 'number') return `${name} must be between ${schema.minimum} and ${schema.maximum}, got ${String(value)}`
  if (schema.enum) return `${name} must be one of ${schema.enum.join(', ')}; got ${JSON.stringify(value)}`
  if (schema.invalid) return `${name} ${schema.invalid.replace('{value}', JSON.stringify(value))}`
  return `${name} is not valid`
}

/**
 * The environment read against ConfigSchema: every variable of it decoded and
 * checked, defaults filled; the first bad one stops the boot naming it.
 */
function readEnvironment (env: Env): ConfigValues {
  const values: Record<string, unknown> = {}
  const schemas = new Map(configVariables())
  for (const [name, schema] of schemas) {
    const raw = given(env, name)
    if (raw !== undefined) values[name] = decode(name, schema, raw)
    else if (schema.default !== undefined) values[name] = schema.default
  }
  const first = configCheck.Errors(values)[0]
  if (first) {
    const name = first.instancePath.split('/')[1] ?? ''
    const schema = schemas.get(name as ConfigVariable)
    throw new ConfigError(schema ? refusal(name, schema, values[name]) : `the configuration is invalid: ${first.message}`)
  }
  return values as ConfigValues
}

/** A URL the schema's pattern gave the scheme of: it must also parse. */
/** PROXY_URLS (a comma list) or PROXY_URL (one): the pool, each URL checked. */
function proxyUrls (single: string | undefined, list: string | undefined): string[] {
  if (single !== undefined && list !== undefined) throw new ConfigError('Set PROXY_URL (one proxy) or PROXY_URLS (a list), not both')
  if (single !== undefined) return [url('PROXY_URL', single)!]
  const urls = (list ?? '').split(',').map(entry => entry.trim()).filter(Boolean)
  for (const entry of urls) {
    if (!/^(https?|socks[45]?):\/\//.test(entry)) throw new ConfigError(`PROXY_URLS: "${entry.replace(/\/\/[^@/]*@/, '//')}" is not a http(s):// or socks(4/5):// URL`)
    url('PROXY_URLS', entry)
  }
  return [...new Set(urls)]
}

function url (name: string, value: string | undefined): string | null {
  if (value === undefined) return null
  try { new URL(value) } catch { throw new ConfigError(`${name} is not a valid URL`) }
  return value
}

/**
 * ARTIFACTS_S3_*: each variable is checked by the schema whether or not the
 * bucket is set, so a typo never passes silently; with the bucket, region and
 * both keys are required (the default AWS credential chain would read files
 * and instance metadata the operator did not name).
 */
function artifactsS3From (v: ConfigValues): S3StoreConfig | null {
  const endpoint = url('ARTIFACTS_S3_ENDPOINT', v.ARTIFACTS_S3_ENDPOINT)
  const bucket = v.ARTIFACTS_S3_BUCKET
  if (bucket === undefined) return null
  const region = v.ARTIFACTS_S3_REGION
  if (region === undefined) throw new ConfigError('ARTIFACTS_S3_REGION must be set with ARTIFACTS_S3_BUCKET (the bucket\'s region; auto for R2, us-east-1 for most MinIO setups)')
  const accessKeyId = v.ARTIFACTS_S3_ACCESS_KEY_ID
  if (accessKeyId === undefined) throw new ConfigError('ARTIFACTS_S3_ACCESS_KEY_ID must be set with ARTIFACTS_S3_BUCKET')
  const secretAccessKey = v.ARTIFACTS_S3_SECRET_ACCESS_KEY
  if (secretAccessKey === undefined) throw new ConfigError('ARTIFACTS_S3_SECRET_ACCESS_KEY must be set with ARTIFACTS_S3_BUCKET')
  const rawPrefix = v.ARTIFACTS_S3_PREFIX ?? ''
  const prefix = rawPrefix === '' || rawPrefix.endsWith('/') ? rawPrefix : `${rawPrefix}/`
  return { bucket, region, endpoint, accessKeyId, secretAccessKey, forcePathStyle: v.ARTIFACTS_S3_FORCE_PATH_STYLE, prefix }
}

function databaseFrom (given: string | undefined, dataDir: string, cwd: string): Pick<AppConfig, 'databaseUrl' | 'databaseProvider' | 'sqlitePath'> {
  const url = given ?? `file:${resolve(dataDir, 'app.db')}`
  if (!url.startsWith('file:')) {
    try { new URL(url) } catch { throw new ConfigError('DATABASE_URL is not a valid postgresql:// URL') }
    return { databaseUrl: url, databaseProvider: 'postgresql', sqlitePath: null }
  }
  const path = url.slice('file:'.length).split('?')[0]
  if (!path) throw new ConfigError('DATABASE_URL names no SQLite file')
  return { databaseUrl: url, databaseProvider: 'sqlite', sqlitePath: isAbsolute(path) ? path : resolve(cwd, path) }
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

// --- Security settings: proxies, Host/Origin -----------------------------------

// proxy-addr's names for ranges, accepted in a TRUST_PROXY list.
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/**
 * TRUST_PROXY: `0` trusts no proxy (the client is the socket's peer); a hop
 * count n takes the address the n-th proxy from us saw, so a client cannot pick
 * its own address by writing the leftmost X-Forwarded-For; a comma list of
 * proxy addresses/CIDRs trusts exactly those. `true` (every hop) is refused: it
 * is what let clients rotate X-Forwarded-For.
 */
function trustProxyFrom (value: string | undefined): AppConfig['trustProxy'] {
  const raw = value ?? ''
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
function hostList (name: string, value: string | undefined): string[] {
  return (value ?? '').split(',').map(h => h.trim().toLowerCase()).filter(Boolean).map(h => {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/.test(h)) throw new ConfigError(`${name}: "${h}" is not a host name (give names without scheme or port)`)
    return h
  })
}

/** A comma list of origins (ALLOWED_ORIGINS), normalised as browsers send them: `scheme://host[:port]`. */
function originList (name: string, value: string | undefined): string[] {
  return (value ?? '').split(',').map(o => o.trim()).filter(Boolean).map(o => {
    let url: URL
    try { url = new URL(o) } catch { throw new ConfigError(`${name}: "${o}" is not an origin such as https://app.example.com`) }
    if (!['http:', 'https:'].includes(url.protocol) || url.origin === 'null' || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
      throw new ConfigError(`${name}: "${o}" is not an origin such as https://app.example.com`)
    }
    return url.origin
  })
}

/** PUBLIC_URL: one origin (`https://example.com`), what the public pages' canonical and Open Graph URLs start with. */
function publicOrigin (value: string | undefined): string | null {
  const origins = originList('PUBLIC_URL', value)
  if (origins.length > 1) throw new ConfigError('PUBLIC_URL must be one origin such as https://example.com, not a list')
  return origins[0] ?? null
}

/**
 * Reads the environment and the tools file, and nothing else: no folder is
 * made, no file written. The boot step of core/data-dir.ts prepares DATA_DIR,
 * ARTIFACTS_DIR and the secret key before the services use them.
 */
export function loadConfig (env: Env = process.env, cwd = process.cwd()): LoadedConfig {
  const v = readEnvironment(env)
  const dataDir = resolve(cwd, v.DATA_DIR)
  const artifactsDir = resolve(cwd, v.ARTIFACTS_DIR ?? resolve(dataDir, 'artifacts'))
  // Node refuses a headers timeout longer than the request timeout.
  if (v.HEADERS_TIMEOUT_MS > v.REQUEST_TIMEOUT_MS) throw new ConfigError(`HEADERS_TIMEOUT_MS (${v.HEADERS_TIMEOUT_MS}) must not exceed REQUEST_TIMEOUT_MS (${v.REQUEST_TIMEOUT_MS})`)
  const redisUrl = url('REDIS_URL', v.REDIS_URL)
  // Without Redis the one process is the only one that can run jobs: RUN_JOBS=0 would leave them queued for ever.
  const runJobs = v.RUN_JOBS ?? redisUrl === null
  if (!runJobs && redisUrl === null) throw new ConfigError('RUN_JOBS=0 needs REDIS_URL: without the Redis queue no other process runs this one\'s jobs')
  const toolsConfigPath = resolve(cwd, v.TOOLS_CONFIG)
  // The process environment children inherit (core/exec): not settings of the service.
  const childPath = env.PATH === undefined || env.PATH === '' ? '/usr/local/bin:/usr/bin:/bin' : env.PATH

  return {
    host: v.HOST,
    port: v.PORT,
    ...databaseFrom(v.DATABASE_URL, dataDir, cwd),
    dataDir,
    artifactsDir,
    artifactsS3: artifactsS3From(v),
    adminApiKey: v.ADMIN_API_KEY ?? null,
    blogApiKey: v.BLOG_API_KEY ?? null,
    publicTokens: (v.PUBLIC_TOKENS ?? '').split(',').map(t => t.trim()).filter(Boolean),
    secretKey: v.SECRET_KEY ?? null,
    rateLimitPerMinute: v.RATE_LIMIT_PER_MINUTE,
    rateLimitProPerMinute: v.RATE_LIMIT_PRO_PER_MINUTE,
    allowPrivateTargets: v.ALLOW_PRIVATE_TARGETS,
    maxResponseBytes: v.MAX_RESPONSE_BYTES,
    trustProxy: trustProxyFrom(v.TRUST_PROXY),
    allowedHosts: hostList('ALLOWED_HOSTS', v.ALLOWED_HOSTS),
    allowedOrigins: originList('ALLOWED_ORIGINS', v.ALLOWED_ORIGINS),
    requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: v.HEADERS_TIMEOUT_MS,
    connectionTimeoutMs: v.CONNECTION_TIMEOUT_MS,
    keepAliveTimeoutMs: v.KEEP_ALIVE_TIMEOUT_MS,
    passwordHashConcurrency: v.PASSWORD_HASH_CONCURRENCY,
    passwordHashQueue: v.PASSWORD_HASH_QUEUE,
    logLevel: v.LOG_LEVEL,
    jobConcurrency: v.JOB_CONCURRENCY,
    extraction: {
      workers: v.EXTRACT_WORKERS,
      taskTimeoutMs: v.EXTRACT_TASK_TIMEOUT_MS,
      workerMemoryMb: v.EXTRACT_WORKER_MEMORY_MB,
    },
    proxy: {
      urls: proxyUrls(v.PROXY_URL, v.PROXY_URLS),
      rotation: v.PROXY_ROTATION,
      failureLimit: v.PROXY_FAILURE_LIMIT,
      cooldownMs: v.PROXY_COOLDOWN_MS,
    },
    userAgent: v.USER_AGENT,
    exec: {
      settings: { ...env },
      timeoutMs: v.EXEC_TIMEOUT_MS,
      networkMaxBytes: v.EXEC_NETWORK_MAX_BYTES,
      cpuSeconds: v.EXEC_CPU_SECONDS,
      memoryMb: v.EXEC_MEMORY_MB,
      childPath,
      childLang: 'C.UTF-8',
      childTz: env.TZ?.trim() || null,
    },
    redisUrl,
    metrics: { enabled: v.METRICS, port: v.METRICS_PORT ?? null },
    readyMinFreeMb: v.READY_MIN_FREE_MB,
    tracing: { endpoint: url('OTEL_EXPORTER_OTLP_ENDPOINT', v.OTEL_EXPORTER_OTLP_ENDPOINT), serviceName: v.OTEL_SERVICE_NAME, statusPolls: v.OTEL_TRACE_STATUS_POLLS, sampler: v.OTEL_TRACES_SAMPLER, samplerRatio: v.OTEL_TRACES_SAMPLER_ARG },
    publicUrl: publicOrigin(v.PUBLIC_URL),
    distributed: {
      runJobs,
      workerConcurrency: v.WORKER_CONCURRENCY,
      shutdownGraceMs: v.WORKER_SHUTDOWN_GRACE_MS,
      keyPrefix: v.REDIS_KEY_PREFIX,
    },
    llm: {
      baseUrl: url('LLM_BASE_URL', v.LLM_BASE_URL),
      apiKey: v.LLM_API_KEY ?? null,
      model: v.LLM_MODEL ?? null,
      imageModel: v.LLM_IMAGE_MODEL ?? null,
      timeoutMs: v.LLM_TIMEOUT_MS,
    },
    jobTimeoutSeconds: v.JOB_TIMEOUT_SECONDS,
    jobHeartbeatMs: v.JOB_HEARTBEAT_MS,
    jobSweepIntervalMs: v.JOB_SWEEP_INTERVAL_MS,
    syncWaitSeconds: v.SYNC_WAIT_SECONDS,
    webhookRetryBaseMs: v.WEBHOOK_RETRY_BASE_MS,
    webhookRetryWindowMs: v.WEBHOOK_RETRY_WINDOW_MS,
    toolsConfigPath,
    tools: loadToolsFile(toolsConfigPath),
    env: { ...env },
  }
}
