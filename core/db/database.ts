// The Prisma client for the configured database, over a driver adapter. The two
// generated clients (SQLite, PostgreSQL) come from one model and have the same
// API; the rest of the kernel sees one type, `Db`.
import type { PrismaClient as SqliteClient } from '../../prisma/generated/sqlite/client.ts'
import { migratePostgres, migrateSqlite } from './migrator.ts'
import { pgHotReads, sqliteHotReads, type HotReads } from './hot-reads.ts'
import type { AppConfig } from '../config.ts'

export type Db = InstanceType<typeof SqliteClient>

export interface Database {
  prisma: Db
  provider: AppConfig['databaseProvider']
  /** Migrations applied at this start. */
  applied: string[]
  /** The per-request reads, around the query engine. */
  hot: HotReads
  close (): Promise<void>
}

/**
 * How long a transaction may wait to start (PostgreSQL: for one of the pool's 20 connections;
 * SQLite: for the one transaction the adapter runs at a time) and then run. Prisma's defaults,
 * 2 s and 5 s, failed a third of a burst of 100 parallel signups on a loaded machine with P2028
 * ("Unable to start a transaction in the given time"), and any transaction behind a 2 s one on
 * SQLite. 10 s is the SQLite busy timeout below; past it the client gets a 503 with Retry-After
 * (core/http-errors.ts), not a 500.
 */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 15_000 }

export async function openDatabase (config: Pick<AppConfig, 'databaseProvider' | 'databaseUrl' | 'sqlitePath'>): Promise<Database> {
  if (config.databaseProvider === 'sqlite') {
    const applied = migrateSqlite(config.sqlitePath!)
    // A generous busy timeout: the worker and the API share one file.
    // Only the configured provider's client and adapter are loaded (each costs memory).
    const [{ PrismaBetterSqlite3 }, { PrismaClient }] = await Promise.all([import('@prisma/adapter-better-sqlite3'), import('../../prisma/generated/sqlite/client.ts')])
    const adapter = new PrismaBetterSqlite3({ url: config.sqlitePath!, timeout: 10_000 })
    const prisma = new PrismaClient({ adapter, transactionOptions: TRANSACTION_OPTIONS })
    await prisma.$connect()
    const hot = sqliteHotReads(config.sqlitePath!)
    return { prisma, provider: 'sqlite', applied, hot, close: async () => { hot.close(); await prisma.$disconnect() } }
  }
  const applied = await migratePostgres(config.databaseUrl)
  const [{ default: pg }, { PrismaPg }, { PrismaClient }] = await Promise.all([import('pg'), import('@prisma/adapter-pg'), import('../../prisma/generated/postgres/client.ts')])
  // One pool of 20 for Prisma and the hot reads alike (the connections a process holds did not change).
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 20 })
  // An idle connection the server ends (a restart, pg_terminate_backend, a dropped database) is
  // an 'error' on the pool, which discards it and opens another when needed. Prisma's adapter
  // listens only between its connect and disconnect; without a listener for the pool's whole
  // life, one ending during the close would be thrown as an unhandled 'error' event.
  pool.on('error', () => {})
  const adapter = new PrismaPg(pool)
  const prisma = new PrismaClient({ adapter, transactionOptions: TRANSACTION_OPTIONS }) as unknown as Db
  await prisma.$connect()
  return {
    prisma,
    provider: 'postgresql',
    applied,
    hot: pgHotReads(pool, pg.types),
    // Prisma's adapter leaves a pool it was given open: ended here, after it.
    close: async () => { await prisma.$disconnect(); await pool.end() },
  }
}
