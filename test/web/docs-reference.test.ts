// /docs in a real browser (Debian's chromium through playwright-core): Swagger
// UI draws the service's own OpenAPI document under the pages' CSP (nothing
// refused, no request leaves the server), axe-core finds no serious or
// critical issue (the method badges' contrast included), and try-it works: a
// public route, then a keyed one after Authorize, each answering 200 with its
// curl command shown; POST /api/tool-run offers one example a tool and a curl
// command a tool; at 390 px wide too.
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { Page } from 'playwright-core'
import { build } from '../helpers/build.ts'
import { axeViolations, haveChromium, openBrowser } from '../helpers/browser.ts'

const recordCspViolations = () => {
  const seen: string[] = []
  ;(globalThis as unknown as { cspViolations: string[] }).cspViolations = seen
  document.addEventListener('securitypolicyviolation', e => { seen.push(`${e.violatedDirective} ${e.blockedURI}`) })
}

/** Opens an operation's block by its path, clicks Try it out, then Execute, and returns the block. */
async function tryIt (page: Page, operationId: string) {
  const block = page.locator(`#operations-${operationId}`)
  await block.locator('.opblock-summary-control').click()
  await block.getByRole('button', { name: 'Try it out' }).click()
  await block.getByRole('button', { name: 'Execute' }).click()
  await block.locator('.live-responses-table tr.response .response-col_status').first().waitFor()
  return block
}

t.test('/docs: an interactive reference under the CSP', { skip: !haveChromium() && 'no chromium at /usr/bin/chromium (CHROMIUM_BIN)' }, async t => {
  const app = await build(t)
  const signup = await app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: 'docs@example.test', password: 'correct horse battery' } })
  const key = signup.json().user.api_key as string
  await app.listen({ port: 0, host: '127.0.0.1' })
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`

  const browser = await openBrowser(t)
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  t.teardown(() => context.close())
  await context.addInitScript(recordCspViolations)
  const page = await context.newPage()
  const requests: string[] = []
  page.on('request', request => { requests.push(request.url()) })
  const errors: string[] = []
  page.on('pageerror', error => { errors.push(error.message) })
  page.on('console', message => { if (/Content Security Policy/i.test(message.text())) errors.push(message.text()) })

  const res = await page.goto(`${origin}/docs`)
  t.equal(res?.status(), 200)
  await page.locator('#operations-Jobs-post_api_tool_run').waitFor()
  t.ok(await page.locator('.opblock').count() > 40, 'every operation is drawn')

  await t.test('try-it on a public route answers 200 and shows its curl command', async t => {
    const block = await tryIt(page, 'Service-get_api_health')
    t.match(await block.locator('.live-responses-table tr.response .response-col_status').first().textContent(), /^\s*200\b/)
    t.match(await block.locator('.curl-command').textContent(), /curl -X 'GET' \\?\s*'http:\/\/127\.0\.0\.1:\d+\/api\/health'/)
  })

  await t.test('after Authorize with a key, try-it on a keyed route answers 200', async t => {
    await page.getByRole('button', { name: /Authorize/ }).first().click()
    const dialog = page.locator('.dialog-ux')
    // The first scheme is apiKey (x-api-key).
    const scheme = dialog.locator('.auth-container').first()
    await scheme.locator('input').fill(key)
    await scheme.getByRole('button', { name: 'Apply credentials' }).click()
    await dialog.locator('.close-modal').click()
    const block = await tryIt(page, 'Account-get_api_auth_me')
    t.match(await block.locator('.live-responses-table tr.response .response-col_status').first().textContent(), /^\s*200\b/)
    t.match(await block.locator('.curl-command').textContent(), /x-api-key: sk-/)
  })

  await t.test('the start offers an example a tool, each with its curl command in the description', async t => {
    const block = page.locator('#operations-Jobs-post_api_tool_run')
    await block.locator('.opblock-summary-control').click()
    const options = await block.locator('.examples-select select option').allTextContents()
    const keys = app.services.registry.enabled().map(tool => tool.declaration.key)
    t.equal(options.length, keys.length, 'one example a tool')
    const description = (await block.locator('.opblock-description-wrapper').first().textContent()) ?? ''
    t.equal(description.match(/curl -X POST "\$BASE\/api\/tool-run"/g)?.length, keys.length, 'a curl command a tool')
  })

  const violations = await page.evaluate(() => (globalThis as unknown as { cspViolations?: string[] }).cspViolations ?? [])
  t.same([...violations, ...errors], [], 'nothing refused by the CSP, no page error')
  t.same(requests.filter(url => !url.startsWith(origin) && !url.startsWith('data:')), [], 'no request leaves the server')

  // axe last, on the page as try-it left it: the helper's script tag is itself refused by the CSP (it then evaluates the source).
  await t.test('axe-core: no serious or critical issue, the method badges included', async t => {
    t.same(await axeViolations(page), [], 'no serious or critical axe-core violation')
    const contrast = await page.locator('.opblock-get .opblock-summary-method').first().evaluate(el => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor])
    t.same(contrast, ['rgb(255, 255, 255)', 'rgb(29, 91, 158)'], 'GET: white on a dark blue (6.6 : 1)')
  })

  await t.test('at 390 px wide: try-it runs a request, and axe-core finds no serious or critical issue after it', async t => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } })
    t.teardown(() => phone.close())
    const narrow = await phone.newPage()
    await narrow.goto(`${origin}/docs`)
    const block = await tryIt(narrow, 'Service-get_api_health')
    t.match(await block.locator('.live-responses-table tr.response .response-col_status').first().textContent(), /^\s*200\b/)
    t.same(await axeViolations(narrow), [], 'no serious or critical axe-core violation')
  })
})
