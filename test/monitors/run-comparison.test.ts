// compareRun on its own, over a real database, against a plain in-memory
// reference (identity → watched, the nth row of an identity "#n"): runs of
// 1,300 rows, more than a page of the items written, of the changed rows'
// `before` read back and of the removed ones, with duplicates, rows whose
// watched fields change in one field or several, rows gone and new, and keys
// and watched values that are objects written in another key order. Three runs
// in a row: each becomes the next one's baseline.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { build, signup } from '../helpers/build.ts'
import { compareRun } from '../../core/monitors/run-comparison.ts'
import { iterateRowFields } from '../../core/jobs/result-rows.ts'

type Row = Record<string, unknown>

const ROW_KEY = ['shop', 'item.id']
const WATCH = ['price', 'title', 'meta']

function catalogue (run: number): Row[] {
  const rows: Row[] = []
  for (let i = 0; i < 1300; i++) {
    if (run === 1 && i % 97 === 5) continue // gone in the second run
    if (run === 2 && i % 89 === 7) continue
    const price = run === 1 && i % 13 === 0 ? 20 : (run === 2 && i % 17 === 0 ? 30 : 10)
    const title = run === 2 && i % 51 === 0 ? `Item ${i}, renamed` : `Item ${i}`
    // The same object in another key order is the same value.
    const meta = run === 1 ? { b: 1, a: [i, { y: 2, x: 1 }] } : { a: [i, { x: 1, y: 2 }], b: 1 }
    rows.push({ shop: 's', item: { id: i, name: 'n' }, price, title, meta, other: run })
    // A duplicate identity (kept and reported, not merged), sometimes a third.
    if (i % 250 === 3) rows.push({ shop: 's', item: { id: i }, price: price + run, title, meta })
    if (i % 500 === 3 && run > 0) rows.push({ shop: 's', item: { id: i }, price: 1, title, meta })
  }
  for (let i = 0; i < 40 * run; i++) rows.push({ item: { id: `new-${run}-${i}` }, price: i, title: null, meta: null })
  return rows
}

// The reference: the whole baseline in memory.
const stable = (v: unknown): string => {
  if (v === undefined || v === null || typeof v !== 'object') return JSON.stringify(v ?? null)
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`
  return `{${Object.keys(v).sort().map(k => `${JSON.stringify(k)}:${stable((v as Row)[k])}`).join(',')}}`
}
const at = (row: Row, path: string) => path.split('.').reduce<unknown>((v, p) => (v && typeof v === 'object' ? (v as Row)[p] : undefined), row) ?? null
function reference (previous: Row[] | null, rows: Row[]) {
  const identities = (list: Row[]) => {
    const seen = new Map<string, number>()
    return list.map(row => {
      const base = stable(ROW_KEY.map(p => at(row, p)))
      const n = (seen.get(base) ?? 0) + 1
      seen.set(base, n)
      return { identity: n === 1 ? base : `${base}#${n}`, n, key: Object.fromEntries(ROW_KEY.map(p => [p, at(row, p)])), watched: Object.fromEntries(WATCH.map(p => [p, at(row, p)])) }
    })
  }
  const before = new Map(identities(previous ?? []).map(i => [i.identity, i]))
  const changes: Array<{ kind: string, identity: string, data: Row }> = []
  for (const r of identities(rows)) {
    if (r.n > 1) changes.push({ kind: 'duplicate', identity: r.identity, data: { key: r.key, occurrence: r.n } })
    const b = before.get(r.identity)
    if (!b) { changes.push({ kind: 'added', identity: r.identity, data: { key: r.key, after: r.watched } }); continue }
    before.delete(r.identity)
    const fields: Row = {}
    for (const f of WATCH) if (stable(b.watched[f]) !== stable(r.watched[f])) fields[f] = { before: b.watched[f], after: r.watched[f] }
    if (Object.keys(fields).length) changes.push({ kind: 'changed', identity: r.identity, data: { key: r.key, fields } })
  }
  for (const b of before.values()) changes.push({ kind: 'removed', identity: b.identity, data: { key: b.key, before: b.watched } })
  const count = (kind: string) => changes.filter(c => c.kind === kind).length
  return { changes, counts: { added: count('added'), removed: count('removed'), changed: count('changed'), duplicates: count('duplicate'), first_run: previous === null } }
}

t.test('each run against the last: added, removed, changed and duplicates exact, in the run\'s order', async t => {
  const app = await build(t, { features: [] })
  const { db } = app.services
  const user = await signup(app)
  const monitorId = randomUUID()
  const now = new Date()
  await db.monitor.create({ data: { id: monitorId, accountId: user.id, name: 'm', tool: 'counter', params: '{}', schedule: '{"every":"1d"}', createdAt: now, updatedAt: now } })
  let baselineRunId: string | null = null
  let previous: Row[] | null = null
  for (const run of [0, 1, 2]) {
    const runId = randomUUID()
    await db.job.create({ data: { id: runId, accountId: user.id, tool: 'counter', status: 'done', input: '{}', retentionHours: 1, maxRecords: 10_000, monitorId, createdAt: now } })
    const rows = catalogue(run)
    // Stored as a run's rows are, and read back as the comparison reads them: the values at its paths only.
    await db.resultRow.createMany({ data: rows.map((row, seq) => ({ jobId: runId, seq, data: JSON.stringify(row) })) })
    const fields = iterateRowFields(app.services.hotReads, runId, [...ROW_KEY, ...WATCH])
    const counts = await compareRun({ db, monitorId, runId, baselineRunId, rowKey: ROW_KEY, watch: WATCH, fields })
    const expected = reference(previous, rows)
    t.same(counts, expected.counts, `run ${run}: the counts`)
    const stored = await db.monitorChange.findMany({ where: { jobId: runId }, orderBy: { seq: 'asc' } })
    t.same(stored.map(c => ({ kind: c.kind, identity: c.identity, data: JSON.parse(c.data) })), expected.changes, `run ${run}: every change, in order`)
    t.same(stored.map(c => c.seq), stored.map((_, i) => i), `run ${run}: change seqs 0..n-1`)
    if (run > 0) t.ok(counts.changed > 0 && counts.removed > 0 && counts.added > 0 && counts.duplicates > 0, `run ${run} has every kind`)
    t.equal(await db.monitorItem.count({ where: { monitorId, runId } }), rows.length, `run ${run}: every row is an item of the new baseline`)
    baselineRunId = runId
    previous = rows
  }
})
