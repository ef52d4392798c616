// Every dashboard view in chromium, at desktop and phone sizes: axe-core finds
// no serious or critical violation, screenshots are written under
// .tap/screenshots/ and are not blank, result values are shown as text
// (a row holding markup does not become markup), and the page weight of /app
// (all its assets, as sent compressed) is reported and kept under 150 KB.
import t, { type Test } from 'tap'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { axeViolations, chromiumPath, haveChromium, openBrowser, screenshotIsBlank } from '../helpers/browser.ts'
import { signup, tempDir } from '../helpers/build.ts'
import { startJob, waitForEnd } from '../helpers/jobs.ts'
import { listeningApp } from './_dashboard.ts'

const SCREENSHOTS = resolve('.tap/screenshots')
const PAGE_WEIGHT_LIMIT = 150 * 1024
const DESKTOP = { width: 1280, height: 900 }
const PHONE = { width: 390, height: 844 }
const MARKUP = '<img src=x onerror="globalThis.injected=1"><b>bold</b>'

/** The shipped tools plus the test-only counter (rows without a network) and files (job files), absolute plugin paths. */
function toolsConfig (dir: string): string {
  const shipped = JSON.parse(readFileSync('tools.config.json', 'utf8')) as { tools: Array<Record<string, unknown>> }
  shipped.tools.push(
    { key: 'counter', plugin: resolve('test/fixtures/plugins/counter'), enabled: true },
    { key: 'files', plugin: resolve('test/fixtures/plugins/files'), enabled: true })
  const path = join(dir, 'tools.config.json')
  writeFileSync(path, JSON.stringify(shipped))
  return path
}

