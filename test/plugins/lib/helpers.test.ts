// The plugin library's shared helpers: sitemaps, site domains, JSON readers and
// the per-key limiter, each the one copy the plugins use.
import t from 'tap'
import { isSitemapIndex, isSitemapUrl, robotsSitemaps, sitemapLocations } from '../../../plugins/lib/sitemaps.ts'
import { hostOf, siteDomain } from '../../../plugins/lib/domains.ts'
import { isRecord, listOf, pathOf, readJson, textOf } from '../../../plugins/lib/json.ts'
import { KeyedLimiter, Semaphore } from '../../../plugins/lib/concurrency.ts'

t.test('sitemaps: <loc> entries (CDATA, &amp;), index detection, robots.txt lines', async t => {
  const xml = '<?xml version="1.0"?><urlset><url><loc> https://a.test/x?a=1&amp;b=2 </loc></url><url><loc><![CDATA[https://a.test/y]]></loc></url></urlset>'
  t.same(sitemapLocations(xml), ['https://a.test/x?a=1&b=2', 'https://a.test/y'])
  t.ok(isSitemapIndex('<sitemapindex xmlns="x"><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>'))
  t.notOk(isSitemapIndex(xml))
  t.same(robotsSitemaps('User-agent: *\nSitemap: https://a.test/s.xml\nsitemap:https://a.test/s.xml\n  Sitemap: https://a.test/t.xml.gz'), ['https://a.test/s.xml', 'https://a.test/t.xml.gz'])
  t.ok(isSitemapUrl('https://a.test/sitemap_products_1.xml?from=1'))
  t.ok(isSitemapUrl('https://a.test/s.xml.gz'))
  t.notOk(isSitemapUrl('https://a.test/contact'))
})

t.test('site domains: what people write for a site, one form', async t => {
  t.equal(siteDomain('https://www.Acme.com/contact'), 'acme.com')
  t.equal(siteDomain('www.acme.co.uk'), 'acme.co.uk')
  t.equal(siteDomain(' acme.com:8080 '), 'acme.com')
  t.equal(siteDomain('shop.acme.com'), 'shop.acme.com', 'a subdomain stays (not the registrable domain)')
  t.equal(siteDomain('203.0.113.7'), '203.0.113.7')
  for (const bad of ['mailto:a@acme.com', 'tel:+123', 'localhost', '', '   ', null, 42, 'not a domain']) t.equal(siteDomain(bad), null, `${String(bad)} is no site`)
  t.equal(hostOf('https://WWW.Example.org/a'), 'example.org')
  t.equal(hostOf('not a url'), '')
})

t.test('JSON readers: not-JSON and oversize are null; records, texts, lists, paths', async t => {
  t.same(readJson('{"a":[1,{"b":"x"}]}'), { a: [1, { b: 'x' }] })
  t.equal(readJson('<html>'), null)
  t.equal(readJson('[1,2,3]', 5), null, 'past the cap: not parsed')
  t.ok(isRecord({}))
  t.notOk(isRecord([]))
  t.notOk(isRecord(null))
  t.equal(textOf('  hi '), 'hi')
  t.equal(textOf('   '), null)
  t.equal(textOf(12.5), '12.5')
  t.equal(textOf(Number.NaN), null)
  t.same(listOf([1]), [1])
  t.same(listOf('x'), [])
  const value = { a: [1, { b: 'x' }] }
  t.equal(pathOf(value, 'a', 1, 'b'), 'x')
  t.equal(pathOf(value, 'a', 'b'), undefined, 'a key into an array stops')
  t.equal(pathOf(value, 'a', 5, 'b'), undefined)
  t.equal(pathOf('text', 'length'), undefined, 'only records and arrays are walked')
})

t.test('KeyedLimiter: at most N at once per key, keys independent; the Semaphore is the kernel\'s', async t => {
  const limiter = new KeyedLimiter(2)
  const running: Record<string, number> = {}
  const peak: Record<string, number> = {}
  const task = (key: string) => limiter.run(key, async () => {
    running[key] = (running[key] ?? 0) + 1
    peak[key] = Math.max(peak[key] ?? 0, running[key]!)
    await new Promise(resolve => setImmediate(resolve))
    running[key]!--
  })
  await Promise.all([...Array(6)].map(() => task('a')).concat([...Array(3)].map(() => task('b'))))
  t.same(peak, { a: 2, b: 2 })
  const { Semaphore: KernelSemaphore } = await import('../../../core/semaphore.ts')
  t.equal(Semaphore, KernelSemaphore, 'one semaphore: the contract re-exports the kernel\'s')
  const bounded = new Semaphore(1, 1)
  let release!: () => void
  const first = bounded.run(() => new Promise<void>(resolve => { release = resolve }))
  const second = bounded.run(async () => {})
  t.ok(bounded.full, 'one running and one waiting: full')
  release()
  await Promise.all([first, second])
  t.notOk(bounded.full)
})
