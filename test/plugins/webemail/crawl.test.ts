import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { signup } from '../../helpers/build.ts'
import { buildWithCounter, startJob, usageOf, waitForEnd } from '../../helpers/jobs.ts'
import { startCompanySite } from '../../fixtures/sites/company-site.ts'
import { createExtraction } from '../../../core/workers/extraction.ts'
import { pageScanner } from '../../../plugins/lib/page-scanner.ts'

const PRIVATE_OK = { env: { ALLOW_PRIVATE_TARGETS: '1' } }

// The tests on these settings share one app (each signs up its own account and crawls its own
// site): each app boots its own extraction worker and loads the scanners in it, most of an
// app's cost here. The ones with other settings build their own.
const shared = await buildWithCounter(t, PRIVATE_OK)

t.test('webemail crawls the fixture site and finds every obfuscated address', async t => {
  const site = await startCompanySite({ slowMs: 4000 })
  t.teardown(() => site.close())
  const app = shared
  const user = await signup(app)
  const res = await startJob(app, user.apiKey, { website: site.base, max_pages: 60 }, 'webemail')
  t.equal(res.statusCode, 202)
  const status = await waitForEnd(app, user.apiKey, res.json().job_id, 60_000)
  t.match(status, { status: 'done', records: 1 })
  const row = (await app.inject({ url: `/api/tool-run/${res.json().job_id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results[0]
  t.equal(row.website, site.base)
  t.equal(row.domain, '127.0.0.1')
  t.same([...row.emails].sort(), ['blog.editor@acme.test', 'hidden.person@acme.test', 'info@acme.test', 'jane.doe@acme.test', 'john.roe@acme.test', 'press@acme.test', 'sales@acme.test', 'support@acme.test'])
  t.equal(row.count, 8)
  const byEmail = Object.fromEntries(row.results.map((r: any) => [r.email, r]))
  t.equal(byEmail['info@acme.test'].type, 'role')
  t.equal(byEmail['jane.doe@acme.test'].type, 'personal')
  t.equal(byEmail['jane.doe@acme.test'].source_page, `${site.base}/team`)
  t.equal(byEmail['support@acme.test'].domain, 'acme.test')
  t.equal(byEmail['hidden.person@acme.test'].source_page, `${site.base}/hidden-contact`, 'sitemap-only page crawled')
  t.same([...row.phones].sort(), ['+14155550132', '+14155550199'])
  t.same(row.socials.map((s: any) => s.platform).sort(), ['facebook', 'linkedin', 'x'])
  t.notOk(row.socials.some((s: any) => /sharer/.test(s.url)), 'share links ignored')
  t.equal(site.offsiteHits(), 0, 'off-site link not followed')
  t.notOk(row.emails.includes('slow.person@acme.test'), 'the slow page timed out without sinking the crawl')
  t.ok(row.pages_scanned >= 33 && row.pages_scanned <= 36, `pages scanned: ${row.pages_scanned}`)
  t.notOk(site.hits.has('/brochure.pdf'), 'non-HTML links skipped')
})

t.test('contact pages come first and max_pages bounds the crawl', async t => {
  const site = await startCompanySite({ slowMs: 100 })
  t.teardown(() => site.close())
  const app = shared
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { website: site.base, max_pages: 5 }, 'webemail')).json()
  await waitForEnd(app, user.apiKey, id, 30_000)
  const row = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results[0]
  t.ok(row.pages_scanned <= 5, `pages scanned ${row.pages_scanned}`)
  t.ok(row.emails.includes('info@acme.test'), 'the contact page was among the first pages')
  t.ok(row.emails.includes('jane.doe@acme.test'), 'the team page was among the first pages')
  t.notOk(site.hits.has('/blog/20'), 'blog pages were not reached')
})

t.test('POST /api/website-email/find answers with the result, or 408 with the job id past its window', async t => {
  const site = await startCompanySite({ slowMs: 100 })
  t.teardown(() => site.close())
  const app = await buildWithCounter(t, { env: { ...PRIVATE_OK.env, SYNC_WAIT_SECONDS: '3' } })
  // The 3 s window (2 s missed on a loaded CI machine running three suites) is about the crawl: the app's extraction worker is started and the scanners
  // loaded in it (seconds on a busy host) beforehand, as webemail's run does before its crawl.
  await pageScanner(createExtraction(app.services.extraction, new AbortController().signal)).ready()
  const user = await signup(app)
  const host = site.base.replace('http://', '')
  const ok = await app.inject({ method: 'POST', url: '/api/website-email/find', headers: { 'x-api-key': user.apiKey }, payload: { website: `http://${host}`, max_pages: 6, include_socials: false } })
  t.equal(ok.statusCode, 200, ok.body)
  const body = ok.json()
  t.match(body, { website: `http://${host}`, domain: '127.0.0.1', socials: [] })
  t.ok(body.count >= 3)
  t.type(body.job_id, 'string')
  t.ok(body.pages_scanned <= 6)

  // The first page alone outlasts the 3 s window (the job then waits out the rest of it).
  const slowSite = await startCompanySite({ rootDelayMs: 4000 })
  t.teardown(() => slowSite.close())
  const late = await app.inject({ method: 'POST', url: '/api/website-email/find', headers: { 'x-api-key': user.apiKey }, payload: { website: slowSite.base, max_pages: 2 } })
  t.equal(late.statusCode, 408)
  t.type(late.json().job_id, 'string')
  t.match(late.json().detail, late.json().job_id)
  const finished = await waitForEnd(app, user.apiKey, late.json().job_id, 30_000)
  t.equal(finished.status, 'done', 'the job went on after the 408')

  const missing = await app.inject({ method: 'POST', url: '/api/website-email/find', headers: { 'x-api-key': user.apiKey }, payload: {} })
  t.equal(missing.statusCode, 400)
  t.match(missing.json().detail, /website/)
})

t.test('without ALLOW_PRIVATE_TARGETS the crawl refuses loopback and the call is not refunded', async t => {
  const site = await startCompanySite()
  t.teardown(() => site.close())
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { website: site.base }, 'webemail')).json()
  const status = await waitForEnd(app, user.apiKey, id, 30_000)
  t.match(status, { status: 'error', refunded: false })
  t.match(status.error, /Refused to connect/)
  t.equal(site.hits.size, 0, 'no request reached the site')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1)
})

