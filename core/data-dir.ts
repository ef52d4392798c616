// The boot step that readies the folders and the secret the configuration
// names, before any service uses them: loadConfig only reads; this writes.
// buildServices (core/services.ts) runs it, so the API server, `npm run worker`
// and every test app go through it.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { ConfigError, type AppConfig, type LoadedConfig } from './config.ts'
import { MIN_SECRET_LENGTH } from './config-schema.ts'

/**
 * DATA_DIR (the database, its secrets, every tenant's rows) and ARTIFACTS_DIR
 * made owner-only, the SQLite file's folder made, the secret key read or
 * generated: the configuration as the services take it.
 */
export function prepareDataDirs (config: LoadedConfig): AppConfig {
  directory(config.dataDir, 'DATA_DIR', 0o700)
  secureDirectory(config.dataDir, 'DATA_DIR')
  // Job files are tenants' data too: owner-only, wherever the operator puts them.
  directory(config.artifactsDir, 'ARTIFACTS_DIR', 0o700)
  secureDirectory(config.artifactsDir, 'ARTIFACTS_DIR')
  if (config.sqlitePath) directory(dirname(config.sqlitePath), 'DATABASE_URL', 0o700)
  return { ...config, secretKey: config.secretKey ?? storedSecretKey(config.dataDir) }
}

/** Makes sure `path` is a directory we can use, or stops the boot naming the variable that chose it. */
function directory (path: string, name: string, mode: number): void {
  try {
    mkdirSync(path, { recursive: true, mode })
    if (!statSync(path).isDirectory()) throw new Error('not a directory')
  } catch (err) {
    throw new ConfigError(`${name}: ${path} cannot be used as a directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
}

/**
 * Owner-only (0700), tightened at start if it was created wider. A sticky
 * directory (/tmp, /var/tmp, /dev/shm: one every user of the machine shares) is
 * refused rather than tightened: making it 0700 would lock every other user
 * out. A world-writable one without the sticky bit is tightened: a volume given
 * to the service alone can be made that way (Kubernetes' emptyDir is 0777).
 */
function secureDirectory (path: string, name: string): void {
  const mode = statSync(path).mode
  if ((mode & 0o077) === 0) return
  if ((mode & 0o1000) !== 0) {
    throw new ConfigError(`${name} (${path}) is a shared directory (sticky, like /tmp): point ${name} at a directory of the service's own`)
  }
  try {
    chmodSync(path, 0o700)
  } catch (err) {
    throw new ConfigError(`${name} (${path}) is readable by others and cannot be made owner-only (0700): ${(err as Error).message}`)
  }
}

/** Without SECRET_KEY: a secret generated on first start and kept in DATA_DIR, readable by the owner only. */
function storedSecretKey (dataDir: string): string {
  const file = resolve(dataDir, 'secret.key')
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim()
    // An empty or truncated file would otherwise become a guessable encryption key.
    if (stored.length < MIN_SECRET_LENGTH) throw new ConfigError(`SECRET_KEY file ${file} holds ${stored.length} characters, fewer than ${MIN_SECRET_LENGTH}: restore it, or remove it to have a new one generated (stored personal keys then can no longer be recovered)`)
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
    return stored
  }
  const secret = randomBytes(32).toString('base64url')
  writeFileSync(file, secret + '\n', { mode: 0o600 })
  chmodSync(file, 0o600)
  return secret
}
