// Applies the committed Prisma migrations at start, with the drivers the project
// ships (better-sqlite3, pg), so the running service never needs the Prisma CLI.
// It keeps Prisma's own `_prisma_migrations` table, so `prisma migrate status`
// run by an operator agrees with what the service applied.
import { createHash, randomUUID } from 'node:crypto'
import { chmodSync, closeSync, existsSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { SERVICE_ROOT } from '../code-location.ts'

const prismaDir = join(SERVICE_ROOT, 'prisma')
const migrationsDir = (provider: 'sqlite' | 'postgresql') =>
  provider === 'sqlite' ? join(prismaDir, 'migrations') : join(prismaDir, 'postgres', 'migrations')

interface Migration { name: string, sql: string, checksum: string }

/**
 * The committed migrations not in `done`, in order. Only those are read and
 * hashed: a start on an up-to-date database (the usual one) reads no SQL.
 */
function pendingMigrations (dir: string, done: Set<string>): Migration[] {
  if (!existsSync(dir)) throw new Error(`migrations folder ${dir} is missing`)
  return readdirSync(dir, { withFileTypes: true })
    .filter(d => d.isDirectory() && !done.has(d.name) && existsSync(join(dir, d.name, 'migration.sql')))
    .map(d => d.name)
    .sort()
    .map(name => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8')
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') }
    })
}

/** The committed migrations' names, in order (the readiness check compares them with what the database applied). */
export function committedMigrations (provider: 'sqlite' | 'postgresql'): string[] {
  const dir = migrationsDir(provider)
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).filter(d => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql'))).map(d => d.name).sort()
}

const SQLITE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
  "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
  "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`

const PG_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`

/**
 * The SQLite file and its -wal/-shm companions hold password hashes, webhook
 * secrets and every tenant's rows: owner-only (0600). The file is created that
 * way before SQLite opens it (SQLite gives -wal/-shm the mode of the database),
 * and files left wider by an earlier version are tightened at start.
 */
function secureSqliteFiles (file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600))
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
  }
}

/** Returns the names of the migrations applied by this call. */
export function migrateSqlite (file: string): string[] {
  secureSqliteFiles(file)
  const db = new Database(file)
  try {
    // WAL lets readers go on while a job writes; the setting lives in the file.
    db.pragma('journal_mode = WAL')
    // Each migration is still one transaction (applied with its record, or not at all),
    // but commits do not each wait for the disk: with WAL, NORMAL syncs at the checkpoint
    // (this connection's close) instead. A first start spent ≈ 0.1–0.25 s waiting on those
    // syncs. A crash before the checkpoint loses whole migrations, which the next start
    // applies again. The setting is this connection's only; Prisma's keeps SQLite's default.
    db.pragma('synchronous = NORMAL')
    db.exec(SQLITE_TABLE)
    const done = new Set((db.prepare('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL').all() as Array<{ migration_name: string }>).map(r => r.migration_name))
    const applied: string[] = []
    for (const m of pendingMigrations(migrationsDir('sqlite'), done)) {
      db.transaction(() => {
        db.exec(m.sql)
        db.prepare('INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, current_timestamp, ?, current_timestamp, 1)')
          .run(randomUUID(), m.checksum, m.name)
      }).immediate()
      applied.push(m.name)
    }
    return applied
  } finally {
    db.close()
    // WAL mode has just created -wal/-shm if they were missing: make sure of their mode too.
    secureSqliteFiles(file)
  }
}

export async function migratePostgres (url: string): Promise<string[]> {
  // pg loads only for a PostgreSQL database: a SQLite server never needs it.
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    // Several processes may start at once against one database: one migrates, the others wait.
    await client.query('SELECT pg_advisory_lock(72707369)')
    await client.query(PG_TABLE)
    const { rows } = await client.query('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL')
    const done = new Set(rows.map((r: { migration_name: string }) => r.migration_name))
    const applied: string[] = []
    for (const m of pendingMigrations(migrationsDir('postgresql'), done)) {
      await client.query('BEGIN')
      try {
        await client.query(m.sql)
        await client.query('INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, now(), 1)', [randomUUID(), m.checksum, m.name])
        await client.query('COMMIT')
      } catch (err) {
        await client.query('ROLLBACK')
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`)
      }
      applied.push(m.name)
    }
    return applied
  } finally {
    await client.query('SELECT pg_advisory_unlock(72707369)').catch(() => {})
    await client.end()
  }
}
