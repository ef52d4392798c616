// The public pages in a real browser (Debian's chromium through
// playwright-core): a guest reads `/`, `/blog` and a post by following links
// with JavaScript off; each page, and the 404 page, passes axe-core with no
// serious or critical violation, breaks no rule of the CSP (the stylesheet
// loads, nothing is refused) and renders at desktop and phone sizes
// (screenshots under .tap/screenshots/public-pages/, checked non-blank).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { BrowserContext, Page } from 'playwright-core'
import { build, ADMIN_KEY } from '../helpers/build.ts'
import { axeViolations, haveChromium, openBrowser, screenshotIsBlank } from '../helpers/browser.ts'

const SCREENSHOTS = resolve('.tap/screenshots/public-pages')
/** A 2×2 PNG as a data: URL: an image inside a post that the CSP allows (img-src 'self' data:). */
const DATA_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGNkYPjPwMDAwMDAwMAAAAYMAQHdM9bzAAAAAElFTkSuQmCC'

const SIZES = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
} as const

/** Records, inside the page, every CSP violation the browser reports (before any page script could run). */
const recordCspViolations = () => {
  const seen: string[] = []
  ;(globalThis as unknown as { cspViolations: string[] }).cspViolations = seen
  document.addEventListener('securitypolicyviolation', e => { seen.push(`${e.violatedDirective} ${e.blockedURI}`) })
}

async function cspTrouble (page: Page, console: string[]): Promise<string[]> {
  const recorded = await page.evaluate(() => (globalThis as unknown as { cspViolations?: string[] }).cspViolations ?? [])
  return [...recorded, ...console.filter(line => /Content Security Policy/i.test(line))]
}

