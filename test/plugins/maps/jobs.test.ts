// maps as a job: input refused before charge, missing credentials, deep scan
// through webemail, and the same rows from /api/scrape, /api/tool-run and the
// agent endpoint.
import t from 'tap'
import { existsSync } from 'node:fs'
import { signup } from '../../helpers/build.ts'
import { usageOf, waitForEnd } from '../../helpers/jobs.ts'
import { startCompanySite } from '../../fixtures/sites/company-site.ts'
import { ALL_KEYS, buildMapsApp, rowsOf, runMaps } from '../../fixtures/maps/app.ts'
import { KEYS, startUpstreams } from '../../fixtures/maps/upstreams.ts'

t.test('neither query nor prompt is refused with 400 before any charge', async t => {
  const up = await startUpstreams()
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: ALL_KEYS })
  const user = await signup(app)
  const viaToolRun = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'maps', params: { max_results: 5, deep_scan: true } } })
  t.equal(viaToolRun.statusCode, 400)
  t.match(viaToolRun.json().detail, /query|prompt/)
  const viaScrape = await app.inject({ method: 'POST', url: '/api/scrape', headers: { 'x-api-key': user.apiKey }, payload: { max_results: 5 } })
  t.equal(viaScrape.statusCode, 400)
  const unknown = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'maps', params: { query: 'x', radius: 5 } } })
  t.equal(unknown.statusCode, 400)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0)
  t.equal(up.serper.hits.length, 0)
})

t.test('a requested source without its key fails fast, naming the variable, refunded', async t => {
  const up = await startUpstreams()
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: { SERPER_API_KEY: KEYS.serper } })
  const user = await signup(app)
  const { status } = await runMaps(app, user.apiKey, { prompt: 'dentists in Austin TX', source: 'serpapi' })
  t.match(status, { status: 'error', refunded: true, blocked: false, records: 0 })
  t.match(status.error, /SERPAPI_API_KEY/)
  t.equal(up.serper.hits.length + up.serpapi.hits.length + up.nominatim.hits.length, 0, 'no upstream was asked')

  // Only keyed sources configured and none of their keys set: the first variable is named.
  const app2 = await buildMapsApp(t, { urls: up.urls, settings: { sources: ['serper', 'serpapi'] } })
  const user2 = await signup(app2)
  const second = await runMaps(app2, user2.apiKey, { prompt: 'dentists in Austin TX' })
  t.match(second.status, { status: 'error', refunded: true })
  t.match(second.status.error, /SERPER_API_KEY/)
})

t.test('deep_scan runs webemail on each website: emails, merged phones, socials; one bad site does not sink the job', async t => {
  const site = await startCompanySite({ slowMs: 50 })
  t.teardown(() => site.close())
  const websites: Record<number, string | null> = { 1: site.base, 2: 'http://127.0.0.1:1/', 3: null }
  const up = await startUpstreams({ total: 3, website: i => websites[i] ?? null })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: { SERPER_API_KEY: KEYS.serper } })
  const user = await signup(app)
  const { status, rows } = await runMaps(app, user.apiKey, { prompt: 'dentists in Austin TX', deep_scan: true }, 60_000)
  t.match(status, { status: 'done', records: 3 })
  t.equal(status.warning?.includes('could not be scanned'), true, status.warning)
  const [a, b, c] = rows
  t.equal(a!.website, site.base)
  t.ok(a!.emails.includes('info@acme.test'), `emails: ${a!.emails}`)
  t.ok(a!.emails.length >= 2)
  t.equal(a!.phones[0], '+15125550101', 'the listing phone first, in E.164')
  t.ok(a!.phones.includes('+14155550132'), 'then the website\'s phones')
  t.same(a!.socials.map((s: any) => s.platform).sort(), ['facebook', 'linkedin', 'x'])
  t.notOk('deep_scan_error' in a!)
  t.ok(site.hits.size <= 4 + 1, `the per-site page budget held: ${[...site.hits.keys()]}`)
  t.match(b, { name: 'Austin Dental 2', emails: [], phones: ['+15125550102'], socials: [] })
  t.type(b!.deep_scan_error, 'string')
  t.match(c, { name: 'Austin Dental 3', website: null, emails: [], phones: ['+15125550103'], socials: [] })
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'the nested crawls are not charged')
})

t.test('the same job through POST /api/scrape, POST /api/tool-run and the agent endpoint gives the same rows', async t => {
  const up = await startUpstreams({ total: 12 })
  t.teardown(() => up.close())
  const app = await buildMapsApp(t, { urls: up.urls, env: { SERPAPI_API_KEY: KEYS.serpapi } })
  const user = await signup(app)
  const params = { prompt: 'dentists in Austin TX', max_results: 7 }

  const scrape = await app.inject({ method: 'POST', url: '/api/scrape', headers: { 'x-api-key': user.apiKey }, payload: params })
  t.equal(scrape.statusCode, 202)
  const scrapeId = scrape.json().job_id
  t.match(scrape.json(), { status: 'running', status_url: `/api/jobs/${scrapeId}` })
  const deadline = Date.now() + 20_000
  let jobStatus: any
  do {
    await new Promise(r => setTimeout(r, 30))
    jobStatus = (await app.inject({ url: `/api/jobs/${scrapeId}`, headers: { 'x-api-key': user.apiKey } })).json()
  } while (jobStatus.status === 'running' && Date.now() < deadline)
  t.match(jobStatus, { status: 'done', records: 7 })
  const fromScrape = (await app.inject({ url: `/api/jobs/${scrapeId}/results`, headers: { 'x-api-key': user.apiKey } })).json().results

  const fromToolRun = (await runMaps(app, user.apiKey, params)).rows
  t.equal(fromScrape.length, 7)
  t.same(fromToolRun, fromScrape)

  if (!existsSync('core/agent/routes.ts')) {
    t.comment('core/agent not present: agent endpoint comparison skipped')
    return
  }
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ])
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address() as { port: number }
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${address.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${user.apiKey}` } } })
  const client = new Client({ name: 'maps-test', version: '0.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  const tools = await client.listTools()
  const maps = tools.tools.find(x => x.name === 'maps_search')
  t.ok(maps, 'maps_search is listed')
  t.ok((maps!.inputSchema.properties as Record<string, unknown>).limit, 'the agent sees limit (REST max_results)')
  const called = await client.callTool({ name: 'maps_search', arguments: { prompt: params.prompt, limit: 7, wait_seconds: 20 } }) as { structuredContent?: any, isError?: boolean }
  t.notOk(called.isError)
  let content = called.structuredContent
  if (content.status === 'running') {
    await waitForEnd(app, user.apiKey, content.job_id, 20_000)
    content = { ...content, results: await rowsOf(app, user.apiKey, content.job_id) }
  }
  t.same(content.results, fromScrape, 'the agent endpoint gives the same rows')
})
