// The reads every authenticated request makes (key lookup, usage counters) go
// around Prisma's query engine: on SQLite through a read-only better-sqlite3
// connection with cached prepared statements (microseconds instead of
// hundreds), on PostgreSQL as one raw statement. `selectUnchanged` may answer
// from memory, but only while SQLite says nothing was committed since (see
// there), so a revoked key still fails on the very next request.
import Database from 'better-sqlite3'
import type { Db } from './database.ts'
import { BoundedMap } from '../bounded-map.ts'

/** Result sets `selectUnchanged` keeps (a key, an account's usage, a job: a few hundred bytes each). */
const UNCHANGED_READS_KEPT = 2048

export interface HotReads {
  /** A read-only SELECT written once for both databases, with `?` placeholders. */
  select<T> (sql: string, params: Array<string | number>): Promise<T[]>
  /**
   * The same rows as `select`, but on SQLite answered from memory when the same
   * statement and parameters were read before and no connection has committed
   * anything to the database since (`PRAGMA data_version` of this reader, ≈ 3 µs
   * against ≈ 9 µs for a joined key lookup, and no row conversion). Any commit,
   * by this process or another, drops every kept answer, so a read is never
   * staler than `select`'s. PostgreSQL always reads (no equivalent counter).
   * The rows are shared between callers: read them, never change them.
   */
  selectUnchanged<T> (sql: string, params: Array<string | number>): Promise<readonly T[]>
  close (): void
}

export function sqliteHotReads (file: string): HotReads {
  // WAL mode (set by the migrator) lets this reader see every commit at once.
  const reader = new Database(file, { readonly: true, fileMustExist: true, timeout: 10_000 })
  const statements = new Map<string, Database.Statement>()
  const select = <T>(sql: string, params: Array<string | number>): T[] => {
    let statement = statements.get(sql)
    if (!statement) {
      statement = reader.prepare(sql)
      statements.set(sql, statement)
    }
    return statement.all(...params) as T[]
  }
  // Changes whenever another connection (the writer, another process) commits.
  const dataVersion = reader.prepare('PRAGMA data_version').pluck()
  let keptAtVersion: unknown = null
  let kept = new BoundedMap<readonly unknown[]>(UNCHANGED_READS_KEPT)
  return {
    async select<T> (sql: string, params: Array<string | number>): Promise<T[]> {
      return select<T>(sql, params)
    },
    async selectUnchanged<T> (sql: string, params: Array<string | number>): Promise<readonly T[]> {
      // Read the version before the rows: a commit in between makes the kept
      // answer look older than it is (read again next time), never newer.
      const version = dataVersion.get()
      if (version !== keptAtVersion) {
        kept = new BoundedMap(UNCHANGED_READS_KEPT)
        keptAtVersion = version
      }
      const key = sql + '\0' + params.join('\0')
      const hit = kept.get(key)
      if (hit) return hit as readonly T[]
      const rows = select<T>(sql, params)
      kept.set(key, rows)
      return rows
    },
    close: () => reader.close(),
  }
}

export function prismaHotReads (db: Db): HotReads {
  const numbered = new Map<string, string>()
  const select = async <T>(sql: string, params: Array<string | number>): Promise<T[]> => {
    let text = numbered.get(sql)
    if (!text) {
      let i = 0
      text = sql.replace(/\?/g, () => `$${++i}`)
      numbered.set(sql, text)
    }
    return db.$queryRawUnsafe<T[]>(text, ...params)
  }
  return {
    select,
    selectUnchanged: select,
    close: () => {},
  }
}
