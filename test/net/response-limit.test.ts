// MAX_RESPONSE_BYTES: validated at boot, and the one cap of every fetch path
// (ctx.http and ctx.crawler) of the jobs the app runs.
import t from 'tap'
import { resolve } from 'node:path'
import { ConfigError, loadConfig } from '../../core/config.ts'
import { build, signup, tempDir } from '../helpers/build.ts'
import { waitForEnd } from '../helpers/jobs.ts'
import { startHostileUpstream } from '../fixtures/hostile/hostile-upstream.ts'

const base = (dir: string) => ({ DATA_DIR: dir, SECRET_KEY: 'a-secret-of-sixteen+', TOOLS_CONFIG: resolve('tools.config.json') })

t.test('MAX_RESPONSE_BYTES: 5 MB by default, a whole number of at least 64 KiB, else the boot stops naming it', async t => {
  const dir = tempDir(t)
  t.equal(loadConfig(base(dir)).maxResponseBytes, 5 * 1024 * 1024)
  t.equal(loadConfig({ ...base(dir), MAX_RESPONSE_BYTES: '20000000' }).maxResponseBytes, 20_000_000)
  for (const bad of ['5MB', '-1', '1000', '1.5', String(2 * 1024 * 1024 * 1024)]) {
    t.throws(() => loadConfig({ ...base(dir), MAX_RESPONSE_BYTES: bad }), { name: ConfigError.name, message: /MAX_RESPONSE_BYTES/ }, bad)
  }
})

t.test('the setting caps the pages of a job, on ctx.http and on ctx.crawler', async t => {
  const site = await startHostileUpstream(t)
  const app = await build(t, { env: { MAX_RESPONSE_BYTES: '65536', ALLOW_PRIVATE_TARGETS: '1' } })
  const user = await signup(app)
  const run = async (tool: string, params: Record<string, unknown>) => {
    const start = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool, params } })
    const id = start.json().job_id as string
    const status = await waitForEnd(app, user.apiKey, id, 60_000)
    const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results
    return { status, rows }
  }
  const scraped = await run('websearch', { urls: [`${site.origin}/big-page-chunked`, `${site.origin}/contact`] })
  t.match(scraped.rows, [{ error: /larger than the 65536-byte limit/ }, { error: null }], 'ctx.http: the tool asked for 5 MB, the setting allows 64 KiB')
  const crawled = await run('webemail', { website: `${site.origin}/big-page-chunked`, max_pages: 1 })
  t.match(crawled.status, { status: 'error', error: /larger than the 65536-byte limit/ }, 'ctx.crawler')
})
