// maps with a list of queries (or prompts) through the kernel: one search per
// entry against the Serper stand-in, rows naming their query, one charge, the
// per-run ceiling spanning the list, and /api/scrape taking the same list.
import t from 'tap'
import { signup } from '../../helpers/build.ts'
import { usageOf, waitForEnd } from '../../helpers/jobs.ts'
import { ALL_KEYS, buildMapsApp, rowsOf, runMaps } from '../../fixtures/maps/app.ts'
import { startUpstreams } from '../../fixtures/maps/upstreams.ts'

t.test('a list of queries: a search each, rows name their query, one charge', async t => {
  const up = await startUpstreams({ total: 4 })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: ALL_KEYS })
  const user = await signup(app)
  const { id, status, rows } = await runMaps(app, user.apiKey, { query: ['dentists in Austin TX', 'orthodontists in Austin TX'], source: 'serper', max_results: 3 })
  t.match(status, { status: 'done', records: 6 })
  t.same(rows.map(r => r.query), ['dentists in Austin TX', 'dentists in Austin TX', 'dentists in Austin TX', 'orthodontists in Austin TX', 'orthodontists in Austin TX', 'orthodontists in Austin TX'])
  t.same(up.serper.hits.map(h => JSON.parse(h.body).q), ['dentists in Austin TX', 'orthodontists in Austin TX'])
  const job = await app.services.db.job.findUniqueOrThrow({ where: { id } })
  t.same(JSON.parse(job.summary!).searches.map((s: any) => [s.query, s.source]), [['dentists in Austin TX', 'serper'], ['orthodontists in Austin TX', 'serper']])
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1)
})

t.test('prompts as a list through /api/scrape; a list of blanks is refused uncharged', async t => {
  const up = await startUpstreams({ total: 25 })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: ALL_KEYS })
  const user = await signup(app)
  const res = await app.inject({ method: 'POST', url: '/api/scrape', headers: { 'x-api-key': user.apiKey }, payload: { prompt: ['dentists in Austin TX', 'dentists in Denver', 'dentists in Boston'], source: 'serper', max_results: 150 } })
  t.equal(res.statusCode, 202, res.body)
  const status = await waitForEnd(app, user.apiKey, res.json().job_id, 60_000)
  const rows = await rowsOf(app, user.apiKey, res.json().job_id)
  // The stand-in holds 25 listings per search: 75 rows, under the Registered ceiling of 200.
  t.match(status, { status: 'done', records: 75 })
  t.same([...new Set(rows.map(r => r.query))], ['dentists in Austin TX', 'dentists in Denver', 'dentists in Boston'])

  const blank = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'maps', params: { query: [' '] } } })
  t.equal(blank.statusCode, 400, 'a list of blanks is no query')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'only the scrape was charged')
})
