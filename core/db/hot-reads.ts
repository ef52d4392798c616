// The reads every authenticated request makes (key lookup, usage counters) go
// around Prisma's query engine: on SQLite through a read-only better-sqlite3
// connection with cached prepared statements (microseconds instead of
// hundreds), on PostgreSQL as a named prepared statement on the pool Prisma's
// adapter shares (parsed and planned once per connection; Prisma's raw query
// cost ≈ 3× the CPU of the same statement through `pg`, scripts/bench/README.md).
// `selectUnchanged` may answer from memory, but only while SQLite says nothing
// was committed since (see there), so a revoked key still fails on the very
// next request; what it keeps is the caller's conversion of the rows (an
// account record, a job's status record), made once per kept answer.
import Database from 'better-sqlite3'
import type { Pool, QueryConfig } from 'pg'
import { BoundedMap } from '../bounded-map.ts'

/** Result sets `selectUnchanged` keeps (a key, an account's usage, a job: a few hundred bytes each). */
const UNCHANGED_READS_KEPT = 2048

export interface HotReads {
  /** Which database answers (the few reads whose SQL differs: JSON paths, core/jobs/result-rows.ts). */
  readonly provider: 'sqlite' | 'postgresql'
  /** A read-only SELECT written once for both databases, with `?` placeholders. */
  select<T> (sql: string, params: Array<string | number>): Promise<T[]>
  /**
   * `convert(rows)` of the same rows as `select`, but on SQLite answered from
   * memory when the same statement and parameters were read before and no
   * connection has committed anything to the database since (`PRAGMA
   * data_version` of this reader, ≈ 3 µs against ≈ 9 µs for a joined key
   * lookup, and no conversion: the converted value is what is kept). Any
   * commit, by this process or another, drops every kept answer, so an answer
   * is never staler than `select`'s. PostgreSQL always reads and converts (no
   * equivalent counter).
   *
   * A statement has one conversion (a second one for the same SQL throws: the
   * kept answers would be the other's). The value is shared between callers:
   * read it, never change it (freeze it in `convert` where that matters).
   */
  selectUnchanged<Row, T> (sql: string, params: Array<string | number>, convert: (rows: Row[]) => T): Promise<T>
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
  let kept = new BoundedMap<{ value: unknown }>(UNCHANGED_READS_KEPT)
  // Each statement's number and conversion: a kept answer's key is the number and
  // the parameters, not the SQL text (hashing a few hundred characters each read).
  const unchangedStatements = new Map<string, { prefix: string, convert: (rows: never[]) => unknown }>()
  return {
    provider: 'sqlite',
    async select<T> (sql: string, params: Array<string | number>): Promise<T[]> {
      return select<T>(sql, params)
    },
    async selectUnchanged<Row, T> (sql: string, params: Array<string | number>, convert: (rows: Row[]) => T): Promise<T> {
      let statement = unchangedStatements.get(sql)
      if (!statement) {
        statement = { prefix: `${unchangedStatements.size}\0`, convert: convert as (rows: never[]) => unknown }
        unchangedStatements.set(sql, statement)
      } else if (statement.convert !== convert) {
        throw new Error('selectUnchanged: one conversion per statement (its kept answers are converted rows)')
      }
      // Read the version before the rows: a commit in between makes the kept
      // answer look older than it is (read again next time), never newer.
      const version = dataVersion.get()
      if (version !== keptAtVersion) {
        kept = new BoundedMap(UNCHANGED_READS_KEPT)
        keptAtVersion = version
      }
      const key = params.length === 1 ? statement.prefix + params[0] : statement.prefix + params.join('\0')
      const hit = kept.get(key)
      if (hit) return hit.value as T
      const value = convert(select<Row>(sql, params))
      kept.set(key, { value })
      return value
    },
    close: () => reader.close(),
  }
}

/** pg's type ids whose text form the hot reads convert themselves (the rest: pg's own parsers). */
const PG_INT8 = 20
const PG_TIMESTAMP = 1114

/**
 * The values Prisma's raw queries gave for the same columns, so callers see
 * no difference: `TIMESTAMP(3)` (no zone) is UTC, as Prisma writes it (pg's
 * default would read it as the process's local time), and `count(*)`'s int8 a
 * bigint (pg's default: a string).
 */
function hotReadTypeParser (pgTypes: typeof import('pg').types): NonNullable<QueryConfig['types']>['getTypeParser'] {
  const parseUtc = (text: string) => new Date(`${text.replace(' ', 'T')}Z`)
  return ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && oid === PG_TIMESTAMP) return parseUtc
    if (format !== 'binary' && oid === PG_INT8) return (text: string) => BigInt(text)
    return pgTypes.getTypeParser(oid, format as 'text')
  }) as NonNullable<QueryConfig['types']>['getTypeParser']
}

/**
 * PostgreSQL: each SQL text becomes a named prepared statement (`ejs-hot-<n>`),
 * parsed and planned once per pooled connection, then only bound and executed.
 * Always a fresh read: PostgreSQL has no commit counter as cheap as SQLite's
 * `data_version` to keep answers by.
 */
export function pgHotReads (pool: Pool, pgTypes: typeof import('pg').types): HotReads {
  const statements = new Map<string, { name: string, text: string }>()
  const types = { getTypeParser: hotReadTypeParser(pgTypes) }
  const select = async <T>(sql: string, params: Array<string | number>): Promise<T[]> => {
    let statement = statements.get(sql)
    if (!statement) {
      let i = 0
      statement = { name: `ejs-hot-${statements.size + 1}`, text: sql.replace(/\?/g, () => `$${++i}`) }
      statements.set(sql, statement)
    }
    const result = await pool.query({ name: statement.name, text: statement.text, values: params, types } as QueryConfig)
    return result.rows as T[]
  }
  return {
    provider: 'postgresql',
    select,
    async selectUnchanged<Row, T> (sql: string, params: Array<string | number>, convert: (rows: Row[]) => T): Promise<T> {
      return convert(await select<Row>(sql, params))
    },
    close: () => {},
  }
}
