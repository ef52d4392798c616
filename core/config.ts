// Configuration from the environment and tools.config.json, validated once at
// boot. A bad value stops the boot with a message that names it.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Type, type Static } from 'typebox'
import { Compile } from 'typebox/compile'

export class ConfigError extends Error {
  constructor (message: string) { super(message); this.name = 'ConfigError' }
}

const ToolEntry = Type.Object({
  key: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]*$' }),
  plugin: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  enabled: Type.Boolean(),
  upstream: Type.Optional(Type.Record(Type.String(), Type.String())),
  credentials: Type.Optional(Type.Record(Type.String(), Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }))),
  settings: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { additionalProperties: false })

const RetiredEntry = Type.Object({
  key: Type.String({ minLength: 1 }),
  replacement: Type.Union([Type.String(), Type.Null()]),
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
  adminApiKey: string | null
  blogApiKey: string | null
  publicTokens: string[]
  secretKey: string
  rateLimitPerMinute: number
  rateLimitProPerMinute: number
  allowPrivateTargets: boolean
  trustProxy: boolean
  logLevel: string
  jobConcurrency: number
  proxyUrl: string | null
  userAgent: string
  redisUrl: string | null
  llm: { baseUrl: string | null, apiKey: string | null, model: string | null }
  toolsConfigPath: string
  tools: ToolsFileConfig
  /** Every variable the process was started with (plugins read their credentials from it). */
  env: Readonly<Record<string, string | undefined>>
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
function bool (env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false
  throw new ConfigError(`${name} must be 1/0 or true/false, got "${raw}"`)
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

/** A secret generated on first start and kept in DATA_DIR, readable by the owner only. */
function secretKeyFrom (env: Env, dataDir: string): string {
  const given = optional(env, 'SECRET_KEY')
  if (given) {
    if (given.length < 16) throw new ConfigError('SECRET_KEY must be at least 16 characters')
    return given
  }
  const file = resolve(dataDir, 'secret.key')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32).toString('base64url')
  writeFileSync(file, secret + '\n', { mode: 0o600 })
  chmodSync(file, 0o600)
  return secret
}

export function loadConfig (env: Env = process.env, cwd = process.cwd()): AppConfig {
  const dataDir = resolve(cwd, str(env, 'DATA_DIR', './data'))
  const db = databaseFrom(env, dataDir, cwd)
  if (db.sqlitePath) mkdirSync(dirname(db.sqlitePath), { recursive: true })
  const toolsConfigPath = resolve(cwd, str(env, 'TOOLS_CONFIG', 'tools.config.json'))
  const publicTokens = (optional(env, 'PUBLIC_TOKENS') ?? '').split(',').map(t => t.trim()).filter(Boolean)
  for (const t of publicTokens) {
    if (!t.startsWith('pub-')) throw new ConfigError('PUBLIC_TOKENS must be a comma-separated list of tokens that start with "pub-"')
  }
  const proxyUrl = optional(env, 'PROXY_URL')
  if (proxyUrl) { try { new URL(proxyUrl) } catch { throw new ConfigError('PROXY_URL is not a valid URL') } }
  const llmBaseUrl = optional(env, 'LLM_BASE_URL')
  if (llmBaseUrl) { try { new URL(llmBaseUrl) } catch { throw new ConfigError('LLM_BASE_URL is not a valid URL') } }
  const logLevel = str(env, 'LOG_LEVEL', 'info')
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`)
  const adminApiKey = optional(env, 'ADMIN_API_KEY')
  if (adminApiKey && adminApiKey.length < 16) throw new ConfigError('ADMIN_API_KEY must be at least 16 characters')

  return {
    host: str(env, 'HOST', '127.0.0.1'),
    port: int(env, 'PORT', 3000, 0, 65535),
    ...db,
    dataDir,
    adminApiKey,
    blogApiKey: optional(env, 'BLOG_API_KEY'),
    publicTokens,
    secretKey: secretKeyFrom(env, dataDir),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    rateLimitProPerMinute: int(env, 'RATE_LIMIT_PRO_PER_MINUTE', 600, 1, 1_000_000),
    allowPrivateTargets: bool(env, 'ALLOW_PRIVATE_TARGETS', false),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    logLevel,
    jobConcurrency: int(env, 'JOB_CONCURRENCY', 4, 1, 256),
    proxyUrl,
    userAgent: str(env, 'USER_AGENT', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'),
    redisUrl: optional(env, 'REDIS_URL'),
    llm: { baseUrl: llmBaseUrl, apiKey: optional(env, 'LLM_API_KEY'), model: optional(env, 'LLM_MODEL') },
    toolsConfigPath,
    tools: loadToolsFile(toolsConfigPath),
    env: { ...env },
  }
}
