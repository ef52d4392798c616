// The dashboard's journey in a real browser (issue 16): sign up → the key shown
// once → run webemail on a local site from the generated form → the progress
// bar moves and reaches done → page through the rows → download the CSV and
// read it → mint a scoped token → revoke it → (job history, run again,
// regenerate the key) → log out and back in.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { parse } from 'csv-parse/sync'
import type { Page } from 'playwright-core'
import { haveChromium, chromiumPath, openBrowser } from '../helpers/browser.ts'
import { listeningApp, startShops } from './_dashboard.ts'

const SITES = 6

if (!haveChromium()) {
  t.test('the dashboard journey', { skip: `no chromium at ${chromiumPath()} (set CHROMIUM_BIN)` }, async () => {})
} else {
  const shops = await startShops(t)
  const { app, base } = await listeningApp(t, { network: shops.network })
  const browser = await openBrowser(t)
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', err => pageErrors.push(err.message))
  page.on('console', message => { if (message.type() === 'error') pageErrors.push(message.text()) })

  const email = `journey-${Date.now()}@example.com`
  const password = 'correct horse battery'
  const storedKey = (p: Page) => p.evaluate(() => Object.values(sessionStorage).join(' '))
  const signupForm = page.locator('form', { has: page.getByRole('heading', { name: 'Create an account' }) })
  const loginForm = page.locator('form', { has: page.getByRole('heading', { name: 'Log in' }) })
  let apiKey = ''

  t.test('sign up: the key is shown once and kept in the tab only', async t => {
    await page.goto(`${base}/app`)
    await signupForm.getByLabel('E-mail address').fill(email)
    await signupForm.getByLabel('Password').fill(password)
    await signupForm.getByRole('button', { name: 'Sign up' }).click()
    const shown = page.locator('[data-secret-value]')
    await shown.waitFor()
    apiKey = (await shown.textContent()) ?? ''
    t.match(apiKey, /^sk-/, 'the personal key is shown')
    t.equal(await storedKey(page), apiKey, 'kept in sessionStorage')
    t.notMatch(page.url(), apiKey, 'never in the address')
    const cookies = await context.cookies()
    t.same(cookies, [], 'no cookie at all')
    await page.getByRole('button', { name: 'I have saved it' }).click()
    t.equal(await shown.count(), 0, 'hidden once saved')
    await page.reload()
    await page.getByRole('heading', { name: 'Account', exact: true }).waitFor()
    t.equal(await page.locator('[data-secret-value]').count(), 0, 'not shown again after a reload')
    t.equal(await page.locator('[data-key-masked]').textContent(), `sk-…${apiKey.slice(-4)}`, 'the key reads masked')
    t.ok(await page.locator('meter').count() >= 4, 'usage meters')
  })

  let jobId = ''
  t.test('run webemail from the generated form: the bar moves and reaches done', async t => {
    await page.getByRole('link', { name: 'Playground', exact: true }).click()
    await page.getByLabel('Tool', { exact: true }).selectOption('webemail')
    const websites = page.locator('textarea[name=website]')
    await websites.waitFor()
    t.match(await page.getByLabel(/^max_pages/).getAttribute('aria-describedby'), /help/, 'max_pages has its help')
    t.match(await page.locator(`#${await page.getByLabel(/^max_pages/).getAttribute('aria-describedby')}`).textContent(), /At most 200 on the registered plan/, 'the tier clamp is shown')
    t.equal(await page.getByLabel(/^max_pages/).inputValue(), '25', 'the default is filled in')
    t.ok(await page.getByLabel('include_phones').isChecked(), 'a boolean is a checkbox, checked by its default')
    await websites.fill(Array.from({ length: SITES }, (_, i) => shops.site(i + 1)).join('\n'))
    await page.getByLabel(/^max_pages/).fill('4')
    // Every value the bar takes, sampled in the page (evaluate is not subject to the page's CSP).
    await page.evaluate(() => {
      const seen: number[] = []
      ;(globalThis as unknown as { progressSeen: number[] }).progressSeen = seen
      setInterval(() => {
        const bar = document.getElementById('run-progress') as { value: number } | null
        if (bar && seen[seen.length - 1] !== bar.value) seen.push(bar.value)
      }, 10)
    })
    await page.getByRole('button', { name: 'Run' }).click()
    await page.locator('[data-run-done]').waitFor({ timeout: 90_000 })
    const seen = await page.evaluate(() => (globalThis as unknown as { progressSeen: number[] }).progressSeen)
    t.ok(seen.some(v => v > 0 && v < 100), `the bar moved before the end (${seen.join(', ')})`)
    t.equal(seen[seen.length - 1], 100, 'and reached the end')
    t.equal(await page.locator('#run-stage').textContent(), 'done', 'the stage text says done')
    jobId = ((await page.getByRole('heading', { name: /^Job / }).textContent()) ?? '').replace(/^Job /, '')
    t.ok(jobId, 'the job is named')
  })

  t.test('page through the results', async t => {
    await page.getByLabel('Rows a page').selectOption('5')
    const caption = page.locator('[data-results] caption')
    await t.resolves(caption.filter({ hasText: `Rows 1–5 of ${SITES}` }).waitFor(), 'first page')
    t.equal(await page.locator('[data-results] tbody tr').count(), 5)
    await page.getByRole('button', { name: 'Next page' }).click()
    await t.resolves(caption.filter({ hasText: `Rows 6–6 of ${SITES}` }).waitFor(), 'second page')
    t.equal(await page.locator('[data-results] tbody tr').count(), 1)
    t.match(await page.locator('[data-results] tbody').textContent(), /info@shop-\d\.example/, 'the addresses are in the table')
    await page.getByRole('button', { name: 'Previous page' }).click()
    await t.resolves(caption.filter({ hasText: 'Rows 1–5' }).waitFor(), 'back to the first page')
  })

  t.test('download the CSV (fetched with the key, saved from a blob)', async t => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('button[data-format=csv]').click()])
    t.match(download.url(), /^blob:/, 'a blob: address: no key in any URL')
    t.equal(download.suggestedFilename(), `webemail-${jobId}.csv`)
    const text = readFileSync(await download.path()).toString('utf8').replace(/^\uFEFF/, '')
    const rows = parse(text, { columns: true }) as Array<Record<string, string>>
    t.equal(rows.length, SITES, 'one row a site')
    for (let n = 1; n <= SITES; n++) {
      const row = rows.find(r => r.website === shops.site(n))
      t.ok(row, `shop-${n} has its row`)
      t.match(row?.emails, `info@shop-${n}.example`, `shop-${n}: contact page address`)
      t.match(row?.emails, `sales@shop-${n}.example`, `shop-${n}: team page address`)
    }
  })

  t.test('mint a scoped token, then revoke it', async t => {
    await page.getByRole('link', { name: 'Tokens', exact: true }).click()
    await page.getByLabel('Name').fill('CI import')
    await page.getByLabel(/\(webemail\)$/).check()
    await page.getByRole('button', { name: 'Mint token' }).click()
    const shown = page.locator('[data-secret-value]')
    await shown.waitFor()
    const token = (await shown.textContent()) ?? ''
    t.match(token, /^scp-/, 'the token is shown once')
    const works = await app.inject({ url: '/api/auth/me', headers: { 'x-api-key': token } })
    t.equal(works.statusCode, 200, 'and works')
    const row = page.locator('tr', { has: page.getByRole('rowheader', { name: 'CI import' }) })
    t.match(await row.textContent(), /webemail.*never.*active/, 'listed with its tools, never used yet, active')
    await page.getByRole('button', { name: 'Revoke CI import' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click()
    await t.resolves(row.filter({ hasText: 'revoked' }).waitFor(), 'listed as revoked')
    const refused = await app.inject({ url: '/api/auth/me', headers: { 'x-api-key': token } })
    t.equal(refused.statusCode, 401, 'and refused from then on')
  })

  t.test('the job history lists the run, filtered by state', async t => {
    await page.getByRole('link', { name: 'Jobs', exact: true }).click()
    await page.locator(`tr[data-job-id="${jobId}"]`).waitFor()
    await page.getByLabel('Show').selectOption('running')
    await t.resolves(page.getByText('No job in that state.').waitFor(), 'not among running jobs')
    await page.getByLabel('Show').selectOption('done')
    await t.resolves(page.locator(`tr[data-job-id="${jobId}"]`).waitFor(), 'among done jobs')
    await page.locator(`tr[data-job-id="${jobId}"]`).getByRole('link', { name: 'Run again' }).click()
    const websites = page.locator('textarea[name=website]')
    await websites.waitFor()
    t.equal(await websites.inputValue(), Array.from({ length: SITES }, (_, i) => shops.site(i + 1)).join('\n'), 'run again fills the form with the stored params')
    t.equal(await page.getByLabel(/^max_pages/).inputValue(), '4')
  })

  t.test('regenerate the key, after a confirmation: the new one shown once, the old one refused', async t => {
    await page.getByRole('link', { name: 'Account', exact: true }).click()
    await page.getByRole('button', { name: 'Regenerate…' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
    t.equal(await storedKey(page), apiKey, 'cancelled: the key is unchanged')
    await page.getByRole('button', { name: 'Regenerate…' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Make a new key' }).click()
    const shown = page.locator('[data-secret-value]')
    await shown.waitFor()
    const fresh = (await shown.textContent()) ?? ''
    t.match(fresh, /^sk-/)
    t.not(fresh, apiKey, 'a new key')
    t.equal(await storedKey(page), fresh, 'the tab now uses it')
    t.equal((await app.inject({ url: '/api/auth/me', headers: { 'x-api-key': apiKey } })).statusCode, 401, 'the old key no longer works')
    apiKey = fresh
  })

  t.test('log out and back in', async t => {
    await page.getByRole('button', { name: 'Log out' }).click()
    await loginForm.waitFor()
    t.equal(await storedKey(page), '', 'the key is gone from the tab')
    await loginForm.getByLabel('E-mail address').fill(email)
    await loginForm.getByLabel('Password').fill(password)
    await loginForm.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('heading', { name: 'Account', exact: true }).waitFor()
    t.equal(await storedKey(page), apiKey, 'the same key, from the login answer')
    t.equal(await page.locator('[data-secret-value]').count(), 0, 'a login does not show the key again')
    t.same(pageErrors, [], 'no script error or refused resource (CSP) in the whole journey')
  })
}
