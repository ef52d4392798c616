// Comparing a monitor's run with its baseline (the identities and watched
// fields of its last successful run, monitor_items). Rows are matched by the
// tool's declared identity (`rowKey`); the nth row of one identity in a run is
// "<identity>#n" and is matched with the nth of the baseline, so two rows with
// one identity are both kept, compared and reported (`duplicate`), never
// merged. The run's rows stream through one page at a time, as their identity
// and watched values only (the database picks them out of each row). The baseline is
// held as digests only: per item, a digest of its identity and one of its
// watched values (SHA-256, 132 bits, 22 characters each) and its seq, about
// 150 bytes an item whatever the rows' size (100,000 items: ≈ 15 MB where
// the items' JSON took ≈ 250 MB). The `before` of a changed or removed item is
// read back by its seq, a page of them at a time. Exact but for a 132-bit
// collision.
import { hash } from 'node:crypto'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Db } from '../db/database.ts'
import { insertRows } from '../db/insert-rows.ts'
import type { MonitorChangeCounts } from '../jobs/job-view.ts'

type Row = Record<string, unknown>

/** Rows written to the database at once (items and changes), and baseline items read back at once. */
const WRITE_BATCH = 500
/** Baseline items read at once while loading the digests. */
const READ_PAGE = 2000

type ChangeKind = 'added' | 'removed' | 'changed' | 'duplicate'

