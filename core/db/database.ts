// The Prisma client for the configured database, over a driver adapter. The two
// generated clients (SQLite, PostgreSQL) come from one model and have the same
// API; the rest of the kernel sees one type, `Db`.
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3'
import { PrismaPg } from '@prisma/adapter-pg'
import { PrismaClient as SqliteClient } from './generated/sqlite/client.ts'
import { PrismaClient as PostgresClient } from './generated/postgres/client.ts'
import { migratePostgres, migrateSqlite } from './migrator.ts'
import { prismaHotReads, sqliteHotReads, type HotReads } from './hot-reads.ts'
import type { AppConfig } from '../config.ts'

export type Db = InstanceType<typeof SqliteClient>
export { Prisma } from './generated/sqlite/client.ts'

export interface Database {
  prisma: Db
  provider: AppConfig['databaseProvider']
  /** Migrations applied at this start. */
  applied: string[]
  /** The per-request reads, around the query engine. */
  hot: HotReads
  close (): Promise<void>
}

export async function openDatabase (config: Pick<AppConfig, 'databaseProvider' | 'databaseUrl' | 'sqlitePath'>): Promise<Database> {
  if (config.databaseProvider === 'sqlite') {
    const applied = migrateSqlite(config.sqlitePath!)
    // A generous busy timeout: the worker and the API share one file.
    const adapter = new PrismaBetterSqlite3({ url: config.sqlitePath!, timeout: 10_000 })
    const prisma = new SqliteClient({ adapter })
    await prisma.$connect()
    const hot = sqliteHotReads(config.sqlitePath!)
    return { prisma, provider: 'sqlite', applied, hot, close: async () => { hot.close(); await prisma.$disconnect() } }
  }
  const applied = await migratePostgres(config.databaseUrl)
  const adapter = new PrismaPg({ connectionString: config.databaseUrl, max: 20 })
  const prisma = new PostgresClient({ adapter }) as unknown as Db
  await prisma.$connect()
  return { prisma, provider: 'postgresql', applied, hot: prismaHotReads(prisma), close: () => prisma.$disconnect() }
}
