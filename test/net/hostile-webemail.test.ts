// webemail through the kernel against the hostile upstream (see
// fixtures/hostile-jobs.ts): a crawl through bombs, huge pages and inward
// redirects finishes with what the good pages hold; a site whose only page is
// hostile ends in a clean job error; memory stays bounded.
import t from 'tap'
import { signup } from '../helpers/build.ts'
import { CONTACT_EMAIL, URL_CREDENTIAL, startHostileUpstream } from '../fixtures/hostile/hostile-upstream.ts'
import { MB, assertNothingLeaks, hostileApp, runJob } from './fixtures/hostile-jobs.ts'
import { watchBufferPeak } from '../helpers/buffer-peak.ts'

t.test('webemail: row or clean job errors, nothing of the inside in any answer, bounded memory', async t => {
  const site = await startHostileUpstream(t)
  const app = await hostileApp(t, site)
  const user = await signup(app)
  // Loads crawlee and the extraction libraries before the baseline: they are not what is measured.
  const warm = await runJob(app, user, 'webemail', { website: `${site.origin}/contact`, max_pages: 1 })
  t.match(warm.status, { status: 'done' })
  const buffers = watchBufferPeak()

  const crawl = await runJob(app, user, 'webemail', { website: `${site.origin}/`, max_pages: 20 })
  assertNothingLeaks(t, site, crawl, 'webemail crawl')
  t.match(crawl.status, { status: 'done', records: 1 })
  t.ok(crawl.rows[0]!.emails.includes(CONTACT_EMAIL), 'the good pages were read around the bombs')

  for (const path of ['/gzip-bomb', '/redirect-inside']) {
    const alone = await runJob(app, user, 'webemail', { website: `${site.origin}${path}`, max_pages: 1 })
    assertNothingLeaks(t, site, alone, `webemail ${path}`)
    t.match(alone.status, { status: 'error', error: /larger than the|Refused to connect to an IP address/ }, `webemail ${path}: a clean job error`)
  }
  const tls = await runJob(app, user, 'webemail', { website: `${site.httpsOrigin}/contact`, max_pages: 1 })
  assertNothingLeaks(t, site, tls, 'webemail https')
  t.match(tls.status, { status: 'error', error: /TLS certificate not valid/ })
  const credential = await runJob(app, user, 'webemail', { website: `http://${URL_CREDENTIAL}@127.0.0.1:${site.port}/fail-with-credential`, max_pages: 1 })
  assertNothingLeaks(t, site, credential, 'webemail credential URL')

  const growth = buffers.stop()
  t.ok(growth < 100 * MB, `Buffer memory peaked ${Math.round(growth / MB)} MB above the start over the hostile jobs`)
  t.same(site.inside.hits, [], 'the inside was never reached')
})
