import t from 'tap'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, usageOf, waitForEnd } from '../helpers/jobs.ts'

t.test('a tool can run another tool inside its job, charged once', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 4 }, 'relay')).json()
  const s = await waitForEnd(app, user.apiKey, id)
  t.match(s, { status: 'done', records: 4, tool: 'relay' })
  const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results
  t.same(rows, [1, 2, 3, 4].map(n => ({ n, doubled: 2 * n })))
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1)
  // A tool outside the declaration's `uses` is the plugin's bug: the job fails (refunded) without naming internals.
  for (const inner of ['webemail_nope', 'webemail']) {
    const undeclared = (await startJob(app, user.apiKey, { inner }, 'relay')).json()
    const m = await waitForEnd(app, user.apiKey, undeclared.job_id)
    t.match(m, { status: 'error', refunded: true, error: /failed unexpectedly/ }, inner)
  }
})

t.test('a nested run can nest once more: every level gets its context from the one factory', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  // relay → relay → counter: two levels below the job's own run.
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 3, inner: 'relay' }, 'relay')).json()
  const s = await waitForEnd(app, user.apiKey, id)
  t.match(s, { status: 'done', records: 3 })
  const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results
  t.same(rows, [1, 2, 3].map(n => ({ n, doubled: 2 * n })))
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'charged once')
})
