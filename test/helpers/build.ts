// build(t): a fresh app on a real database, closed and removed in teardown.
// SQLite by default; TEST_DATABASE_URL=postgresql://… gives each app its own
// throwaway PostgreSQL database instead. TEST_REDIS_URL=redis://… runs every
// app in the distributed mode: the app only offers jobs to the BullMQ queue
// (REDIS_URL set, RUN_JOBS unset) and a worker built beside it in this process,
// on the same database and data dir, runs them (each app has its own queue
// prefix, so apps sharing the one Redis never take each other's jobs).
//
// Each app's database starts as a copy of one migrated once per test process (a
// file copy on SQLite, CREATE DATABASE … TEMPLATE on PostgreSQL): the app's own
// migrator still runs at start and finds nothing to do. freshDatabaseUrl() stays
// an empty database, for the tests of migrating at start (restart.test.ts).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import tap from 'tap'
import { buildApp, type BuildOptions } from '../../core/app.ts'
import { migratePostgres, migrateSqlite } from '../../core/db/migrator.ts'
import { buildServices } from '../../core/services.ts'
import type { Clock } from '../../core/clock.ts'
import type { ExtractionPools } from '../../core/container.ts'
import { ExtractionPool, type ExtractionPoolOptions } from '../../core/workers/extraction-pool.ts'

export const ADMIN_KEY = 'admin-test-key-0123456789abcdef'
export const BLOG_KEY = 'blog-test-key-0123456789'
export const PUBLIC_TOKEN = 'pub-test-guest-token'

interface Teardown { teardown (fn: () => unknown): void }

export interface BuildTestOptions {
  env?: Record<string, string | undefined>
  clock?: Clock
  /** Receives every log line (for the no-secrets-in-logs test). */
  logLines?: string[]
  /** Reuse a data dir and database (restart tests). */
  dataDir?: string
  databaseUrl?: string
  /** Host resolution and private `address:port` exceptions for tool requests (makes a loopback fixture look public). */
  network?: BuildOptions['network']
  /** Sees every route the app adds (the route fuzz takes its route list from here). */
  onRoute?: BuildOptions['onRoute']
  /** Instead of the service's features (core/app.ts): [] is the kernel alone. */
  features?: BuildOptions['features']
  /**
   * false: the app is exactly what its env says: no worker beside it under
   * TEST_REDIS_URL, and with a REDIS_URL of the test's own, RUN_JOBS as given
   * (test/cluster builds its API processes this way).
   */
  distributed?: boolean
  /**
   * true: the app makes and closes its own extraction pool, as the server does (the
   * tests of the pool's life: no worker before the first task, threads end with the
   * app, its counts). By default the apps of a test process with the same EXTRACT_*
   * settings share one pool (processPools below).
   */
  ownExtractionPool?: boolean
}

/**
 * Test apps hash passwords with scrypt at N=1024 instead of the service's 16384
 * (ServicesOptions.passwordCost; a hash names its cost, so login verifies it the
 * same way): several hundred signups, and the fuzz's logins, were a large share of
 * the suite's CPU. test/kernel/login.test.ts checks the cost the service stores.
 */
const TEST_PASSWORD_COST = { N: 1024, r: 8, p: 1 }

export const testDatabaseKind = () => (process.env.TEST_DATABASE_URL ? 'postgresql' : 'sqlite')

/** A fresh, empty database URL for one test app (a new PostgreSQL database, or a SQLite file in dataDir). */
export async function freshDatabaseUrl (t: Teardown, dataDir: string): Promise<string> {
  const base = process.env.TEST_DATABASE_URL
  if (!base) return `file:${join(dataDir, 'app.db')}`
  return throwawayPostgresDatabase(t, base, '')
}

