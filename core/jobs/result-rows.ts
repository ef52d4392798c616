// A job's stored rows, read one way for every reader: the results pages (REST,
// the agent endpoint, the synchronous aliases) and the streamed exports. One
// statement on the hot reader (core/db/hot-reads.ts: a prepared statement, a
// fresh read) by primary key, never Prisma: an export of 100,000 rows is 2,000
// of these reads, and a results page one.
import type { HotReads } from '../db/hot-reads.ts'

export type ResultRow = Record<string, unknown>

const ROWS_FROM_SQL = 'SELECT seq, data FROM result_rows WHERE job_id = ? AND seq >= ? ORDER BY seq LIMIT ?'

/**
 * Rows an export reads at a time. Rows can hold long texts and lists (a few
 * kB each): a page alive at a young-generation collection is promoted, and
 * V8 lets the old generation grow to about four times its live size before
 * collecting it; pages of 200 grew the process ≈ 60 MB during a 100,000-row
 * export, pages of 50 about 1 MB (core/exports/README.md).
 */
const EXPORT_PAGE_ROWS = 50

interface StoredRow { seq: number | bigint, data: string }

const storedRows = (reads: HotReads, jobId: string, fromSeq: number, limit: number) =>
  reads.select<StoredRow>(ROWS_FROM_SQL, [jobId, fromSeq, limit])

const nextSeqAfter = (stored: StoredRow[], fromSeq: number) => {
  const last = stored[stored.length - 1]
  return last ? Number(last.seq) + 1 : fromSeq
}

/** `limit` rows of the job from sequence number `fromSeq` on, in order, and where the next page starts. */
export async function readRowPage (reads: HotReads, jobId: string, fromSeq: number, limit: number): Promise<{ rows: ResultRow[], nextSeq: number }> {
  const stored = await storedRows(reads, jobId, fromSeq, limit)
  return { rows: stored.map(r => JSON.parse(r.data) as ResultRow), nextSeq: nextSeqAfter(stored, fromSeq) }
}

/**
 * Every row of the job in order, a page at a time: the caller holds one page
 * of stored text, never the job, and each row is parsed only when it is asked
 * for; the next page is read only when the caller asks for its first row (an
 * exporter asks only when the client has taken what came before:
 * backpressure, core/exports/exporters.ts).
 */
export async function * iterateRows (reads: HotReads, jobId: string, pageRows = EXPORT_PAGE_ROWS): AsyncGenerator<ResultRow> {
  let seq = 0
  for (;;) {
    const stored = await storedRows(reads, jobId, seq, pageRows)
    for (const r of stored) yield JSON.parse(r.data) as ResultRow
    if (stored.length < pageRows) return
    seq = nextSeqAfter(stored, seq)
  }
}

/** Rows whose fields `iterateRowFields` reads at a time (a few short JSON texts each): a page held while its rows are compared, small so that it dies young. */
const FIELD_PAGE_ROWS = 100

/** The SQL of a page of rows' values at `count` paths (each a parameter), as JSON texts: SQLite's `->`, PostgreSQL's `#>` over the row parsed once. */
function rowFieldsSql (provider: HotReads['provider'], count: number): string {
  const columns = Array.from({ length: count }, (_, i) => provider === 'sqlite' ? `data -> ? AS f${i}` : `(d #> ?::text[])::text AS f${i}`)
  if (provider === 'sqlite') return `SELECT seq, ${columns.join(', ')} FROM result_rows WHERE job_id = ? AND seq >= ? ORDER BY seq LIMIT ?`
  return `SELECT seq, ${columns.join(', ')} FROM (SELECT seq, data::jsonb AS d FROM result_rows WHERE job_id = ? AND seq >= ? ORDER BY seq LIMIT ?) r ORDER BY seq`
}

/** A dotted path (`item.id`) as the database's path parameter: SQLite's `$."item"."id"`, PostgreSQL's text array `{"item","id"}`. */
function pathParameter (provider: HotReads['provider'], path: string): string {
  const parts = path.split('.')
  if (provider === 'sqlite') return '$' + parts.map(p => `."${p.replace(/"/g, '""')}"`).join('')
  return `{${parts.map(p => `"${p.replace(/["\\]/g, c => `\\${c}`)}"`).join(',')}}`
}

/**
 * Every row of the job in order, as its values at `paths` (dotted paths into
 * objects; null where the row has none), a page at a time. The database picks
 * the values out (as JSON texts), so only they are parsed, never the rows: a
 * monitor's comparison of a 100,000-row run reads its rows' identities and
 * watched fields without building 100,000 row objects (scripts/bench/README.md,
 * monitors.ts). A path's part is an object's key (not a list's index).
 */
export async function * iterateRowFields (reads: HotReads, jobId: string, paths: readonly string[], pageRows = FIELD_PAGE_ROWS): AsyncGenerator<unknown[]> {
  const sql = rowFieldsSql(reads.provider, paths.length)
  const pathParams = paths.map(p => pathParameter(reads.provider, p))
  let seq = 0
  for (;;) {
    const stored = await reads.select<Record<string, unknown>>(sql, [...pathParams, jobId, seq, pageRows])
    for (const r of stored) yield paths.map((_, i) => (r[`f${i}`] === null || r[`f${i}`] === undefined ? null : JSON.parse(r[`f${i}`] as string) as unknown))
    if (stored.length < pageRows) return
    seq = Number((stored[stored.length - 1] as { seq: number | bigint }).seq) + 1
  }
}
