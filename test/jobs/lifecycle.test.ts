import t from 'tap'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, usageOf, waitForEnd } from '../helpers/jobs.ts'
import { inputSummary } from '../../core/jobs/job-view.ts'

t.test('a job starts, runs, and its rows are read back in pages', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const start = await startJob(app, user.apiKey, { max_results: 7 })
  t.equal(start.statusCode, 202)
  const started = start.json()
  t.match(started, { status: 'running', tool: 'counter', poll_seconds: 2 })
  t.equal(started.status_url, `/api/tool-run/${started.job_id}/status`)
  t.equal(started.results_url, `/api/tool-run/${started.job_id}/results`)
  const final = await waitForEnd(app, user.apiKey, started.job_id)
  t.match(final, { status: 'done', done: true, has_results: true, records: 7, error: null, blocked: false, refunded: false, stage: 'done' })
  t.type(final.expires_at, 'string')

  const page1 = (await app.inject({ url: `/api/tool-run/${started.job_id}/results?limit=5`, headers: { 'x-api-key': user.apiKey } })).json()
  t.equal(page1.count, 5)
  t.same(page1.results.map((r: any) => r.n), [1, 2, 3, 4, 5])
  const page2 = (await app.inject({ url: `/api/tool-run/${started.job_id}/results?offset=5&limit=5`, headers: { 'x-api-key': user.apiKey } })).json()
  t.same(page2.results.map((r: any) => r.n), [6, 7])
  t.match(page2, { job_id: started.job_id, tool: 'counter', status: 'done' })
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1)
  t.equal((await usageOf(app, user.apiKey)).records_today, 7)
})

t.test('paging parameters out of range are 400', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 1 })).json()
  await waitForEnd(app, user.apiKey, id)
  for (const q of ['limit=0', 'limit=1001', 'offset=-1', 'limit=abc']) {
    const res = await app.inject({ url: `/api/tool-run/${id}/results?${q}`, headers: { 'x-api-key': user.apiKey } })
    t.equal(res.statusCode, 400, q)
    t.type(res.json().detail, 'string')
  }
})

t.test('tool key checks come before any charge', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const unknown = await startJob(app, user.apiKey, {}, 'countr')
  t.equal(unknown.statusCode, 400)
  t.match(unknown.json().detail, /Did you mean: counter/)
  t.same(unknown.json().did_you_mean, ['counter'])
  const retired = await startJob(app, user.apiKey, {}, 'twitter')
  t.equal(retired.statusCode, 410)
  t.match(retired.json().detail, /microblog/)
  const disabled = await startJob(app, user.apiKey, {}, 'yt')
  t.equal(disabled.statusCode, 410)
  const badParam = await startJob(app, user.apiKey, { max_results: 'many' })
  t.equal(badParam.statusCode, 400)
  t.match(badParam.json().detail, /max_results/)
  const extra = await startJob(app, user.apiKey, { nope: 1 })
  t.equal(extra.statusCode, 400)
  const noTool = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { params: {} } })
  t.equal(noTool.statusCode, 400)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0)
})

t.test('per-run ceiling: max_results is clamped, and the kernel caps what a plugin pushes', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const clamped = (await startJob(app, user.apiKey, { max_results: 5000, batch: 50 })).json()
  const a = await waitForEnd(app, user.apiKey, clamped.job_id)
  t.match(a, { status: 'done', records: 200 })
  const over = (await startJob(app, user.apiKey, { max_results: 190, batch: 7, outcome: 'overpush' })).json()
  const b = await waitForEnd(app, user.apiKey, over.job_id)
  t.match(b, { status: 'done', records: 200 })
  t.match(b.warning, /per-run ceiling/)
})

t.test('outcomes: blocked, upstream error, missing credential and crashes are refunded; bad input is not', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const cases = [
    { outcome: 'blocked', blocked: true, refunded: true, error: /refused.*429/ },
    { outcome: 'upstream', blocked: false, refunded: true, error: /upstream/ },
    { outcome: 'credential', blocked: false, refunded: true, error: /COUNTER_API_KEY/ },
    { outcome: 'crash', blocked: false, refunded: true, error: /unexpectedly/ },
    { outcome: 'bad_row', blocked: false, refunded: true, error: /unexpectedly/ },
    { outcome: 'input', blocked: false, refunded: false, error: /cannot be counted/ },
  ]
  for (const c of cases) {
    const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 4, outcome: c.outcome })).json()
    const s = await waitForEnd(app, user.apiKey, id)
    t.equal(s.status, 'error', c.outcome)
    t.equal(s.blocked, c.blocked, `${c.outcome} blocked`)
    t.equal(s.refunded, c.refunded, `${c.outcome} refunded`)
    t.match(s.error, c.error, `${c.outcome} error`)
    t.notMatch(s.error, /TypeError|boom|stack/, 'no internals leak')
    // An error job with rows keeps them readable.
    const r = await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })
    t.equal(r.statusCode, 200, `${c.outcome} results readable`)
  }
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'only the input error stays charged')
})

t.test('an empty run says why', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { outcome: 'empty' })).json()
  const s = await waitForEnd(app, user.apiKey, id)
  t.match(s, { status: 'done', records: 0, warning: 'Nothing to count.' })
})