t.test('a guest reads the public pages in chromium', { skip: !haveChromium() && 'no chromium at /usr/bin/chromium (CHROMIUM_BIN)' }, async t => {
  const app = await build(t)
  const headers = { 'x-api-key': ADMIN_KEY }
  const post = async (payload: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: '/api/blog/post', headers, payload })
    if (res.statusCode !== 201) throw new Error(`publish failed: ${res.statusCode} ${res.body}`)
    return res.json().post as { slug: string, title: string }
  }
  await post({ title: 'How we find contact e-mails', content: '<p>Crawl the contact page first.</p>', excerpt: 'Contact pages <em>first</em>.' })
  const featured = await post({
    title: 'Turning map listings into a lead list',
    is_featured: true,
    meta_description: 'From a maps search to a verified lead list.',
    excerpt: 'From a <strong>maps search</strong> to verified leads.',
    content: `<h2>Start with a search</h2><p>Run <code>maps</code> for a niche and a city.</p><figure><img src="${DATA_PNG}" alt="A tiny chart of leads" width="64" height="64"><figcaption>Leads per city</figcaption></figure><h2>Then verify</h2><ul><li>Find e-mails with <code>webemail</code>.</li><li>Check them with <code>email</code>.</li></ul><pre><code>curl /api/tool-run</code></pre><table><thead><tr><th scope="col">step</th><th scope="col">tool</th></tr></thead><tbody><tr><td>1</td><td>maps</td></tr></tbody></table>`,
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  mkdirSync(SCREENSHOTS, { recursive: true })
  t.comment(`screenshots: ${SCREENSHOTS}`)

  const browser = await openBrowser(t)

  await t.test('with JavaScript off, a guest follows links from / to the blog and a post', async t => {
    const context = await browser.newContext({ ...SIZES.desktop, javaScriptEnabled: false })
    t.teardown(() => context.close())
    const page = await context.newPage()
    const home = await page.goto(`${origin}/`)
    t.equal(home?.status(), 200)
    t.equal(await page.locator('h1').textContent(), 'Turn the public web into rows')
    t.ok(await page.locator('.tools li').count() > 0, 'the tools are listed')
    await page.getByRole('link', { name: 'Blog', exact: true }).click()
    await page.waitForURL(`${origin}/blog`)
    t.equal(await page.locator('.posts h2 a').first().textContent(), featured.title, 'the featured post comes first')
    await page.locator('.posts h2 a').first().click()
    await page.waitForURL(`${origin}/blog/${featured.slug}`)
    t.equal(await page.locator('article h1').textContent(), featured.title)
    t.equal(await page.locator('article figure img').getAttribute('alt'), 'A tiny chart of leads')
    t.equal(await page.getByRole('link', { name: 'Sign up' }).getAttribute('href'), '/app#signup', 'sign-up leads to the dashboard')
  })

  const pages: Array<{ name: string, path: string, status: number }> = [
    { name: 'home', path: '/', status: 200 },
    { name: 'blog', path: '/blog', status: 200 },
    { name: 'post', path: `/blog/${featured.slug}`, status: 200 },
    { name: 'not-found', path: '/blog/no-such-post', status: 404 },
  ]
  for (const [size, options] of Object.entries(SIZES)) {
    await t.test(`${size}: axe-core, the CSP and a screenshot of each page`, async t => {
      const context: BrowserContext = await browser.newContext(options)
      t.teardown(() => context.close())
      await context.addInitScript(recordCspViolations)
      const page = await context.newPage()
      const console: string[] = []
      page.on('console', message => { console.push(message.text()) })
      page.on('pageerror', error => { console.push(`page error: ${error.message}`) })
      for (const { name, path, status } of pages) {
        console.length = 0
        const res = await page.goto(`${origin}${path}`)
        t.equal(res?.status(), status, `${path}: ${status}`)
        t.equal(res?.headers()['content-security-policy']?.startsWith("default-src 'self'"), true, `${path}: served with the CSP`)
        // The stylesheet loaded under the CSP: the top bar has its background.
        const barColour = await page.locator('header.bar').evaluate(el => getComputedStyle(el).backgroundColor)
        t.not(barColour, 'rgba(0, 0, 0, 0)', `${path}: the stylesheet applies (${barColour})`)
        t.same(await cspTrouble(page, console), [], `${path}: nothing refused by the CSP`)
        // A 404 is the page's own answer; nothing else it asks for is missing (a browser's /favicon.ico included).
        t.same(console.filter(line => /Failed to load resource/.test(line)).slice(status === 404 ? 1 : 0), [], `${path}: no resource missing`)
        const png = await page.screenshot({ fullPage: true })
        writeFileSync(join(SCREENSHOTS, `${name}-${size}.png`), png)
        t.notOk(screenshotIsBlank(png), `${path}: the ${size} screenshot is not blank`)
        if (size === 'phone') {
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
          t.ok(overflow <= 0, `${path}: no sideways scrolling on a phone (${overflow} px)`)
        }
        // axe last: the helper's script tag is itself refused by the CSP (it then evaluates the source).
        const violations = await axeViolations(page)
        t.same(violations, [], `${path}: no serious or critical axe-core violation`)
      }
    })
  }

  await t.test('page weight of / (compressed, as a browser fetches it)', async t => {
    const context = await browser.newContext(SIZES.phone)
    t.teardown(() => context.close())
    const page = await context.newPage()
    const urls: string[] = []
    const sizes: Array<Promise<number>> = []
    page.on('response', response => {
      urls.push(new URL(response.url()).pathname)
      sizes.push(response.request().sizes().then(s => s.responseBodySize + s.responseHeadersSize))
    })
    // networkidle: no request for 500 ms after the load, so a late one (an icon) would be counted too.
    await page.goto(`${origin}/`, { waitUntil: 'networkidle' })
    const bytes = (await Promise.all(sizes)).reduce((sum, n) => sum + n, 0)
    t.same(urls.sort(), ['/', '/assets/site.css'], 'one page and one stylesheet, nothing else')
    t.comment(`/ transfers ${bytes} bytes with headers`)
    t.ok(bytes < 30_000, `/ is light: ${bytes} bytes`)
  })
})
