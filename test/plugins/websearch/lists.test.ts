// A list of queries through the kernel: one search per query against a local
// Serper stand-in (POST /search, X-API-KEY), every row naming its query, one
// charge for the call, max_results per query clamped, and the per-run ceiling
// spanning the whole list.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { build, signup, tempDir } from '../../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../../helpers/jobs.ts'
import { send, startServer } from './fake-context.ts'

const SERPER_KEY = 'serper-list-test-key'

async function buildWithSerper (t: Parameters<typeof tempDir>[0]) {
  // Serper answers `num` organic results per page for any query, each naming the query and page.
  const serper = await startServer(t, (req, res) => {
    if (req.method !== 'POST' || req.path !== '/search' || req.headers['x-api-key'] !== SERPER_KEY) return send(res, 404, 'no route')
    const { q, num, page } = JSON.parse(req.body) as { q: string, num: number, page: number }
    const organic = Array.from({ length: num }, (_, i) => ({ title: `${q} ${page}-${i + 1}`, link: `https://${q.replace(/\W+/g, '-')}.example/p${page}/${i + 1}`, snippet: `About ${q}.`, position: i + 1 }))
    send(res, 200, JSON.stringify({ organic, relatedSearches: [{ query: `${q} more` }] }), 'application/json')
  })
  const entry = JSON.parse(readFileSync(resolve('tools.config.json'), 'utf8')).tools.find((e: { key: string }) => e.key === 'websearch')
  entry.upstream = { serper: serper.base }
  const path = join(tempDir(t, 'ws-lists-'), 'tools.config.json')
  writeFileSync(path, JSON.stringify({ tools: [entry], retired: [] }))
  const app = await build(t, { env: { TOOLS_CONFIG: path, ALLOW_PRIVATE_TARGETS: '1', SERPER_API_KEY: SERPER_KEY } })
  return { app, serper }
}

async function run (app: Awaited<ReturnType<typeof buildWithSerper>>['app'], apiKey: string, params: Record<string, unknown>) {
  const res = await startJob(app, apiKey, params, 'websearch')
  t.equal(res.statusCode, 202, res.body)
  const id = res.json().job_id as string
  const status = await waitForEnd(app, apiKey, id, 30_000)
  const rows = (await app.inject({ url: `/api/tool-run/${id}/results?limit=1000`, headers: { 'x-api-key': apiKey } })).json().results as Array<Record<string, any>>
  const job = await app.services.db.job.findUniqueOrThrow({ where: { id } })
  return { status, rows, input: JSON.parse(job.input), summary: JSON.parse(job.summary ?? '{}') }
}

t.test('a list of queries: one search each, rows name their query, one charge', async t => {
  const { app, serper } = await buildWithSerper(t)
  const user = await signup(app)
  const { status, rows, summary } = await run(app, user.apiKey, { query: ['red widgets', 'blue widgets', 'red widgets'], engine: 'serper', max_results: 3 })
  t.match(status, { status: 'done', records: 6 })
  t.same(rows.map(r => [r.query, r.position]), [['red widgets', 1], ['red widgets', 2], ['red widgets', 3], ['blue widgets', 1], ['blue widgets', 2], ['blue widgets', 3]], 'a repeated query is searched once')
  t.same(serper.requests.map(r => JSON.parse(r.body).q), ['red widgets', 'blue widgets'])
  t.same(summary.searches.map((s: any) => [s.query, s.engine, s.related_searches]), [['red widgets', 'serper', ['red widgets more']], ['blue widgets', 'serper', ['blue widgets more']]])
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'one call for the whole list')

  const single = await run(app, user.apiKey, { query: 'green widgets', engine: 'serper', max_results: 2 })
  t.same(single.rows.map(r => r.query), ['green widgets', 'green widgets'], 'a single query names itself too')
  t.equal(single.summary.engine, 'serper', 'a single query keeps the flat summary')
})

t.test('max_results above the maximum is clamped (per query); the per-run ceiling spans the list', async t => {
  const { app } = await buildWithSerper(t)
  const user = await signup(app)
  const { status, rows, input } = await run(app, user.apiKey, { query: ['alpha', 'beta', 'gamma'], engine: 'serper', max_results: 5000 })
  t.equal(input.max_results, 200, 'clamped to the Registered ceiling (under the schema maximum of 1000), not refused')
  // Reaching the ceiling ends the run (the kernel stops it): later queries are never sent.
  t.match(status, { status: 'done', records: 200 })
  t.same([...new Set(rows.map(r => r.query))], ['alpha'], 'the first query filled the run; later ones found no room')
})