t.test('results before done: 409 naming the status call; unknown and foreign jobs: 404', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const other = await signup(app)
  // A job that runs until it is cancelled: "before done" holds however slow the machine is.
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 1, delay_ms: 60_000 })).json()
  const early = await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })
  t.equal(early.statusCode, 409)
  t.match(early.json().detail, `GET /api/tool-run/${id}/status`)
  const earlyCsv = await app.inject({ url: `/api/tool-run/${id}/results.csv`, headers: { 'x-api-key': user.apiKey } })
  t.equal(earlyCsv.statusCode, 409)
  for (const url of [`/api/tool-run/${id}/status`, `/api/tool-run/${id}/results`, `/api/tool-run/${id}/results.csv`]) {
    t.equal((await app.inject({ url, headers: { 'x-api-key': other.apiKey } })).statusCode, 404, `foreign ${url}`)
  }
  t.equal((await app.inject({ url: '/api/tool-run/nope/status', headers: { 'x-api-key': user.apiKey } })).statusCode, 404)
  t.equal((await app.inject({ url: `/api/tool-run/${id}/status` })).statusCode, 401)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': user.apiKey } })).statusCode, 200)
})

t.test('cancel ends a running job as cancelled and refunded, the rows written before it kept; a finished job cannot be cancelled', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const headers = { 'x-api-key': user.apiKey }
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 100, delay_ms: 50 })).json()
  // Cancelled once it has written two rows (its progress events say so).
  await new Promise<void>(resolve => {
    const subscription = app.services.events.subscribe(id, event => {
      if (event.type === 'progress' && event.records >= 2) { subscription.close(); resolve() }
    })
  })
  const del = await app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers })
  t.equal(del.statusCode, 200)
  t.match(del.json(), { status: 'cancelled', error: 'cancelled', refunded: true })
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0)
  // With REDIS_URL the run is in a worker process, which stops at the cancel's signal and then
  // records its counters on the cancelled job: read until the count and the rows agree.
  let status: { records: number } & Record<string, unknown> = { records: -1 }
  let rows: { results: Array<{ n: number }> } = { results: [] }
  for (let attempt = 0; attempt < 200; attempt++) {
    status = (await app.inject({ url: `/api/tool-run/${id}/status`, headers })).json()
    rows = (await app.inject({ url: `/api/tool-run/${id}/results?limit=100`, headers })).json()
    if (status.records === rows.results.length) break
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  t.match(status, { status: 'cancelled', stage: 'cancelled', has_results: true }, 'the status record says cancelled')
  t.ok(status.records >= 2 && status.records < 100, `the rows written before the cancel are counted (${status.records})`)
  t.same(rows.results.map((r: { n: number }) => r.n), Array.from({ length: status.records }, (_, i) => i + 1), 'and kept: the results read them')
  const csv = await app.inject({ url: `/api/tool-run/${id}/results.csv`, headers })
  t.equal(csv.statusCode, 200)
  t.equal(csv.body.trim().split('\r\n').length, status.records + 1, 'and export them')
  const again = await app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': user.apiKey } })
  t.equal(again.statusCode, 409)
})

t.test('GET /api/jobs lists the caller\'s jobs newest first', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const other = await signup(app)
  const ids = []
  for (let i = 0; i < 3; i++) ids.push((await startJob(app, user.apiKey, { max_results: 1 })).json().job_id)
  await startJob(app, other.apiKey, { max_results: 1 })
  for (const id of ids) await waitForEnd(app, user.apiKey, id)
  const list = (await app.inject({ url: '/api/jobs', headers: { 'x-api-key': user.apiKey } })).json()
  t.equal(list.count, 3)
  t.same(list.jobs.map((j: any) => j.job_id), [...ids].reverse())
  t.match(list.jobs[0], { tool: 'counter', status: 'done', records: 1, input: 'done · row' })
  t.equal((await app.inject({ url: '/api/jobs?limit=2', headers: { 'x-api-key': user.apiKey } })).json().count, 2)
  // The input in short: text params, a list as its first item and how many more, at most two, cut to 120 characters.
  const long = (await startJob(app, user.apiKey, { max_results: 1, label: 'x'.repeat(300) })).json().job_id
  await waitForEnd(app, user.apiKey, long)
  const listed = (await app.inject({ url: '/api/jobs?limit=1', headers: { 'x-api-key': user.apiKey } })).json().jobs[0]
  t.equal(listed.input.length, 120, 'cut to 120 characters')
  t.match(listed.input, /^x{119}…$/, 'the caller\'s own params first')
  t.equal(inputSummary(JSON.stringify({ website: ['a.example', 'b.example', 'c.example'], max_pages: 4, include_phones: true })), 'a.example (+2 more)', 'a list reads as its first item and how many more')
  t.equal(inputSummary(JSON.stringify({ url: 'upload://clip.mp4', mode: 'interval' })), 'clip.mp4 · interval', 'an upload reads as its file name')
})

t.test('scoped tokens may only run their tools; guests cannot run tools', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const mint = await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: { 'x-api-key': user.apiKey }, payload: { name: 'other', tools: ['webemail'] } })
  t.equal(mint.statusCode, 201)
  const res = await startJob(app, mint.json().token, {})
  t.equal(res.statusCode, 403)
  const ok = await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: { 'x-api-key': user.apiKey }, payload: { name: 'counter', tools: ['counter'] } })
  t.equal((await startJob(app, ok.json().token, { max_results: 1 })).statusCode, 202)
  const guest = await startJob(app, 'pub-test-guest-token', {})
  t.equal(guest.statusCode, 403)
  t.match(guest.json().detail, /sign up/i)
})
