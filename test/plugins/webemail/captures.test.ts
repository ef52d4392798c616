// The real pages in ../shared/fixtures/captures/emails/, served as a one-page
// site and crawled by the whole tool: Cloudflare and written-out addresses.
import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { resolve } from 'node:path'
import type { AddressInfo } from 'node:net'
import { signup } from '../../helpers/build.ts'
import { buildWithCounter, startJob, waitForEnd } from '../../helpers/jobs.ts'

const CAPTURES = resolve('../shared/fixtures/captures/emails')
const cases = [
  { file: 'cfemail_barbadostoday_article.html', expect: 'kareemsmith@barbadostoday.bb' },
  { file: 'obfuscated_at_dot_deutscheweine.html', expect: 'info@deutscheweine.de' },
]

if (!existsSync(CAPTURES)) {
  t.comment(`captures folder absent (${CAPTURES}): the capture crawl tests are skipped`)
  t.test('crawling the captured pages', { skip: `captures folder absent: ${CAPTURES}` }, async () => {})
} else {
  for (const c of cases) {
    t.test(`crawling ${c.file} finds ${c.expect}`, async t => {
      const html = readFileSync(resolve(CAPTURES, c.file))
      const server = createServer((req, res) => {
        if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(html) } else { res.writeHead(404); res.end() }
      })
      await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
      t.teardown(() => { server.closeAllConnections(); server.close() })
      const app = await buildWithCounter(t, { env: { ALLOW_PRIVATE_TARGETS: '1' } })
      const user = await signup(app)
      const { job_id: id } = (await startJob(app, user.apiKey, { website: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, max_pages: 1 }, 'webemail')).json()
      const status = await waitForEnd(app, user.apiKey, id, 60_000)
      t.equal(status.status, 'done')
      const row = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results[0]
      t.ok(row.emails.includes(c.expect), `found ${row.emails.join(', ')}`)
      t.equal(row.pages_scanned, 1)
    })
  }
}
