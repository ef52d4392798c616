// Comparing a monitor's run with its baseline (the identities and watched
// fields of its last successful run, monitor_items). Rows are matched by the
// tool's declared identity (`rowKey`); the nth row of one identity in a run is
// "<identity>#n" and is matched with the nth of the baseline, so two rows with
// one identity are both kept, compared and reported (`duplicate`), never
// merged. The run's rows stream through one page at a time, as their identity
// and watched values only (the database picks them out of each row). The
// baseline is held as digests only, in typed arrays: per item, 128 bits of the
// SHA-256 of its identity and of its watched values, its seq and whether the
// run matched it (48 bytes an item whatever the rows' size; 100,000 items:
// ≈ 5 MB, where Maps of digest strings took ≈ 20 MB of objects the garbage
// collector traces); the run's identities are counted (for "#n") the same way.
// The `before` of a changed or removed item is read back by its seq, a batch
// of them at a time. Exact but for a 128-bit collision.
import { hash } from 'node:crypto'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Db } from '../db/database.ts'
import { insertRows } from '../db/insert-rows.ts'
import type { MonitorChangeCounts } from '../jobs/job-view.ts'

type Row = Record<string, unknown>

/**
 * Rows written to the database at once (items and changes), and baseline
 * items read back at once. A write goes through Prisma's raw path, which
 * serializes its parameters to JSON and parses them back: what reached the old
 * generation was mostly that, and the more a statement carries, the more of it
 * outlives a young-generation collection (a 100,000-row comparison peaked at
 * 295 MB with 500, 265 with 100, 247 with 50, 239 with 25 but took twice as
 * long; scripts/bench/README.md, monitors.ts).
 */
const WRITE_BATCH = 50
/** Baseline items read at once while loading the digests. */
const READ_PAGE = 2000
/** Rows compared between two turns of the event loop. */
const TURN_EVERY = 500

type ChangeKind = 'added' | 'removed' | 'changed' | 'duplicate'

/** A value as text that is the same for equal values whatever their keys' order. */
// Loops and concatenation, not map/join/sort over copies: this runs two or three times a row.
function stableText (value: unknown): string {
  if (value === undefined || value === null) return 'null'
  if (typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) {
    let text = '['
    for (let i = 0; i < value.length; i++) text += (i ? ',' : '') + stableText(value[i])
    return text + ']'
  }
  const keys = Object.keys(value)
  if (keys.length > 1) keys.sort()
  let text = '{'
  for (let i = 0; i < keys.length; i++) text += (i ? ',' : '') + JSON.stringify(keys[i]) + ':' + stableText((value as Row)[keys[i]!])
  return text + '}'
}

/** `stableText` of the list of `count` values from `from` (a missing one: null). */
function valuesText (values: readonly unknown[], from: number, count: number): string {
  let text = '['
  for (let i = 0; i < count; i++) text += (i ? ',' : '') + stableText(values[from + i])
  return text + ']'
}

/** 32-bit words of a digest: 128 bits of SHA-256. */
const DIGEST_WORDS = 4

/** Writes 128 bits of the text's SHA-256 into `out` (four 32-bit words) and returns it. */
// 'binary' (one character a byte): a short string, young garbage; a Buffer would be native memory
// that waits for the garbage collector.
function digestInto (text: string, out: Uint32Array): Uint32Array {
  const bytes = hash('sha256', text, 'binary')
  for (let w = 0, i = 0; w < DIGEST_WORDS; w++, i += 4) {
    out[w] = (bytes.charCodeAt(i) << 24) | (bytes.charCodeAt(i + 1) << 16) | (bytes.charCodeAt(i + 2) << 8) | bytes.charCodeAt(i + 3)
  }
  return out
}

/**
 * Digests with a few 32-bit words each (`payload`), by open addressing over
 * typed arrays: an entry is 4 × (4 + payload) bytes plus 8 of slots, in two
 * arrays the garbage collector never walks into, where a Map of digest
 * strings cost ≈ 200 bytes an entry in objects it traces. Entries keep their
 * insertion order (entry n is the nth added).
 */
