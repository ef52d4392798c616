// The dashboard's server side without a browser: /app and its assets (CSP,
// no inline code, hashed names, compression, caching, {detail} for an unknown
// file), GET /api/tools (what the generated form reads) and
// GET /api/jobs/<id>/input (what "run again" reads), and the front-end's
// source rule: data is never written as markup.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { signup, PUBLIC_TOKEN } from '../helpers/build.ts'
import { buildWithCounter, startJob, waitForEnd } from '../helpers/jobs.ts'
import { mintToken } from '../kernel/_kernel.ts'
import { PAGE_CSP as DASHBOARD_CSP } from '../../core/security-headers.ts'
import { toolViews } from '../../core/features/web/dashboard/dashboard-bundle.ts'

// The tests of the routes share one app, the parent test's (a top-level app would be shared with the
// other files of a test group, test/groups/).
t.test('the dashboard\'s routes, on one app', async t => {
  const app = await buildWithCounter(t)

  t.test('GET /app: the page, under a strict CSP, with no inline code', async t => {
    const res = await app.inject({ url: '/app' })
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^text\/html/)
    t.equal(res.headers['content-security-policy'], DASHBOARD_CSP)
    t.match(DASHBOARD_CSP, /script-src 'self';/)
    t.notMatch(DASHBOARD_CSP, /unsafe/)
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.equal(res.headers['cache-control'], 'no-cache')
    const html = res.body
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    t.equal(scripts.length, 1, 'one script')
    t.match(scripts[0]![1], /src="\/app\/assets\/dashboard\.[0-9a-f]{12}\.js"/, 'linked by its hashed name')
    t.equal(scripts[0]![2]!.trim(), '', 'no inline code')
    t.notMatch(html, /\sstyle=|<style|\son[a-z]+=/i, 'no inline style or handler')
    t.equal((await app.inject({ url: '/app/' })).statusCode, 200, 'a trailing slash is the same page')
    t.equal((await app.inject({ method: 'HEAD', url: '/app' })).statusCode, 200)
    const again = await app.inject({ url: '/app', headers: { 'if-none-match': res.headers.etag as string } })
    t.equal(again.statusCode, 304, 'revalidated by its ETag')
  })

  t.test('the assets: immutable, compressed as the client accepts, 404 {detail} for another name', async t => {
    const html = (await app.inject({ url: '/app' })).body
    const names = [...html.matchAll(/\/app\/assets\/[^"]+/g)].map(m => m[0])
    t.equal(names.length, 2, 'a script and a style sheet')
    for (const url of names) {
      const plain = await app.inject({ url })
      t.equal(plain.statusCode, 200, url)
      t.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable')
      t.equal(plain.headers['content-security-policy'], DASHBOARD_CSP)
      t.equal(plain.headers['content-encoding'], undefined, 'no encoding asked, none given')
      const br = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } })
      t.equal(br.headers['content-encoding'], 'br')
      t.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body)
      const gzip = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } })
      t.equal(gzip.headers['content-encoding'], 'gzip')
      t.equal(gunzipSync(gzip.rawPayload).toString(), plain.body)
      t.ok(br.rawPayload.length < plain.rawPayload.length / 2, `${url}: compressed ${plain.rawPayload.length} → ${br.rawPayload.length} bytes`)
    }
    const missing = await app.inject({ url: '/app/assets/dashboard.000000000000.js' })
    t.equal(missing.statusCode, 404)
    t.match(missing.json(), { detail: /No dashboard file/ })
  })

  t.test('GET /api/tools: every enabled tool with its params schema', async t => {
    const res = await app.inject({ url: '/api/tools' })
    t.equal(res.statusCode, 200)
    const { count, tools } = res.json()
    t.equal(count, app.services.registry.enabled().length)
    const counter = tools.find((tool: { key: string }) => tool.key === 'counter')
    t.match(counter, { title: String, description: String, per_run_fields: ['max_results'], upload: null })
    t.match(counter.params.properties.max_results, { type: 'integer', default: 5, minimum: 1 })
    t.same(counter.params.properties.outcome.default, 'done')
    t.notOk(JSON.stringify(tools).includes('[object'), 'plain JSON Schema')
  })

  t.test('GET /api/jobs/<id>/input: the stored params, for the caller who may see the job', async t => {
    const owner = await signup(app)
    const started = await startJob(app, owner.apiKey, { max_results: 100000, label: 'again' })
    const id = started.json().job_id as string
    await waitForEnd(app, owner.apiKey, id)
    const res = await app.inject({ url: `/api/jobs/${id}/input`, headers: { 'x-api-key': owner.apiKey } })
    t.equal(res.statusCode, 200)
    t.match(res.json(), { job_id: id, tool: 'counter', upload: false, params: { label: 'again', max_results: 200, delay_ms: 0 } }, 'defaults filled, the per-run field clamped to the tier')
    const stranger = await signup(app)
    t.equal((await app.inject({ url: `/api/jobs/${id}/input`, headers: { 'x-api-key': stranger.apiKey } })).statusCode, 404, "another account's job")
    const scoped = await mintToken(app, owner.apiKey, { tools: ['webemail'] })
    t.equal((await app.inject({ url: `/api/jobs/${id}/input`, headers: { 'x-api-key': scoped.token } })).statusCode, 404, 'a token for another tool')
    t.equal((await app.inject({ url: `/api/jobs/${id}/input`, headers: { 'x-api-key': PUBLIC_TOKEN } })).statusCode, 403, 'a guest')
  })
})

t.test('the front-end never writes data as markup', async t => {
  const dir = 'core/features/web/dashboard/client'
  // The tools' views (plugins' dashboard/ folders) are part of the front-end.
  const toolViews = readdirSync('plugins', { recursive: true, encoding: 'utf8' }).filter(f => /(^|\/)dashboard\/[^/]+\.ts$/.test(f)).map(f => join('plugins', f))
  t.ok(toolViews.length >= 2, `${toolViews.length} tool view files`)
  const files = [...readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(f => f.endsWith('.ts')).map(f => join(dir, f)), ...toolViews]
  t.ok(files.length >= 8, `${files.length} source files`)
  for (const file of files) {
    const source = readFileSync(file, 'utf8')
    t.notMatch(source, /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|\beval\(|new Function\(/, `${file}: text only`)
    t.notMatch(source, /localStorage|document\.cookie/, `${file}: the key stays in sessionStorage`)
  }
})

t.test('the tools\' views: one per name, in the tools\' order; a clash stops the boot', async t => {
  const view = (name: string, file: string) => ({ name, title: name, module: new URL(`file:///views/${file}`) })
  const tool = (key: string, ...dashboardViews: Array<ReturnType<typeof view>>) => ({ declaration: { key, dashboardViews } })
  t.same(toolViews([tool('a', view('search', 's.ts')), tool('b', view('media', 'm.ts')), tool('c', view('media', 'm.ts')), tool('d')]).map(v => v.name), ['search', 'media'], 'the shared one once')
  t.throws(() => toolViews([tool('b', view('media', 'm.ts')), tool('c', view('media', 'other.ts'))]), /"c" and "b" tools declare the dashboard view "media"/)
  t.throws(() => toolViews([tool('a', view('jobs', 'j.ts'))]), /dashboard's own/)
  t.throws(() => toolViews([tool('a', view('Not a hash', 'j.ts'))]), /lowercase letters/)
})
