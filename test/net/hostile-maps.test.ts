// maps' deep scan (maps -> webemail) through the kernel against the hostile
// upstream (see fixtures/hostile-jobs.ts): the listings stay, each website's
// scan fails alone.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { build, signup } from '../helpers/build.ts'
import { writeMapsConfig } from '../fixtures/maps/app.ts'
import { KEYS, startUpstreams } from '../fixtures/maps/upstreams.ts'
import { CONTACT_EMAIL, startHostileUpstream } from '../fixtures/hostile/hostile-upstream.ts'
import { assertNothingLeaks, runJob } from './fixtures/hostile-jobs.ts'

/** The maps test config, with webemail's 2 s page timeout raised: a loaded machine must not fail the good site. */
function mapsConfigWithPatientScans (t: Parameters<typeof writeMapsConfig>[0], urls: Record<string, string>): string {
  const path = writeMapsConfig(t, { urls })
  const config = JSON.parse(readFileSync(path, 'utf8'))
  for (const tool of config.tools) if (tool.key === 'webemail') tool.settings = { ...tool.settings, page_timeout_ms: 20_000 }
  writeFileSync(path, JSON.stringify(config, null, 2))
  return path
}

t.test('maps deep scan (maps -> webemail) on hostile websites: the listings stay, each scan fails alone', async t => {
  const site = await startHostileUpstream(t)
  const websites: Record<number, string> = { 1: `${site.origin}/contact`, 2: `${site.origin}/gzip-bomb`, 3: `${site.origin}/redirect-inside` }
  const up = await startUpstreams({ total: 3, website: i => websites[i] ?? null })
  t.teardown(() => up.close())
  const upstreamTargets = Object.values(up.urls).map(base => new URL(base).host)
  const app = await build(t, {
    env: { TOOLS_CONFIG: mapsConfigWithPatientScans(t, up.urls), ALLOW_PRIVATE_TARGETS: '0', SERPER_API_KEY: KEYS.serper },
    network: { allowedTargets: [`127.0.0.1:${site.port}`, ...upstreamTargets] },
  })
  const user = await signup(app)
  const outcome = await runJob(app, user, 'maps', { prompt: 'dentists in Austin TX', deep_scan: true })
  assertNothingLeaks(t, site, outcome, 'maps deep scan')
  t.match(outcome.status, { status: 'done', records: 3 })
  const [good, bomb, inward] = outcome.rows
  t.ok(good!.emails.includes(CONTACT_EMAIL), `the crawlable site was scanned: ${JSON.stringify(good)}`)
  t.type(bomb!.deep_scan_error, 'string')
  t.type(inward!.deep_scan_error, 'string')
  t.same(site.inside.hits, [])
})