if (!haveChromium()) {
  t.test('the dashboard views', { skip: `no chromium at ${chromiumPath()} (set CHROMIUM_BIN)` }, async () => {})
} else {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const { app, base } = await listeningApp(t, { env: { TOOLS_CONFIG: toolsConfig(tempDir(t)) } })
  const user = await signup(app)
  const rowsJob = (await startJob(app, user.apiKey, { max_results: 12, label: MARKUP }, 'counter')).json().job_id as string
  await waitForEnd(app, user.apiKey, rowsJob)
  const filesJob = (await startJob(app, user.apiKey, { files: 2, name: 'notes.txt', content_type: 'text/plain' }, 'files')).json().job_id as string
  await waitForEnd(app, user.apiKey, filesJob)
  await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: { 'x-api-key': user.apiKey }, payload: { name: 'Reporting', tools: ['counter'] } })
  // A monitor with one run, so its view has ticks and a run's changes to draw.
  const monitorId = (await app.inject({ method: 'POST', url: '/api/monitors', headers: { 'x-api-key': user.apiKey }, payload: { name: 'Nightly count', tool: 'counter', params: { max_results: 3 }, schedule: { every: '1d' } } })).json().monitor_id as string
  const monitorRun = (await app.inject({ method: 'POST', url: `/api/monitors/${monitorId}/run`, headers: { 'x-api-key': user.apiKey } })).json().job_id as string
  await waitForEnd(app, user.apiKey, monitorRun)

  const browser = await openBrowser(t)
  const context = await browser.newContext({ viewport: DESKTOP })
  const page = await context.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', err => pageErrors.push(err.message))
  page.on('console', message => { if (message.type() === 'error') pageErrors.push(message.text()) })

  async function check (t: Test, page: Page, name: string) {
    for (const [size, viewport] of Object.entries({ desktop: DESKTOP, phone: PHONE })) {
      await page.setViewportSize(viewport)
      const before = pageErrors.length
      const violations = await axeViolations(page)
      // The helper tries an inline <script> first, which this page's CSP refuses (as it should), then evaluates axe.
      pageErrors.splice(before, pageErrors.length - before, ...pageErrors.slice(before).filter(e => !/Executing inline script violates/.test(e)))
      t.same(violations, [], `${name}, ${size}: no serious or critical axe violation`)
      const png = await page.screenshot({ fullPage: true })
      writeFileSync(join(SCREENSHOTS, `dashboard-${name}-${size}.png`), png)
      t.notOk(screenshotIsBlank(png), `${name}: the ${size} screenshot shows something`)
      if (size === 'phone') {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
        t.ok(overflow <= 0, `${name}: nothing wider than a phone (${overflow} px over)`)
      }
    }
    await page.setViewportSize(DESKTOP)
  }

  t.test('signed out: the login and sign-up forms', async t => {
    await page.goto(`${base}/app`)
    await page.getByRole('heading', { name: 'Create an account' }).waitFor()
    await check(t, page, 'login')
  })

  const views: Array<{ hash: string, heading: string | RegExp, name: string }> = [
    { hash: 'account', heading: 'Account', name: 'account' },
    { hash: 'playground?tool=counter', heading: 'Playground', name: 'playground' },
    { hash: 'jobs', heading: 'Jobs', name: 'jobs' },
    { hash: 'tokens', heading: 'Scoped tokens', name: 'tokens' },
    { hash: 'monitors', heading: 'Monitors', name: 'monitors' },
    { hash: `monitors/${monitorId}`, heading: 'Nightly count', name: 'monitor' },
    { hash: 'search', heading: 'Search engines', name: 'search' },
    { hash: 'media', heading: 'Media platforms', name: 'media' },
    { hash: `results/${rowsJob}`, heading: 'Results of counter', name: 'results' },
    { hash: `results/${filesJob}`, heading: 'Results of files', name: 'files' },
  ]

  t.test('signed in: each view', async t => {
    await page.evaluate(key => sessionStorage.setItem('extraction-jobs.key', key), user.apiKey)
    await page.reload()
    for (const view of views) {
      await page.goto(`${base}/app#${view.hash}`)
      await page.getByRole('heading', { name: view.heading, exact: true, level: 1 }).waitFor()
      if (view.name === 'results') await page.locator('[data-results]').waitFor()
      if (view.name === 'files') await page.getByRole('button', { name: 'Download all as a zip' }).waitFor()
      if (view.name === 'search') await page.getByRole('heading', { name: 'Engines', exact: true }).waitFor()
      if (view.name === 'media') await page.getByRole('rowheader', { name: 'Instagram' }).waitFor()
      if (view.name === 'tokens') await page.getByRole('rowheader', { name: 'Reporting' }).waitFor()
      if (view.name === 'monitors') await page.getByRole('rowheader', { name: 'Nightly count' }).waitFor()
      if (view.name === 'monitor') await page.getByRole('heading', { name: /^Changes of run/ }).waitFor()
      await check(t, page, view.name)
    }
  })

  t.test('"Monitor this" on the playground: the form\'s call on a schedule, then the monitor\'s own page', async t => {
    await page.goto(`${base}/app#playground?tool=counter`)
    await page.getByRole('button', { name: 'Monitor this' }).click()
    await page.getByRole('link', { name: 'All monitors' }).waitFor()
    const created = /^#monitors\/([\w-]+)$/.exec(new URL(page.url()).hash)?.[1]
    t.ok(created && created !== monitorId, `a new monitor's page (${page.url()})`)
    t.match(await page.locator('main').textContent(), /counter, every 1d; next run/, 'its tool, schedule and next run')
    await page.getByRole('link', { name: 'All monitors' }).click()
    await t.resolves(page.locator(`tr[data-monitor-id="${created}"]`).waitFor(), 'listed among the monitors')
  })

  t.test('result values are shown as text, never as markup', async t => {
    await page.goto(`${base}/app#results/${rowsJob}`)
    await page.locator('[data-results]').waitFor()
    t.match(await page.locator('[data-results] tbody').textContent(), MARKUP, 'the markup is shown as its text')
    t.equal(await page.locator('[data-results] img, [data-results] b').count(), 0, 'no element made from it')
    t.equal(await page.evaluate(() => (globalThis as Record<string, unknown>).injected), undefined, 'nothing ran')
  })

  t.test('the page weight of /app, all assets compressed', async t => {
    const fresh = await browser.newContext({ viewport: DESKTOP })
    const load = await fresh.newPage()
    const sizes: Array<{ url: string, type: string, bytes: Promise<number> }> = []
    load.on('requestfinished', request => {
      if (!new URL(request.url()).pathname.startsWith('/app')) return
      sizes.push({ url: request.url(), type: request.resourceType(), bytes: request.sizes().then(s => s.responseBodySize + s.responseHeadersSize) })
    })
    await load.goto(`${base}/app`, { waitUntil: 'load' })
    await load.getByRole('heading', { name: 'Create an account' }).waitFor()
    const files = await Promise.all(sizes.map(async s => ({ ...s, bytes: await s.bytes })))
    const total = files.reduce((sum, f) => sum + f.bytes, 0)
    t.comment(`/app page weight: ${(total / 1024).toFixed(1)} KB over ${files.length} requests (${files.map(f => `${new URL(f.url).pathname} ${f.bytes} B`).join(', ')})`)
    t.ok(files.some(f => f.type === 'script') && files.some(f => f.type === 'stylesheet') && files.some(f => f.type === 'document'), 'the page, its script and its style sheet were counted')
    t.ok(total < PAGE_WEIGHT_LIMIT, `under 150 KB (${total} bytes)`)
    await fresh.close()
  })

  t.test('no script error or refused resource (CSP) on any view', async t => {
    t.same(pageErrors, [])
  })
}