class DigestTable {
  private readonly stride: number
  private words: Uint32Array
  /** Slot → entry, -1 when free; twice as many slots as entries at most. */
  private slots: Int32Array
  size = 0

  constructor (private readonly payload: number) {
    this.stride = DIGEST_WORDS + payload
    this.slots = new Int32Array(1024).fill(-1)
    this.words = new Uint32Array(512 * this.stride)
  }

  /** The entry of `digest`, or -1. */
  find (digest: Uint32Array): number {
    const mask = this.slots.length - 1
    // A SHA-256's first word is as good a hash of it as any.
    for (let slot = digest[0]! & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!
      if (entry < 0) return -1
      const at = entry * this.stride
      if (this.words[at] === digest[0] && this.words[at + 1] === digest[1] && this.words[at + 2] === digest[2] && this.words[at + 3] === digest[3]) return entry
    }
  }

  /** The entry of `digest`, added (its payload zero) when absent. */
  entry (digest: Uint32Array): number {
    const found = this.find(digest)
    if (found >= 0) return found
    if ((this.size + 1) * 2 > this.slots.length) this.grow()
    const entry = this.size++
    this.words.set(digest.subarray(0, DIGEST_WORDS), entry * this.stride)
    this.place(entry)
    return entry
  }

  /** The index of the entry's payload in `payloadWords()`. */
  payloadAt (entry: number): number { return entry * this.stride + DIGEST_WORDS }
  /** The table's words (read and write an entry's payload at `payloadAt`); valid until the next `entry`. */
  payloadWords (): Uint32Array { return this.words }

  private place (entry: number): void {
    const mask = this.slots.length - 1
    let slot = this.words[entry * this.stride]! & mask
    while (this.slots[slot]! >= 0) slot = (slot + 1) & mask
    this.slots[slot] = entry
  }

  private grow (): void {
    const words = new Uint32Array(this.words.length * 2)
    words.set(this.words)
    this.words = words
    this.slots = new Int32Array(this.slots.length * 2).fill(-1)
    for (let entry = 0; entry < this.size; entry++) this.place(entry)
  }
}

/** A baseline item as stored: the row's key and watched fields. */
interface StoredItem { key: Record<string, unknown>, watched: Row }

/** Payload words of a baseline entry: its seq, whether the run matched it, its watched digest. */
const SEQ = 0
const MATCHED = 1
const WATCHED = 2

/**
 * The baseline as digests: per identity (its digest), the item's seq, its
 * watched values' digest and whether the run matched it; 40 bytes and 8 of
 * slots an item.
 */
class BaselineDigests {
  private readonly table = new DigestTable(2 + DIGEST_WORDS)
  private readonly scratch = new Uint32Array(DIGEST_WORDS)

  add (identity: string, seq: number, watchedText: string): void {
    const entry = this.table.entry(digestInto(identity, this.scratch))
    const words = this.table.payloadWords()
    const at = this.table.payloadAt(entry)
    words[at + SEQ] = seq
    words[at + MATCHED] = 0
    words.set(digestInto(watchedText, this.scratch), at + WATCHED)
  }

  /** The baseline item of this identity not yet matched, marked matched: its seq and whether its watched digest is `watchedDigest`. */
  match (identity: string, watchedDigest: Uint32Array): { seq: number, same: boolean } | null {
    const entry = this.table.find(digestInto(identity, this.scratch))
    if (entry < 0) return null
    const words = this.table.payloadWords()
    const at = this.table.payloadAt(entry)
    if (words[at + MATCHED]) return null
    words[at + MATCHED] = 1
    const w = at + WATCHED
    const same = words[w] === watchedDigest[0] && words[w + 1] === watchedDigest[1] && words[w + 2] === watchedDigest[2] && words[w + 3] === watchedDigest[3]
    return { seq: words[at + SEQ]!, same }
  }

  /** The seqs of the items no row of the run matched, in the baseline's order. */
  * unmatched (): Generator<number> {
    for (let entry = 0; entry < this.table.size; entry++) {
      const words = this.table.payloadWords()
      const at = this.table.payloadAt(entry)
      if (!words[at + MATCHED]) yield words[at + SEQ]!
    }
  }
}

