// Idempotent replays say so on every job start that honours Idempotency-Key:
// POST /api/tool-run, POST /api/scrape and POST /api/website-email/find.
import t from 'tap'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, usageOf, waitForEnd } from '../helpers/jobs.ts'
import { buildMapsApp } from '../fixtures/maps/app.ts'
import { startCompanySite } from '../fixtures/sites/company-site.ts'

t.test('POST /api/tool-run: a replay is 200 with Idempotent-Replayed: true; a first start has no such header', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const h = { 'idempotency-key': 'tool-run-1' }
  const first = await startJob(app, user.apiKey, { max_results: 1 }, 'counter', h)
  t.equal(first.statusCode, 202)
  t.equal(first.headers['idempotent-replayed'], undefined)
  const again = await startJob(app, user.apiKey, { max_results: 1 }, 'counter', h)
  t.equal(again.statusCode, 200)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(again.json().job_id, first.json().job_id)
  await waitForEnd(app, user.apiKey, first.json().job_id)
})

t.test('POST /api/scrape: a replay is 200 with Idempotent-Replayed: true, charged once', async t => {
  // The maps upstreams point at a closed port: the job ends quickly, the replay is what is tested.
  const app = await buildMapsApp(t, { urls: {} })
  const user = await signup(app)
  const scrape = () => app.inject({ method: 'POST', url: '/api/scrape', headers: { 'x-api-key': user.apiKey, 'idempotency-key': 'scrape-1' }, payload: { query: 'dentists in Austin TX', max_results: 3 } })
  const first = await scrape()
  t.equal(first.statusCode, 202, first.body)
  t.equal(first.headers['idempotent-replayed'], undefined)
  const again = await scrape()
  t.equal(again.statusCode, 200)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(again.json().job_id, first.json().job_id)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1)
  // The job's own ending is not what this test is about; closing the app hands it back.
})

t.test('POST /api/website-email/find: a replay carries Idempotent-Replayed: true and the same job, on a 408 too', async t => {
  // The site answers too slowly for the 1 s window: both calls end 408 with the job id (no timing to win).
  const site = await startCompanySite({ rootDelayMs: 4000 })
  t.teardown(() => site.close())
  const app = await buildWithCounter(t, { env: { ALLOW_PRIVATE_TARGETS: '1', SYNC_WAIT_SECONDS: '1' } })
  const user = await signup(app)
  const find = () => app.inject({ method: 'POST', url: '/api/website-email/find', headers: { 'x-api-key': user.apiKey, 'idempotency-key': 'find-1' }, payload: { website: site.base, max_pages: 2 } })
  const first = await find()
  t.equal(first.statusCode, 408, first.body)
  t.equal(first.headers['idempotent-replayed'], undefined)
  const again = await find()
  t.equal(again.statusCode, 408)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(again.json().job_id, first.json().job_id)
  const listed = (await app.inject({ url: '/api/jobs', headers: { 'x-api-key': user.apiKey } })).json()
  t.equal(listed.count, 1, 'one job: the replay started none')
})