/** CREATE DATABASE on the server of TEST_DATABASE_URL (with `options`), dropped in teardown. */
async function throwawayPostgresDatabase (t: Teardown, base: string, options: string): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`
  await onPostgresServer(base, `CREATE DATABASE ${name} ${options}`)
  t.teardown(() => onPostgresServer(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  const url = new URL(base)
  url.pathname = `/${name}`
  return url.toString()
}

/** Runs one statement on the server of TEST_DATABASE_URL, outside any app database. */
async function onPostgresServer (base: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  try { await admin.query(sql) } finally { await admin.end() }
}

// The per-process migrated database (test-process state, not app state: each app still gets its own copy).
let sqliteTemplate: string | undefined
let postgresTemplate: Promise<string> | undefined

function migratedSqliteTemplate (): string {
  if (sqliteTemplate) return sqliteTemplate
  const dir = mkdtempSync(join(tmpdir(), 'ejs-template-'))
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'app.db')
  // Closing the only connection checkpoints the WAL into the file: the file alone is the database.
  migrateSqlite(file)
  sqliteTemplate = file
  return file
}

function migratedPostgresTemplate (base: string): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = `t_tpl_${randomBytes(6).toString('hex')}`
    await onPostgresServer(base, `CREATE DATABASE ${name}`)
    tap.teardown(() => onPostgresServer(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    const url = new URL(base)
    url.pathname = `/${name}`
    // migratePostgres closes its connection: CREATE DATABASE … TEMPLATE needs the template unused.
    await migratePostgres(url.toString())
    return name
  })()
  return postgresTemplate
}

// The process's extraction pools, one per pool settings (test-process state, like the
// templates above), closed when the test process ends. An app's first parse used to
// boot a worker of its own: starting a thread, tsx in it and the page libraries under
// tsx, ≈ 2 s of CPU for each app of a file (scripts/bench/README.md, "The test suite").
// The tasks still run in a real worker thread on the code in the source tree.
const sharedPools = new Map<string, ExtractionPool>()
const processPools: ExtractionPools = {
  poolFor (options: ExtractionPoolOptions): ExtractionPool {
    const key = JSON.stringify(options)
    let pool = sharedPools.get(key)
    if (!pool) {
      if (sharedPools.size === 0) tap.teardown(() => Promise.all([...sharedPools.values()].map(p => p.close())))
      pool = new ExtractionPool(options)
      sharedPools.set(key, pool)
    }
    return pool
  },
}

/** A database URL for one test app, already migrated: a copy of the per-process template. */
export async function migratedDatabaseUrl (t: Teardown, dataDir: string): Promise<string> {
  const base = process.env.TEST_DATABASE_URL
  if (!base) {
    const file = join(dataDir, 'app.db')
    copyFileSync(migratedSqliteTemplate(), file)
    return `file:${file}`
  }
  const template = await migratedPostgresTemplate(base)
  return throwawayPostgresDatabase(t, base, `TEMPLATE ${template}`)
}

export function tempDir (t: Teardown, prefix = 'ejs-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export async function build (t: Teardown, options: BuildTestOptions = {}): Promise<FastifyInstance> {
  // A given dataDir may already hold its database (a restart): it is opened as it is.
  const dataDir = options.dataDir ?? tempDir(t)
  const databaseUrl = options.databaseUrl ?? (options.dataDir ? await freshDatabaseUrl(t, dataDir) : await migratedDatabaseUrl(t, dataDir))
  const env: Record<string, string | undefined> = {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    ADMIN_API_KEY: ADMIN_KEY,
    BLOG_API_KEY: BLOG_KEY,
    PUBLIC_TOKENS: PUBLIC_TOKEN,
    SECRET_KEY: 'test-secret-key-0123456789',
    LOG_LEVEL: options.logLines ? 'trace' : 'silent',
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_PRO_PER_MINUTE: '100000',
    TOOLS_CONFIG: resolve('tools.config.json'),
    // One extraction worker: the test process's apps share their pool (processPools), its worker loads the DOM and phone libraries once.
    EXTRACT_WORKERS: '1',
    ...options.env,
  }
  const lines = options.logLines
  const logStream = lines
    ? new Writable({ write (chunk, _enc, cb) { lines.push(chunk.toString()); cb() } })
    : undefined
  const redisUrl = process.env.TEST_REDIS_URL
  const distributed = Boolean(redisUrl) && options.distributed !== false && env.REDIS_URL === undefined
  if (env.REDIS_URL !== undefined && options.distributed !== false) {
    // A test that gives its own REDIS_URL (shared state, events across apps)
    // wants processes that run their own jobs, as before the queue: each app
    // runs what it starts, from a queue of its own on that Redis.
    env.RUN_JOBS ??= '1'
    env.REDIS_KEY_PREFIX ??= `t${randomBytes(6).toString('hex')}`
  }
  if (distributed) {
    env.REDIS_URL = redisUrl
    env.REDIS_KEY_PREFIX = `t${randomBytes(6).toString('hex')}`
    // A test's slow jobs are cancelled or abandoned at its end: hand them back at once.
    env.WORKER_SHUTDOWN_GRACE_MS ??= '0'
  }
  const extractionPools = options.ownExtractionPool ? undefined : processPools
  const app = await buildApp({ env, clock: options.clock, logStream, network: options.network, onRoute: options.onRoute, features: options.features, extractionPools, passwordCost: TEST_PASSWORD_COST })
  t.teardown(() => app.close())
  if (distributed) {
    // The test's JOB_CONCURRENCY is the worker's concurrency (the app itself runs nothing).
    const worker = await buildServices({ env: { ...env, RUN_JOBS: '1', WORKER_CONCURRENCY: env.JOB_CONCURRENCY ?? '4' }, clock: options.clock, logStream, network: options.network, extractionPools, passwordCost: TEST_PASSWORD_COST })
    await worker.start()
    // The app and its worker are one "process" of the test: closing the app (a restart
    // test's first process) stops its worker too, as a stopped server would.
    let workerClosed: Promise<void> | null = null
    const closeWorker = () => (workerClosed ??= worker.close())
    const closeApp = app.close.bind(app)
    app.close = (async () => { await closeWorker(); return closeApp() }) as typeof app.close
    t.teardown(closeWorker)
  }
  return app
}

export interface TestUser { id: string, email: string, apiKey: string, password: string }

let counter = 0
export async function signup (app: FastifyInstance, overrides: { email?: string, password?: string, name?: string } = {}): Promise<TestUser> {
  const email = overrides.email ?? `user${++counter}-${randomBytes(3).toString('hex')}@example.com`
  const password = overrides.password ?? 'correct horse battery'
  const res = await app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email, password, name: overrides.name ?? 'Test User' } })
  if (res.statusCode !== 200) throw new Error(`signup failed: ${res.statusCode} ${res.body}`)
  const user = res.json().user
  return { id: user.id, email, apiKey: user.api_key, password }
}

export const withKey = (key: string | undefined): Record<string, string> => (key === undefined ? {} : { 'x-api-key': key })
