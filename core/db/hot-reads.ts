// The reads every authenticated request makes (key lookup, usage counters) go
// around Prisma's query engine: on SQLite through a read-only better-sqlite3
// connection with cached prepared statements (microseconds instead of
// hundreds), on PostgreSQL as one raw statement. Nothing is cached between
// requests, so a revoked key fails on the very next one.
import Database from 'better-sqlite3'
import type { Db } from './database.ts'

export interface HotReads {
  /** A read-only SELECT written once for both databases, with `?` placeholders. */
  select<T> (sql: string, params: Array<string | number>): Promise<T[]>
  close (): void
}

export function sqliteHotReads (file: string): HotReads {
  // WAL mode (set by the migrator) lets this reader see every commit at once.
  const reader = new Database(file, { readonly: true, fileMustExist: true, timeout: 10_000 })
  const statements = new Map<string, Database.Statement>()
  return {
    async select<T> (sql: string, params: Array<string | number>): Promise<T[]> {
      let statement = statements.get(sql)
      if (!statement) {
        statement = reader.prepare(sql)
        statements.set(sql, statement)
      }
      return statement.all(...params) as T[]
    },
    close: () => reader.close(),
  }
}

export function prismaHotReads (db: Db): HotReads {
  const numbered = new Map<string, string>()
  return {
    async select<T> (sql: string, params: Array<string | number>): Promise<T[]> {
      let text = numbered.get(sql)
      if (!text) {
        let i = 0
        text = sql.replace(/\?/g, () => `$${++i}`)
        numbered.set(sql, text)
      }
      return db.$queryRawUnsafe<T[]>(text, ...params)
    },
    close: () => {},
  }
}
