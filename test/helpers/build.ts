// build(t): a fresh app on a real database, closed and removed in teardown.
// SQLite by default; TEST_DATABASE_URL=postgresql://… gives each app its own
// throwaway PostgreSQL database instead.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { buildApp, type BuildOptions } from '../../core/app.ts'
import type { Clock } from '../../core/clock.ts'

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
}

export const testDatabaseKind = () => (process.env.TEST_DATABASE_URL ? 'postgresql' : 'sqlite')

/** A fresh database URL for one test app (a new PostgreSQL database, or a SQLite file in dataDir). */
export async function freshDatabaseUrl (t: Teardown, dataDir: string): Promise<string> {
  const base = process.env.TEST_DATABASE_URL
  if (!base) return `file:${join(dataDir, 'app.db')}`
  const name = `t_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  t.teardown(async () => {
    const c = new pg.Client({ connectionString: base })
    await c.connect()
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await c.end()
  })
  const url = new URL(base)
  url.pathname = `/${name}`
  return url.toString()
}

export function tempDir (t: Teardown, prefix = 'ejs-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export async function build (t: Teardown, options: BuildTestOptions = {}): Promise<FastifyInstance> {
  const dataDir = options.dataDir ?? tempDir(t)
  const databaseUrl = options.databaseUrl ?? await freshDatabaseUrl(t, dataDir)
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
    // One extraction worker per test app: each app's pool boots its own worker (loading the DOM and phone libraries).
    EXTRACT_WORKERS: '1',
    ...options.env,
  }
  const lines = options.logLines
  const logStream = lines
    ? new Writable({ write (chunk, _enc, cb) { lines.push(chunk.toString()); cb() } })
    : undefined
  const app = await buildApp({ env, clock: options.clock, logStream, network: options.network, onRoute: options.onRoute })
  t.teardown(() => app.close())
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