t.test('max_pages is clamped to the plan ceiling, and a batch of sites gives a row per site', async t => {
  const a = await startCompanySite({ slowMs: 50 })
  const b = await startCompanySite({ slowMs: 50 })
  t.teardown(() => Promise.all([a.close(), b.close()]))
  const app = shared
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { website: [a.base, b.base, 'http://127.0.0.1:1'], max_pages: 100000 }, 'webemail')).json()
  const stored = await app.services.db.job.findUniqueOrThrow({ where: { id } })
  t.equal(JSON.parse(stored.input).max_pages, 200, 'clamped to the registered ceiling')
  const status = await waitForEnd(app, user.apiKey, id, 60_000)
  t.match(status, { status: 'done', records: 3 })
  const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results
  t.equal(rows[0].website, a.base)
  t.ok(rows[0].count > 0 && rows[1].count > 0)
  t.match(rows[2], { website: 'http://127.0.0.1:1', pages_scanned: 0, count: 0 })
  t.type(rows[2].error, 'string')
})

t.test('POST /api/website-email/find on a crawl that fails: 200 with the Website e-mail result shape and the job\'s outcome', async t => {
  const app = shared
  const user = await signup(app)
  const res = await app.inject({ method: 'POST', url: '/api/website-email/find', headers: { 'x-api-key': user.apiKey }, payload: { website: 'http://127.0.0.1:1/' } })
  t.equal(res.statusCode, 200, res.body)
  const body = res.json()
  t.same(Object.keys(body).sort(), ['blocked', 'count', 'domain', 'emails', 'error', 'job_id', 'pages_scanned', 'phones', 'refunded', 'results', 'socials', 'status', 'website'].sort(), 'every field of the Website e-mail result, plus the outcome')
  t.match(body, { website: 'http://127.0.0.1:1/', domain: '127.0.0.1', pages_scanned: 0, emails: [], phones: [], socials: [], results: [], count: 0, status: 'error', blocked: false, refunded: true })
  t.match(body.error, /could not be loaded|upstream/i)
  const status = await app.inject({ url: `/api/tool-run/${body.job_id}/status`, headers: { 'x-api-key': user.apiKey } })
  t.match(status.json(), { status: 'error', error: body.error, refunded: true }, 'the same outcome as the status record')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0, 'refunded')
})

t.test('a cancelled crawl logs at info: the page requests it cut short are not errors', async t => {
  const lines: string[] = []
  let cutShort!: () => void
  const bothCut = new Promise<void>(resolve => { cutShort = resolve })
  // The job's log lines as they are written; resolves once crawlee has written both cut requests.
  lines.push = (...items: string[]) => {
    const count = Array.prototype.push.apply(lines, items)
    if (lines.filter(line => /maximum retries/.test(line)).length >= 2) cutShort()
    return count
  }
  const app = await buildWithCounter(t, { ...PRIVATE_OK, logLines: lines })
  const user = await signup(app)
  let held = 0
  let bothHeld!: () => void
  const heldOpen = new Promise<void>(resolve => { bothHeld = resolve })
  // The home page links two pages that never answer: both are in flight when the job is cancelled.
  const site = createServer((req, res) => {
    if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="/contact">Contact</a> <a href="/about">About</a>'); return }
    if (req.url === '/contact' || req.url === '/about') { if (++held === 2) bothHeld(); return }
    res.writeHead(404).end()
  })
  await new Promise<void>(resolve => site.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { site.closeAllConnections(); site.close() })
  const website = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`
  const { job_id: id } = (await startJob(app, user.apiKey, { website, max_pages: 5 }, 'webemail')).json()
  await heldOpen
  const cancel = await app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': user.apiKey } })
  t.match(cancel.json(), { status: 'cancelled', refunded: true })
  await bothCut
  const parsed = lines.map(line => JSON.parse(line) as { level: number, msg?: string, stopped?: boolean })
  t.same(parsed.filter(line => /maximum retries/.test(line.msg ?? '')).map(line => [line.level, line.stopped]), [[30, true], [30, true]], 'both cut requests are info lines marked stopped')
  t.same(parsed.filter(line => line.level >= 50).map(line => line.msg), [], 'no error line')
})
