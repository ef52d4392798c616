// The dashboard's journey in a real browser: sign up → the key shown once →
// run webemail on a local site from the generated form → the progress bar
// moves and reaches done → page through the rows → download the CSV and read
// it, then one row per e-mail (explode) → mint a scoped token → revoke it → (job history, run again, regenerate
// the key) → log out and back in. Then, at 1280 and at 390 px wide, what a new
// user meets: bad input stopped under its field with no job created, a run
// whose lists read as lists, a slow crawl cancelled (its own outcome), the jobs
// list following a job live, no menu after logging out, and an uploaded clip's
// frames; axe-core on each of those states.
import t, { type Test } from 'tap'
import { readFileSync } from 'node:fs'
import { parse } from 'csv-parse/sync'
import type { Page } from 'playwright-core'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { axeViolations, haveChromium, chromiumPath, openBrowser } from '../helpers/browser.ts'
import { tempDir } from '../helpers/build.ts'
import { usageOf } from '../helpers/jobs.ts'
import { listeningApp, startShops } from './_dashboard.ts'

const SITES = 6
const hasFfmpeg = () => { try { execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' }); return true } catch { return false } }

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
  const signupFormOf = (p: Page) => p.locator('form', { has: p.getByRole('heading', { name: 'Create an account' }) })
  const signupForm = signupFormOf(page)
  const loginForm = page.locator('form', { has: page.getByRole('heading', { name: 'Log in' }) })
  let apiKey = ''

  /** axe-core on the page as it is: no serious or critical violation (the inline-script attempt the CSP refuses is not an error). */
  const noAxeFindings = async (t: Test, p: Page, errors: string[], state: string) => {
    const before = errors.length
    t.same(await axeViolations(p), [], `${state}: no serious or critical axe finding`)
    errors.splice(before, errors.length - before, ...errors.slice(before).filter(e => !/Executing inline script violates/.test(e)))
  }

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
    t.match(await page.getByLabel(/^Max pages/).getAttribute('aria-describedby'), /help/, 'max_pages has its help')
    t.match(await page.locator(`#${await page.getByLabel(/^Max pages/).getAttribute('aria-describedby')}`).textContent(), /At most 200 on the registered plan.*API name: max_pages\./, 'the tier clamp is shown, and the param\'s API name')
    t.equal(await page.getByLabel(/^Max pages/).inputValue(), '25', 'the default is filled in')
    t.ok(await page.getByLabel('Include phones').isChecked(), 'a boolean is a checkbox, checked by its default')
    await websites.fill(Array.from({ length: SITES }, (_, i) => shops.site(i + 1)).join('\n'))
    await page.getByLabel(/^Max pages/).fill('4')
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

  t.test('download one row per e-mail: the export menu offers the list columns (explode)', async t => {
    const choice = page.getByLabel('Rows in the download')
    const offered = await choice.locator('option').evaluateAll(options => options.map(o => (o as HTMLOptionElement).value))
    t.equal(offered[0], '', 'one row per result, as stored, first')
    t.same(offered.slice(1).sort(), ['emails', 'phones', 'results', 'socials'], 'then the list columns, and no other')
    await choice.selectOption('emails')
    await noAxeFindings(t, page, pageErrors, 'the results with their download choices')
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('button[data-format=csv]').click()])
    t.equal(download.suggestedFilename(), `webemail-${jobId}-by-emails.csv`)
    const rows = parse(readFileSync(await download.path()).toString('utf8').replace(/^\uFEFF/, ''), { columns: true }) as Array<Record<string, string>>
    t.equal(rows.length, 2 * SITES, 'two addresses a site, one a row')
    for (let n = 1; n <= SITES; n++) {
      t.same(rows.filter(r => r.website === shops.site(n)).map(r => r.emails).sort(), [`info@shop-${n}.example`, `sales@shop-${n}.example`], `shop-${n}: one row per address, the site repeated`)
    }
    await choice.selectOption('')
  })

  t.test('copy the form\'s call as curl and as an MCP call (the key never in either)', async t => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
    const sites = Array.from({ length: SITES }, (_, i) => shops.site(i + 1))
    await page.getByRole('button', { name: 'Copy as curl' }).click()
    await page.getByText(/^Copied: set EXTRACTION_API_KEY/).waitFor()
    const curl = await page.evaluate(() => navigator.clipboard.readText())
    t.match(curl, `curl -X POST '${base}/api/tool-run'`, 'curl posts to this server')
    t.match(curl, '-H "x-api-key: $EXTRACTION_API_KEY"', 'the key is a shell variable')
    t.notMatch(curl, apiKey, 'not the key itself')
    t.match(curl, `"tool":"webemail","params":{"website":${JSON.stringify(sites)}`, 'the form\'s tool and sites')
    t.match(curl, '"max_pages":4', 'and its other params')
    await page.getByRole('button', { name: 'Copy as an MCP call' }).click()
    await page.getByText(/^Copied: the tools\/call message/).waitFor()
    const mcp = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as { method: string, params: { name: string, arguments: Record<string, unknown> } }
    t.match(mcp, { method: 'tools/call', params: { name: 'website_email_find', arguments: { website: sites, limit: 4 } } }, 'a tools/call of the agent tool, under the agent\'s names')
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
    t.equal(await page.getByLabel(/^Max pages/).inputValue(), '4')
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
    await context.close()
  })

  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    t.test(`at ${viewport.width} px wide: what a new user meets`, async t => {
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', err => errors.push(err.message))
      page.on('console', message => { if (message.type() === 'error') errors.push(message.text()) })
      const menu = () => page.getByRole('navigation', { name: 'Dashboard' })
      // On a phone the tool's own select and the menu's links are the same; the test goes by address where a menu would wrap.
      const go = async (hash: string, heading: string) => { await page.goto(`${base}/app#${hash}`); await page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor() }

      await page.goto(`${base}/app`)
      await signupFormOf(page).getByLabel('E-mail address').fill(`w${viewport.width}-${Date.now()}@example.com`)
      await signupFormOf(page).getByLabel('Password').fill(password)
      await signupFormOf(page).getByRole('button', { name: 'Sign up' }).click()
      const shown = page.locator('[data-secret-value]')
      await shown.waitFor()
      const key = (await shown.textContent()) ?? ''
      t.match(key, /^sk-/, 'signed up: the key is shown')
      t.ok(await menu().isVisible(), 'the signed-in menu is shown')

      // From the home page, a tool's card opens the playground with that tool chosen.
      await page.goto(`${base}/`)
      await page.locator('.tools').getByRole('link', { name: 'Website e-mail finder' }).click()
      await page.getByRole('heading', { name: 'Playground', exact: true, level: 1 }).waitFor()
      t.equal(await page.getByLabel('Tool', { exact: true }).inputValue(), 'webemail', 'the home page\'s tool card opens the playground with its tool chosen')

      // Bad input: the playground says what is wrong under the field, and nothing starts.
      const website = page.getByLabel(/^Website/)
      await website.waitFor()
      const jobsBefore = (await app.inject({ url: '/api/jobs', headers: { 'x-api-key': key } })).json().count
      const callsBefore = (await usageOf(app, key)).calls_today
      const problemOf = async () => page.locator(`#${(await website.getAttribute('id'))!}-problem`)
      await page.getByRole('button', { name: 'Run' }).click()
      t.equal(await (await problemOf()).textContent(), 'Fill this in.', 'an empty required field: words for people under it')
      t.equal(await website.getAttribute('aria-invalid'), 'true', 'marked invalid')
      t.ok((await website.getAttribute('aria-describedby'))?.split(' ').includes(`${(await website.getAttribute('id'))!}-problem`), 'the message is tied to the field')
      t.ok(await website.evaluate(el => el === document.activeElement), 'the field has the focus')
      await noAxeFindings(t, page, errors, 'a field with a problem')
      for (const bad of ['not a url at all', 'ftp://files.example/x', 'javascript:alert(1)']) {
        await website.fill(bad)
        await page.getByRole('button', { name: 'Run' }).click()
        t.match(await (await problemOf()).textContent(), /./, `"${bad}": a message under the field`)
        t.notMatch(await (await problemOf()).textContent(), /params\./, `"${bad}": not the API's wording`)
      }
      await website.fill(shops.site(1))
      const maxPages = page.getByLabel(/^Max pages/)
      await maxPages.fill('0')
      await page.getByRole('button', { name: 'Run' }).click()
      t.equal(await page.locator(`#${(await maxPages.getAttribute('id'))!}-problem`).textContent(), 'Give 1 or more.', 'a number under its minimum: said under its field')
      t.equal(await (await problemOf()).isVisible(), false, 'and the website, now right, has no message')
      t.equal(await page.locator('#run-title').count(), 0, 'no job panel')
      t.equal((await app.inject({ url: '/api/jobs', headers: { 'x-api-key': key } })).json().count, jobsBefore, 'no job was created')
      t.equal((await usageOf(app, key)).calls_today, callsBefore, 'the day\'s count is unchanged')

      // A run on a stand-in site: its lists read as lists.
      await website.fill(shops.site(1))
      await page.getByLabel(/^Max pages/).fill('4')
      await page.getByRole('button', { name: 'Run' }).click()
      t.equal(await (await problemOf()).isVisible(), false, 'the message is gone once the field is right')
      await page.locator('[data-run-done]').waitFor({ timeout: 90_000 })
      await page.locator('[data-results]').waitFor()
      const listed = await page.locator('[data-results] ul.cell-list li').allTextContents()
      t.ok(listed.includes('info@shop-1.example') && listed.includes('sales@shop-1.example'), `the e-mails as list items (${listed.join(', ')})`)

      // A slow crawl, cancelled after a confirmation: its own outcome, not a failure.
      await website.fill(shops.stalledSite(1))
      const doneTitle = await page.locator('#run-title').textContent()
      await page.getByRole('button', { name: 'Run' }).click()
      // The last run's panel stays until the start answers: wait for this run's own title.
      await page.waitForFunction(before => { const title = document.querySelector('#run-title'); return title !== null && title.textContent !== before }, doneTitle)
      t.equal(await page.locator('[data-results]').count(), 0, 'a new run clears the last one\'s rows')
      const stalledJob = ((await page.locator('#run-title').textContent()) ?? '').replace(/^Job /, '')
      await page.getByRole('button', { name: 'Cancel…' }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Keep it running' }).click()
      t.equal((await app.inject({ url: `/api/jobs/${stalledJob}`, headers: { 'x-api-key': key } })).json().status, 'running', 'kept running when the person says so')
      await page.getByRole('button', { name: 'Cancel…' }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel the job' }).click()
      const cancelled = page.locator('[data-run-cancelled]')
      await cancelled.waitFor()
      t.match(await cancelled.textContent(), /^Cancelled/, 'the panel says cancelled')
      t.equal(await page.locator('#run-stage').textContent(), 'cancelled', 'the stage says cancelled')
      t.equal(await page.locator('#run-outcome [role=alert]').count(), 0, 'not shown as an error')
      t.not(await page.locator('#run-progress').evaluate(el => (el as HTMLProgressElement).value), 100, 'the bar does not jump to full')
      t.match((await app.inject({ url: `/api/jobs/${stalledJob}`, headers: { 'x-api-key': key } })).json(), { status: 'cancelled', refunded: true }, 'the status record says cancelled')
      await noAxeFindings(t, page, errors, 'a cancelled run')
      await page.getByLabel('Tool', { exact: true }).selectOption('websearch')
      t.equal(await page.locator('#run-title').count(), 0, 'another tool: the last job\'s panel is gone')

      // The jobs list: each job's input, a Cancelled filter, and a running job followed live.
      const live = (await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': key }, payload: { tool: 'webemail', params: { website: shops.stalledSite(2) } } })).json().job_id as string
      await go('jobs', 'Jobs')
      const liveRow = page.locator(`tr[data-job-id="${live}"]`)
      await liveRow.waitFor()
      t.match(await liveRow.locator('td.input').textContent(), 'stall-2.example', 'the row shows its input')
      await app.inject({ method: 'DELETE', url: `/api/tool-run/${live}`, headers: { 'x-api-key': key } })
      await t.resolves(liveRow.locator('.state-cancelled').waitFor({ timeout: 30_000 }), 'the row turns cancelled without a reload')
      await page.getByLabel('Show').selectOption('cancelled')
      await t.resolves(page.locator(`tr[data-job-id="${stalledJob}"]`).waitFor(), 'the Cancelled filter lists the cancelled run')
      t.equal(await page.locator('tbody tr').count(), 2, 'and only the cancelled ones')
      await noAxeFindings(t, page, errors, 'the jobs list, cancelled filter')

      // Log out: no signed-in menu left.
      await page.getByRole('button', { name: 'Log out' }).click()
      await signupFormOf(page).waitFor()
      t.notOk(await menu().isVisible(), 'no menu after logging out')
      t.equal(await page.locator('#nav a').count(), 0, 'and no dead links in it')
      t.notOk(await page.getByRole('button', { name: 'Log out' }).isVisible(), 'no log out button')
      await noAxeFindings(t, page, errors, 'logged out')
      t.same(errors, [], 'no script error or refused resource (CSP)')
      await context.close()
    })
  }

  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    t.test(`at ${viewport.width} px wide, an uploaded clip: the upload field says so, and the frames are listed as thumbnails in time order`, { skip: hasFfmpeg() ? false : 'no ffmpeg' }, async t => {
      const dir = tempDir(t)
      const clip = join(dir, 'clip.mp4')
      execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=3:size=160x120:rate=10', '-c:v', 'mpeg4', '-pix_fmt', 'yuv420p', '-f', 'mp4', clip])
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      await page.goto(`${base}/app`)
      await page.evaluate(key => sessionStorage.setItem('extraction-jobs.key', key), apiKey)
      await page.goto(`${base}/app#playground?tool=video_frames`)
      await page.reload()
      const upload = page.getByLabel('Upload a file (instead of a link)')
      await upload.waitFor()
      t.match(await page.locator(`label[for="${(await page.getByLabel(/^Video|^Url/).first().getAttribute('id'))!}"]`).textContent(), /\(or an upload\)$/, 'the link field says an upload can stand in, not "(required)"')
      await page.getByRole('button', { name: 'Run' }).click()
      t.match(await page.locator('.field-problem:not([hidden])').first().textContent(), /choose a file to upload/, 'neither a link nor a file: said under the field')
      await upload.setInputFiles(clip)
      await page.getByRole('button', { name: 'Run' }).click()
      await page.locator('[data-run-done]').waitFor({ timeout: 120_000 })
      await page.locator('[data-results]').waitFor()
      t.equal(await page.locator('[data-results] tbody tr').count(), 3, 'three frames of a 3 s clip, one a second')
      await t.resolves(page.locator('[data-results] .file-cell img[src^="data:image/"]').first().waitFor(), 'each frame\'s cell is a thumbnail')
      const times = (await page.locator('[data-results] tbody tr').evaluateAll(rows => rows.map(row => row.textContent ?? '')))
      t.same(times.map(text => /\d\d:\d\d:\d\d\.\d{3}/.exec(text)?.[0]), ['00:00:00.000', '00:00:01.000', '00:00:02.000'], 'listed in time order')
      await noAxeFindings(t, page, [], 'the frames of an upload')
      await context.close()
    })
  }
}
