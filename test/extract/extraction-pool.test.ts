// The extraction worker pool (core/workers/extraction-pool.ts) through real jobs:
// a parser that throws, hangs past EXTRACT_TASK_TIMEOUT_MS or overflows the stack
// costs its own row and the job still ends done, each task counted under its
// outcome (extraction_tasks_total); the pool starts on first use and its
// threads end with the app.
import t from 'tap'
import { signup } from '../helpers/build.ts'
import { startJob, waitForEnd } from '../helpers/jobs.ts'
import { scrape, valueOf } from '../helpers/metrics.ts'
import { appWithPool, resultsOf } from './_pool-app.ts'

t.test('a parser that throws, hangs or overflows the stack gives that row an error; the job ends done with every row', async t => {
  const app = await appWithPool(t)
  const user = await signup(app)
  const before = await scrape(app)
  const start = await startJob(app, user.apiKey, { pages: ['works', 'throws', 'hangs', 'overflows', 'works'] }, 'pooled')
  t.equal(start.statusCode, 202, start.body)
  const status = await waitForEnd(app, user.apiKey, start.json().job_id, 150_000)
  t.equal(status.status, 'done')
  const rows = await resultsOf(app, user.apiKey, start.json().job_id)
  t.same(rows.map(r => [r.page, r.value, r.reason]), [
    [1, 'parsed page 1', null],
    [2, null, 'failed'],
    [3, null, 'timeout'],
    [4, null, 'too-deep'],
    [5, 'parsed page 5', null],
  ])
  t.match(rows[1]!.error, /cannot parse page 2/)
  t.match(rows[2]!.error, /longer than 2000 ms/)
  t.match(rows[3]!.error, /nested too deeply/)
  t.match(app.services.extraction.stats(), { completed: 2, failed: 3, timedOut: 1 })
  // extraction_tasks_total: each of the five tasks once, under its outcome (counted before its row was pushed).
  const after = await scrape(app)
  const outcomes = ['ok', 'failed', 'timeout', 'out-of-memory', 'crashed', 'too-deep', 'cancelled']
  const deltas = Object.fromEntries(outcomes.map(outcome => [outcome, valueOf(after, 'extraction_tasks_total', { outcome }) - valueOf(before, 'extraction_tasks_total', { outcome })]))
  t.same(deltas, { ok: 2, failed: 1, timeout: 1, 'out-of-memory': 0, crashed: 0, 'too-deep': 1, cancelled: 0 }, 'extraction_tasks_total by outcome')
  t.equal(valueOf(after, 'extraction_tasks_total') - valueOf(before, 'extraction_tasks_total'), 5, 'five tasks in all')
})

t.test('the pool starts on first use and its threads end with the app', async t => {
  const app = await appWithPool(t)
  const pool = app.services.extraction
  t.equal(pool.stats().started, false, 'no worker before the first task')
  const user = await signup(app)
  const start = await startJob(app, user.apiKey, { pages: ['works'] }, 'pooled')
  await waitForEnd(app, user.apiKey, start.json().job_id, 150_000)
  t.equal(pool.stats().threads, 1)
  await app.close()
  t.same(pool.stats(), { started: false, threads: 0, running: 0, waiting: 0, completed: 1, failed: 0, timedOut: 0 })
  await t.rejects(pool.run({ kind: 'call', module: new URL('../fixtures/plugins/pooled/parsers.ts', import.meta.url).href, name: 'works', args: ['x'] }), /closed/)
})
