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
