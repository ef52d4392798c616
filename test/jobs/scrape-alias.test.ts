import t from 'tap'
import { signup, build } from '../helpers/build.ts'

t.test('/api/scrape is the maps plugin\'s alias: it starts a maps job linked under /api/jobs, or does not exist without maps', async t => {
  const app = await build(t)
  const user = await signup(app)
  const res = await app.inject({ method: 'POST', url: '/api/scrape', headers: { 'x-api-key': user.apiKey }, payload: { prompt: 'dentists in Austin TX', max_results: 5 } })
  const maps = app.services.registry.get('maps')
  if (maps) {
    t.equal(res.statusCode, 202)
    t.match(res.json(), { status: 'running', status_url: `/api/jobs/${res.json().job_id}` })
  } else {
    t.equal(res.statusCode, 404, 'a disabled plugin declares no alias')
  }
  const empty = await app.inject({ method: 'POST', url: '/api/scrape', headers: { 'x-api-key': user.apiKey }, payload: { max_results: 5 } })
  t.equal(empty.statusCode, 400)
  t.equal((await app.inject({ method: 'POST', url: '/api/scrape', payload: { query: 'x' } })).statusCode, 401)
})

t.test('an alias refuses its params in the words of its body: the body is what the client sent', async t => {
  const app = await build(t)
  const user = await signup(app)
  const post = (url: string, payload: Record<string, unknown>) => app.inject({ method: 'POST', url, headers: { 'x-api-key': user.apiKey }, payload })
  const cases: Array<[string, string, Record<string, unknown>, string]> = [
    ['maps', '/api/scrape', { query: 'dentists', colour: 'red' }, "body has an unknown field 'colour'."],
    ['maps', '/api/scrape', { query: 'dentists', max_results: 'many' }, 'body.max_results must be integer.'],
    ['webemail', '/api/website-email/find', { website: 'acme.com', colour: 'red' }, "body has an unknown field 'colour'."],
    ['webemail', '/api/website-email/find', { website: 'acme\u0001.com' }, 'body.website contains a control character (U+0001), which no address may hold.'],
  ]
  let checked = 0
  for (const [tool, url, payload, detail] of cases) {
    if (!app.services.registry.get(tool)) continue
    const res = await post(url, payload)
    t.equal(res.statusCode, 400, `${url} ${JSON.stringify(payload)}`)
    t.equal(res.json().detail, detail)
    checked++
  }
  t.ok(checked > 0, 'the repository\'s tools.config.json enables at least one alias')
  // POST /api/tool-run names its params `params`, as before.
  const run = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'webemail', params: { website: 'acme.com', colour: 'red' } } })
  if (app.services.registry.get('webemail')) t.equal(run.json().detail, "params has an unknown field 'colour'.")
})
