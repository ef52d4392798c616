// Hostile pages through real jobs: a 1 MiB phone flood scanned for webemail
// leaves the API answering while it is scanned; a 20k-deep page costs at most its
// own row of a websearch scrape.
import t from 'tap'
import { signup } from '../helpers/build.ts'
import { startJob, waitForEnd } from '../helpers/jobs.ts'
import { appWithPool, resultsOf, serveSite } from './_pool-app.ts'

t.test('webemail on a 1 MiB phone flood: the API answers while the page is scanned, and the job ends done', async t => {
  const app = await appWithPool(t)
  const user = await signup(app)
  const flood = `<html><body><p>${'1 '.repeat(512 * 1024)}</p></body></html>`
  const pages: Record<string, string> = {
    '/': flood,
    '/contact': '<html><body><p>Write to <a href="mailto:office@example.com">office@example.com</a></p></body></html>',
  }
  const host = await serveSite(t, pages)
  // The sitemap names the contact page, so it is crawled whether or not the flood page is scanned within the limit.
  pages['/sitemap.xml'] = `<urlset><url><loc>${host}/contact</loc></url></urlset>`
  const start = await startJob(app, user.apiKey, { website: `${host}/`, max_pages: 5 }, 'webemail')
  t.equal(start.statusCode, 202, start.body)
  const jobId = start.json().job_id
  // Wait (without a clock) until a page scan is running in the pool (after webemail's warm-up
  // task has completed), then ask for health and status.
  const pool = app.services.extraction
  while (pool.stats().completed === 0 || pool.stats().running === 0) await new Promise(r => setImmediate(r))
  const health = await app.inject({ method: 'GET', url: '/api/health' })
  t.equal(health.statusCode, 200)
  const during = await app.inject({ method: 'GET', url: `/api/tool-run/${jobId}/status`, headers: { 'x-api-key': user.apiKey } })
  t.equal(during.json().status, 'running', 'health and status answered before the job ended')
  const status = await waitForEnd(app, user.apiKey, jobId, 150_000)
  t.equal(status.status, 'done', status.error ?? '')
  const [row] = await resultsOf(app, user.apiKey, jobId)
  t.same(row?.emails, ['office@example.com'])
})

t.test('websearch scraping: a 20k-deep page costs at most its own row', async t => {
  const app = await appWithPool(t)
  const user = await signup(app)
  const article = '<html><head><title>Fine</title></head><body><article><p>A readable paragraph of text for the reader view.</p></article></body></html>'
  const site = await serveSite(t, { '/a': article, '/deep': `<html><body>${'<div>'.repeat(20_000)}deep${'</div>'.repeat(20_000)}</body></html>`, '/b': article })
  const start = await startJob(app, user.apiKey, { urls: [`${site}/a`, `${site}/deep`, `${site}/b`] }, 'websearch')
  t.equal(start.statusCode, 202, start.body)
  const status = await waitForEnd(app, user.apiKey, start.json().job_id, 150_000)
  t.equal(status.status, 'done', status.error ?? '')
  const rows = await resultsOf(app, user.apiKey, start.json().job_id)
  t.equal(rows.length, 3)
  t.equal(rows[0]!.title, 'Fine')
  t.equal(rows[2]!.title, 'Fine')
  // Read or given up on, the deep page is a row of its own.
  t.ok(rows[1]!.text !== null || /could not be read/.test(rows[1]!.error), JSON.stringify(rows[1]).slice(0, 200))
})
