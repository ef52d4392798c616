// The row recorder on its own, over a real database: rows checked against the
// tool's row schema, stored in order with the union of their keys, cut at the
// per-run cap (which asks for the run to stop), counted on a flush in the job
// and the account's records_today, and a flush that finds the job ended
// elsewhere asks for the run to stop too.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, usageOf } from '../helpers/jobs.ts'
import { RowRecorder, type RecorderStop } from '../../core/jobs/row-recorder.ts'
import type { LiveOverlay } from '../../core/jobs/job-view.ts'
import { disabledMetrics } from '../../core/metrics/metrics.ts'

async function recorderFor (app: FastifyInstance, accountId: string, maxRecords: number) {
  const id = randomUUID()
  await app.services.db.job.create({ data: { id, accountId, tool: 'counter', status: 'running', stage: 'starting', input: '{}', retentionHours: 1, maxRecords, startedAt: new Date(), createdAt: new Date() } })
  const live: LiveOverlay = { stage: 'starting', records: 0 }
  const controller = new AbortController()
  const stops: RecorderStop[] = []
  const { db, quotas, clock, secrets, events, registry } = app.services
  const recorder = new RowRecorder({ db, quotas, clock, secrets, events, metrics: disabledMetrics() }, { id, accountId, tool: 'counter', maxRecords, columns: null }, registry.get('counter')!.rowCheck, live, controller.signal, reason => { stops.push(reason); controller.abort() })
  return { id, live, stops, recorder, controller }
}

const row = (n: number, extra?: string) => ({ n, label: 'row', text: `row ${n}`, ...(extra ? { extra } : {}) })

t.test('rows are stored in order with their columns; the cap keeps what fits, warns and asks to stop; a flush counts them', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { id, live, stops, recorder } = await recorderFor(app, user.id, 3)
  const sink = recorder.sink()
  t.equal(sink.remaining(), 3)
  t.equal(await recorder.push([row(0), row(1, 'x')]), 2)
  t.same(stops, [], 'under the cap nothing stops')
  t.equal(await recorder.push([row(2), row(3)]), 1, 'only what fits under the cap is kept')
  t.same(stops, ['cap'], 'the cap asks the run to stop')
  t.equal(await recorder.push([row(4)]), 0, 'after the stop nothing is stored')
  t.equal(live.records, 3)
  const stored = await app.services.db.resultRow.findMany({ where: { jobId: id }, orderBy: { seq: 'asc' } })
  t.same(stored.map(r => [r.seq, JSON.parse(r.data).n]), [[0, 0], [1, 1], [2, 2]])
  t.equal((await usageOf(app, user.apiKey)).records_today, 0, 'records_today follows on the flush, not on each push')
  await recorder.flush()
  const job = await app.services.db.job.findUniqueOrThrow({ where: { id } })
  t.equal(job.records, 3)
  t.same(JSON.parse(job.columns!), ['n', 'label', 'text', 'extra'], 'columns in first-seen order')
  t.equal((await usageOf(app, user.apiKey)).records_today, 3)
  const residue = recorder.residue(true)
  t.match(residue, { records: 3, summary: null, columns: JSON.stringify(['n', 'label', 'text', 'extra']) })
  t.match(residue.warning, /Results stop at 3 rows/)
})

t.test('a row outside the schema fails its push and stores nothing of the batch; texts are scrubbed and gathered', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { id, live, recorder } = await recorderFor(app, user.id, 10)
  const sink = recorder.sink()
  await t.rejects(recorder.push([row(0), { n: 'one' } as never]), /does not match its row schema at \//)
  t.equal(await app.services.db.resultRow.count({ where: { jobId: id } }), 0)
  sink.stage('reading page 2')
  t.equal(live.stage, 'reading page 2', 'the stage is what status reads in this process show')
  sink.warn('one source was slow.')
  sink.warn('one source was slow.')
  sink.warn('another was down.')
  sink.summary({ pages: 2 })
  sink.summary({ sites: 1 })
  const residue = recorder.residue(true)
  t.equal(residue.warning, 'one source was slow. another was down.', 'each warning once, in order')
  t.same(JSON.parse(residue.summary!), { pages: 2, sites: 1 })
})

t.test('an empty run that finished says so; one that failed does not', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { recorder } = await recorderFor(app, user.id, 10)
  t.equal(recorder.residue(true).warning, 'The run finished without results.')
  t.equal(recorder.residue(false).warning, null)
})

t.test('a flush that finds the job ended elsewhere asks the run to stop and leaves the ending as it was', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { id, stops, recorder } = await recorderFor(app, user.id, 10)
  await recorder.push([row(0)])
  await app.services.db.job.update({ where: { id }, data: { status: 'error', error: 'cancelled' } })
  await recorder.flush()
  t.same(stops, ['ended'])
  const job = await app.services.db.job.findUniqueOrThrow({ where: { id } })
  t.match(job, { status: 'error', error: 'cancelled', records: 0 })
})