/** A value as text that is the same for equal values whatever their keys' order. */
function stableText (value: unknown): string {
  if (value === undefined) return 'null'
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(stableText).join(',')}]`
  return `{${Object.keys(value).sort().map(k => `${JSON.stringify(k)}:${stableText((value as Row)[k])}`).join(',')}}`
}

/** A fixed-size stand-in for a text: 132 bits of its SHA-256. */
// One-shot: a Hash object per call (three a row) was native memory that waited for the garbage collector.
const digest = (text: string) => hash('sha256', text, 'base64url').slice(0, 22)

/** A baseline item as stored: the row's key and watched fields. */
interface StoredItem { key: Record<string, unknown>, watched: Row }

/**
 * The baseline as digests: identity digest → position; per position the
 * item's seq and its watched digest; which positions the run matched.
 */
class BaselineDigests {
  private readonly positions = new Map<string, number>()
  private readonly seqs: number[] = []
  private readonly watched: string[] = []
  private matched = new Uint8Array(0)

  add (identity: string, seq: number, watchedText: string): void {
    this.positions.set(digest(identity), this.seqs.length)
    this.seqs.push(seq)
    this.watched.push(digest(watchedText))
  }

  loaded (): void { this.matched = new Uint8Array(this.seqs.length) }

  /** The baseline item of this identity not yet matched, marked matched: its seq and whether its watched digest is `watchedDigest`. */
  match (identity: string, watchedDigest: string): { seq: number, same: boolean } | null {
    const at = this.positions.get(digest(identity))
    if (at === undefined || this.matched[at]) return null
    this.matched[at] = 1
    return { seq: this.seqs[at]!, same: this.watched[at] === watchedDigest }
  }

  /** The seqs of the items no row of the run matched, in the baseline's order. */
  * unmatched (): Generator<number> {
    for (let at = 0; at < this.seqs.length; at++) if (!this.matched[at]) yield this.seqs[at]!
  }
}

async function loadBaseline (db: Db, monitorId: string, runId: string): Promise<BaselineDigests> {
  const baseline = new BaselineDigests()
  for (let seq = -1; ;) {
    const page = await db.monitorItem.findMany({ where: { monitorId, runId, seq: { gt: seq } }, orderBy: { seq: 'asc' }, take: READ_PAGE, select: { seq: true, identity: true, watched: true } })
    for (const item of page) baseline.add(item.identity, item.seq, stableText((JSON.parse(item.watched) as StoredItem).watched))
    if (page.length < READ_PAGE) break
    seq = page[page.length - 1]!.seq
    await nextTurn()
  }
  baseline.loaded()
  return baseline
}

/** Baseline items by seq (at most WRITE_BATCH of them): identity and stored item. */
async function readItems (db: Db, monitorId: string, runId: string, seqs: number[]): Promise<Map<number, { identity: string, item: StoredItem }>> {
  const items = await db.monitorItem.findMany({ where: { monitorId, runId, seq: { in: seqs } }, select: { seq: true, identity: true, watched: true } })
  return new Map(items.map(i => [i.seq, { identity: i.identity, item: JSON.parse(i.watched) as StoredItem }]))
}

export interface Comparison {
  db: Db
  monitorId: string
  runId: string
  baselineRunId: string | null
  rowKey: readonly string[]
  watch: readonly string[]
  /** Each row of the run, in order, as its values at the `rowKey` paths then the `watch` paths (iterateRowFields). */
  fields: AsyncIterable<unknown[]>
}

/**
 * Compares the run's rows with the baseline, writes the run's changes
 * (monitor_changes) and its rows' identities as the new baseline
 * (monitor_items under the run's id), and returns the counts. The caller
 * switches the monitor's baseline to this run and drops the old one.
 */
export async function compareRun (c: Comparison): Promise<MonitorChangeCounts> {
  const { db, monitorId, runId, rowKey, watch } = c
  const baselineRunId = c.baselineRunId
  const baseline = baselineRunId ? await loadBaseline(db, monitorId, baselineRunId) : null
  // A rerun of the comparison (an ending retried) starts from nothing.
  await db.monitorItem.deleteMany({ where: { monitorId, runId } })
  await db.monitorChange.deleteMany({ where: { jobId: runId } })

  const counts: MonitorChangeCounts = { added: 0, removed: 0, changed: 0, duplicates: 0, first_run: baselineRunId === null }
  // Rows seen per identity (its digest), for the nth occurrence's "#n".
  const seen = new Map<string, number>()
  // Rows to insert, as their columns' values: monitor_items (monitor_id, run_id, seq, identity, watched), monitor_changes (job_id, seq, kind, identity, data).
  let items: Array<[string, string, number, string, string]> = []
  let changes: Array<[string, number, string, string, string]> = []
  // Changed rows whose `before` is still to be read back: the change's seq is taken when found, so changes keep the run's order.
  let pending: Array<{ seq: number, identity: string, key: Record<string, unknown>, after: Row, baseSeq: number }> = []
  let itemSeq = 0
  let changeSeq = 0
  const change = (kind: ChangeKind, identity: string, key: Record<string, unknown>, data: Record<string, unknown>, seq = changeSeq++) => {
    changes.push([runId, seq, kind, identity, JSON.stringify({ key, ...data })])
  }
  const resolvePending = async () => {
    if (!pending.length || !baselineRunId) return
    const before = await readItems(db, monitorId, baselineRunId, pending.map(p => p.baseSeq))
    for (const p of pending) {
      const previous = before.get(p.baseSeq)?.item.watched ?? {}
      const fields: Record<string, { before: unknown, after: unknown }> = {}
      for (const field of watch) {
        if (stableText(previous[field]) !== stableText(p.after[field])) fields[field] = { before: previous[field] ?? null, after: p.after[field] }
      }
      change('changed', p.identity, p.key, { fields }, p.seq)
    }
    pending = []
  }
  const flush = async (force: boolean) => {
    if (pending.length >= WRITE_BATCH || (force && pending.length)) await resolvePending()
    if (items.length >= WRITE_BATCH || (force && items.length)) { await insertRows(db, 'monitor_items', ['monitor_id', 'run_id', 'seq', 'identity', 'watched'], items); items = [] }
    if (changes.length >= WRITE_BATCH || (force && changes.length)) { await insertRows(db, 'monitor_changes', ['job_id', 'seq', 'kind', 'identity', 'data'], changes); changes = [] }
  }
  let sinceTurn = 0

  const named = (paths: readonly string[], values: unknown[], from: number) => Object.fromEntries(paths.map((p, i) => [p, values[from + i] ?? null]))
  for await (const values of c.fields) {
    const base = stableText(rowKey.map((_, i) => values[i] ?? null))
    const baseDigest = digest(base)
    const occurrence = (seen.get(baseDigest) ?? 0) + 1
    seen.set(baseDigest, occurrence)
    const identity = occurrence === 1 ? base : `${base}#${occurrence}`
    const key = named(rowKey, values, 0)
    const after = named(watch, values, rowKey.length)
    items.push([monitorId, runId, itemSeq++, identity, JSON.stringify({ key, watched: after })])
    if (occurrence > 1) { counts.duplicates++; change('duplicate', identity, key, { occurrence }) }
    const matched = baseline?.match(identity, digest(stableText(after)))
    if (!matched) {
      counts.added++
      change('added', identity, key, { after })
    } else if (!matched.same) {
      counts.changed++
      pending.push({ seq: changeSeq++, identity, key, after, baseSeq: matched.seq })
    }
    await flush(false)
    // SQLite's driver answers synchronously: without a turn of the event loop now and then, a
    // comparison would hold the process (requests, timers) for its whole length, and native
    // memory whose release waits for a turn (finalizers) would pile up.
    if (++sinceTurn === WRITE_BATCH) { sinceTurn = 0; await nextTurn() }
  }
  await flush(true)
  if (baseline && baselineRunId) {
    let gone: number[] = []
    const report = async () => {
      const before = await readItems(db, monitorId, baselineRunId, gone)
      for (const seq of gone) {
        const item = before.get(seq)
        if (!item) continue
        counts.removed++
        change('removed', item.identity, item.item.key, { before: item.item.watched })
      }
      gone = []
      await flush(true)
      await nextTurn()
    }
    for (const seq of baseline.unmatched()) {
      gone.push(seq)
      if (gone.length >= WRITE_BATCH) await report()
    }
    if (gone.length) await report()
  }
  return counts
}
