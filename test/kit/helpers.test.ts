// The shared test helpers for the distributed mode and the browser tests work
// on this machine (the suites that use them would fail less clearly).
import t from 'tap'
import { Redis } from 'ioredis'
import { startRedis } from '../helpers/redis-server.ts'
import { openBrowser, axeViolations, screenshotIsBlank, haveChromium } from '../helpers/browser.ts'

t.test('startRedis serves, and restart brings the same port back', async (t) => {
  const redis = await startRedis(t)
  const client = new Redis(redis.url, { maxRetriesPerRequest: null })
  t.teardown(() => client.disconnect())
  t.equal(await client.ping(), 'PONG')
  await client.set('k', 'v')
  await redis.restart()
  t.equal(await client.ping(), 'PONG', 'the client reconnects to the restarted server')
  t.equal(await client.get('k'), null, 'a restart keeps nothing (no persistence)')
})

t.test('openBrowser, screenshotIsBlank and axeViolations', { skip: !haveChromium() && 'no chromium at /usr/bin/chromium' }, async (t) => {
  const browser = await openBrowser(t)
  const page = await browser.newPage()
  await page.setContent('<html><body></body></html>')
  t.equal(screenshotIsBlank(await page.screenshot()), true, 'an empty page is blank')
  await page.setContent('<html lang="en"><head><title>x</title></head><body><main><h1>Hello</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></body></html>')
  t.equal(screenshotIsBlank(await page.screenshot()), false, 'a heading is not blank')
  const violations = await axeViolations(page)
  t.ok(violations.some((v) => v.id === 'image-alt'), 'an image without alt is a critical violation')
})