/** Rows seen per identity in the run (for the nth occurrence's "#n"): 20 bytes and 8 of slots an identity. */
class OccurrenceCounts {
  private readonly table = new DigestTable(1)
  private readonly scratch = new Uint32Array(DIGEST_WORDS)

  /** Counts one more row of this identity; returns how many so far. */
  next (identity: string): number {
    const entry = this.table.entry(digestInto(identity, this.scratch))
    const words = this.table.payloadWords()
    const at = this.table.payloadAt(entry)
    words[at] = words[at]! + 1
    return words[at]!
  }
}

/** The baseline's digests; an item's watched digest is of its values at `watch`, in that order, as the run's rows' are. */
async function loadBaseline (db: Db, monitorId: string, runId: string, watch: readonly string[]): Promise<BaselineDigests> {
  const baseline = new BaselineDigests()
  for (let seq = -1; ;) {
    const page = await db.monitorItem.findMany({ where: { monitorId, runId, seq: { gt: seq } }, orderBy: { seq: 'asc' }, take: READ_PAGE, select: { seq: true, identity: true, watched: true } })
    for (const item of page) {
      const stored = (JSON.parse(item.watched) as StoredItem).watched
      baseline.add(item.identity, item.seq, valuesText(watch.map(field => stored[field]), 0, watch.length))
    }
    if (page.length < READ_PAGE) break
    seq = page[page.length - 1]!.seq
    await nextTurn()
  }
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
  const baseline = baselineRunId ? await loadBaseline(db, monitorId, baselineRunId, watch) : null
  // A rerun of the comparison (an ending retried) starts from nothing.
  await db.monitorItem.deleteMany({ where: { monitorId, runId } })
  await db.monitorChange.deleteMany({ where: { jobId: runId } })

  const counts: MonitorChangeCounts = { added: 0, removed: 0, changed: 0, duplicates: 0, first_run: baselineRunId === null }
  const seen = new OccurrenceCounts()
  const watchedDigest = new Uint32Array(DIGEST_WORDS)
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

  // The item's stored JSON, `{"key":{…},"watched":{…}}`, written from the values as JSON.stringify would write the objects.
  const keyNames = rowKey.map(p => JSON.stringify(p) + ':')
  const watchNames = watch.map(p => JSON.stringify(p) + ':')
  const objectText = (names: readonly string[], values: readonly unknown[], from: number) => {
    let text = '{'
    for (let i = 0; i < names.length; i++) text += (i ? ',' : '') + names[i] + JSON.stringify(values[from + i] ?? null)
    return text + '}'
  }
  const named = (paths: readonly string[], values: readonly unknown[], from: number) => {
    const object: Row = {}
    for (let i = 0; i < paths.length; i++) object[paths[i]!] = values[from + i] ?? null
    return object
  }
  for await (const values of c.fields) {
    const base = valuesText(values, 0, rowKey.length)
    const occurrence = seen.next(base)
    const identity = occurrence === 1 ? base : `${base}#${occurrence}`
    items.push([monitorId, runId, itemSeq++, identity, `{"key":${objectText(keyNames, values, 0)},"watched":${objectText(watchNames, values, rowKey.length)}}`])
    if (occurrence > 1) { counts.duplicates++; change('duplicate', identity, named(rowKey, values, 0), { occurrence }) }
    const matched = baseline?.match(identity, digestInto(valuesText(values, rowKey.length, watch.length), watchedDigest))
    if (!matched) {
      counts.added++
      change('added', identity, named(rowKey, values, 0), { after: named(watch, values, rowKey.length) })
    } else if (!matched.same) {
      counts.changed++
      pending.push({ seq: changeSeq++, identity, key: named(rowKey, values, 0), after: named(watch, values, rowKey.length), baseSeq: matched.seq })
    }
    if (items.length >= WRITE_BATCH || changes.length >= WRITE_BATCH || pending.length >= WRITE_BATCH) await flush(false)
    // SQLite's driver answers synchronously: without a turn of the event loop now and then, a
    // comparison would hold the process (requests, timers) for its whole length, and native
    // memory whose release waits for a turn (finalizers) would pile up.
    if (++sinceTurn === TURN_EVERY) { sinceTurn = 0; await nextTurn() }
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
