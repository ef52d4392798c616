// Many rows into one table as one multi-row INSERT through Prisma's raw path,
// for the writes of hundreds of rows at once (a job's result rows, a monitor's
// items and changes). Prisma's createMany plans every call afresh in its query
// compiler: 500 rows of five columns cost ≈ 90–120 ms of CPU, the same INSERT
// sent raw ≈ 10 ms (scripts/bench/README.md, monitors.ts). The client writes
// each database's placeholders; tables and columns are this code's constants,
// never input.
import { join, raw, sqltag } from '@prisma/client/runtime/client'
import type { Db } from './database.ts'

/** Parameters in one statement at most (SQLite allows 32,766, PostgreSQL 65,535). */
const MAX_PARAMETERS = 30_000

/** Inserts `rows` (each the `columns`' values in order) into `table`, in as few statements as the parameter limit allows. */
export async function insertRows (client: Pick<Db, '$executeRaw'>, table: string, columns: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): Promise<void> {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length))
  const head = raw(`INSERT INTO ${table} (${columns.join(', ')}) VALUES `)
  for (let at = 0; at < rows.length; at += perStatement) {
    const values = join(rows.slice(at, at + perStatement).map(row => sqltag`(${join(row)})`))
    await client.$executeRaw(sqltag`${head}${values}`)
  }
}
