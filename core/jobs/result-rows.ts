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
