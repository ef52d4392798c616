// Many rows written at once through Prisma's raw path: a multi-row INSERT (a
// job's result rows, a monitor's items and changes, a batch of job starts) and
// one UPDATE giving each of many rows its own value (a batch of monitor ticks).
// Prisma's createMany plans every call afresh in its query compiler: 500 rows
// of five columns cost ≈ 90–120 ms of CPU, the same INSERT sent raw ≈ 10 ms
// (scripts/bench/README.md, monitors.ts). The client writes each database's
// placeholders and each value as it writes its own (a Date as that database's
// timestamp); tables and columns are this code's constants, never input.
import { join, raw, sqltag } from '@prisma/client/runtime/client'
import type { Db } from './database.ts'

/** Parameters in one statement at most (SQLite allows 32,766, PostgreSQL 65,535). */
const MAX_PARAMETERS = 30_000

export type ColumnValue = string | number | Date | null

/** Inserts `rows` (each the `columns`' values in order) into `table`, in as few statements as the parameter limit allows. */
export async function insertRows (client: Pick<Db, '$executeRaw'>, table: string, columns: readonly string[], rows: ReadonlyArray<ReadonlyArray<ColumnValue>>): Promise<void> {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length))
  const head = raw(`INSERT INTO ${table} (${columns.join(', ')}) VALUES `)
  for (let at = 0; at < rows.length; at += perStatement) {
    const values = join(rows.slice(at, at + perStatement).map(row => sqltag`(${join(row)})`))
    await client.$executeRaw(sqltag`${head}${values}`)
  }
}

/**
 * Sets `column` of each row of `table` whose `key` is a pair's first value to
 * the pair's second (`UPDATE … SET column = CASE key WHEN … THEN … END WHERE
 * key IN (…)`), in as few statements as the parameter limit allows; `where`
 * adds a condition of this code's own. Returns how many rows changed.
 */
export async function updateColumn (client: Pick<Db, '$executeRaw'>, table: string, key: string, column: string, pairs: ReadonlyArray<readonly [string, ColumnValue]>, where = ''): Promise<number> {
  const perStatement = Math.floor(MAX_PARAMETERS / 3)
  let changed = 0
  for (let at = 0; at < pairs.length; at += perStatement) {
    const chunk = pairs.slice(at, at + perStatement)
    const cases = join(chunk.map(([id, value]) => sqltag`WHEN ${id} THEN ${value}`), ' ')
    changed += await client.$executeRaw(sqltag`${raw(`UPDATE ${table} SET ${column} = CASE ${key} `)}${cases}${raw(' END WHERE ')}${raw(key)} IN (${join(chunk.map(([id]) => id))})${raw(where ? ` AND ${where}` : '')}`)
  }
  return changed
}

/**
 * A unique constraint met: Prisma's P2002 from a model query, or a raw query's
 * P2010 whose driver error says so (the raw path above reports it that way).
 */
export function isUniqueViolation (err: unknown): boolean {
  const e = err as { code?: string, meta?: { driverAdapterError?: { cause?: { kind?: string } } } } | null
  return e?.code === 'P2002' || e?.meta?.driverAdapterError?.cause?.kind === 'UniqueConstraintViolation'
}
