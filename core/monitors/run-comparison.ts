// Comparing a monitor's run with its baseline (the identities and watched
// fields of its last successful run, monitor_items). Rows are matched by the
// tool's declared identity (`rowKey`); the nth row of one identity in a run is
// "<identity>#n" and is matched with the nth of the baseline, so two rows with
// one identity are both kept, compared and reported (`duplicate`), never
// merged. The run's rows stream through one page at a time; the baseline is
// held as a map of identity to watched text (a few tens of MB for 100,000 rows).
import type { Db } from '../db/database.ts'
import type { MonitorChangeCounts } from '../jobs/job-view.ts'

type Row = Record<string, unknown>

/** Rows written to the database at once (items and changes). */
const WRITE_BATCH = 500

type ChangeKind = 'added' | 'removed' | 'changed' | 'duplicate'

function valueAt (row: Row, path: string): unknown {
  let value: unknown = row
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Row)[part]
  }
  return value
}

/** A value as text that is the same for equal values whatever their keys' order. */
function stableText (value: unknown): string {
  if (value === undefined) return 'null'
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(stableText).join(',')}]`
  return `{${Object.keys(value).sort().map(k => `${JSON.stringify(k)}:${stableText((value as Row)[k])}`).join(',')}}`
}

const pick = (row: Row, paths: readonly string[]) => Object.fromEntries(paths.map(p => [p, valueAt(row, p) ?? null]))

export interface Comparison {
  db: Db
  monitorId: string
  runId: string
  baselineRunId: string | null
  rowKey: readonly string[]
  watch: readonly string[]
  rows: AsyncIterable<Row>
}

/**
 * Compares the run's rows with the baseline, writes the run's changes
 * (monitor_changes) and its rows' identities as the new baseline
 * (monitor_items under the run's id), and returns the counts. The caller
 * switches the monitor's baseline to this run and drops the old one.
 */
export async function compareRun (c: Comparison): Promise<MonitorChangeCounts> {
  const { db, monitorId, runId, rowKey, watch } = c
  const baseline = new Map<string, string>()
  if (c.baselineRunId) {
    for (let seq = -1; ;) {
      const page = await db.monitorItem.findMany({ where: { monitorId, runId: c.baselineRunId, seq: { gt: seq } }, orderBy: { seq: 'asc' }, take: 5000, select: { seq: true, identity: true, watched: true } })
      for (const item of page) baseline.set(item.identity, item.watched)
      if (page.length < 5000) break
      seq = page[page.length - 1]!.seq
    }
  }
  // A rerun of the comparison (an ending retried) starts from nothing.
  await db.monitorItem.deleteMany({ where: { monitorId, runId } })
  await db.monitorChange.deleteMany({ where: { jobId: runId } })

  const counts: MonitorChangeCounts = { added: 0, removed: 0, changed: 0, duplicates: 0, first_run: c.baselineRunId === null }
  const seen = new Map<string, number>()
  let items: Array<{ monitorId: string, runId: string, seq: number, identity: string, watched: string }> = []
  let changes: Array<{ jobId: string, seq: number, kind: string, identity: string, data: string }> = []
  let itemSeq = 0
  let changeSeq = 0
  const flush = async (force: boolean) => {
    if (items.length >= WRITE_BATCH || (force && items.length)) { await db.monitorItem.createMany({ data: items }); items = [] }
    if (changes.length >= WRITE_BATCH || (force && changes.length)) { await db.monitorChange.createMany({ data: changes }); changes = [] }
  }
  const change = (kind: ChangeKind, identity: string, key: Record<string, unknown>, data: Record<string, unknown>) => {
    changes.push({ jobId: runId, seq: changeSeq++, kind, identity, data: JSON.stringify({ key, ...data }) })
  }

  for await (const row of c.rows) {
    const keyValues = rowKey.map(p => valueAt(row, p) ?? null)
    const base = stableText(keyValues)
    const occurrence = (seen.get(base) ?? 0) + 1
    seen.set(base, occurrence)
    const identity = occurrence === 1 ? base : `${base}#${occurrence}`
    const key = pick(row, rowKey)
    const after = pick(row, watch)
    const watchedText = stableText(after)
    items.push({ monitorId, runId, seq: itemSeq++, identity, watched: JSON.stringify({ key, watched: after }) })
    if (occurrence > 1) { counts.duplicates++; change('duplicate', identity, key, { occurrence }) }
    const before = baseline.get(identity)
    if (before === undefined) {
      counts.added++
      change('added', identity, key, { after })
    } else {
      baseline.delete(identity)
      const previous = (JSON.parse(before) as { watched: Row }).watched
      if (stableText(previous) !== watchedText) {
        const fields: Record<string, { before: unknown, after: unknown }> = {}
        for (const field of watch) {
          if (stableText(previous[field]) !== stableText(after[field])) fields[field] = { before: previous[field] ?? null, after: after[field] }
        }
        counts.changed++
        change('changed', identity, key, { fields })
      }
    }
    await flush(false)
  }
  for (const [identity, text] of baseline) {
    const gone = JSON.parse(text) as { key: Record<string, unknown>, watched: Row }
    counts.removed++
    change('removed', identity, gone.key, { before: gone.watched })
    if (changes.length >= WRITE_BATCH) await flush(false)
  }
  await flush(true)
  return counts
}
