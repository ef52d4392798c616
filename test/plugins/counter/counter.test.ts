// The example plugin's own test (core/tools/README.md, "Testing a tool"): its
// declaration loads, its settings are checked at boot, and a run through the
// real kernel (buildApp + inject, a real database) pushes the rows it promises.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ToolRegistry } from '../../../core/tools/registry.ts'
import { build, signup, tempDir } from '../../helpers/build.ts'
import { startJob, waitForEnd } from '../../helpers/jobs.ts'
import { toolContext } from '../../helpers/tool-context.ts'

const FIXTURES = resolve('test/fixtures')
const counterOnly = (settings?: Record<string, unknown>) => ({ tools: [{ key: 'counter', plugin: './plugins/counter', enabled: true, ...(settings ? { settings } : {}) }], retired: [] })

/** The kernel tests' tools config (test/fixtures/tools.test.config.json) with these counter settings. */
function writeConfig (t: Parameters<typeof tempDir>[0], settings: Record<string, unknown>): string {
  const file = JSON.parse(readFileSync(join(FIXTURES, 'tools.test.config.json'), 'utf8')) as { tools: Array<{ key: string, plugin: string | null, settings?: Record<string, unknown> }> }
  for (const entry of file.tools) if (entry.plugin) entry.plugin = resolve(FIXTURES, entry.plugin)
  file.tools.find(e => e.key === 'counter')!.settings = settings
  const path = join(tempDir(t), 'tools.config.json')
  writeFileSync(path, JSON.stringify(file))
  return path
}

t.test('the declaration loads, with its settings defaults', async t => {
  const counter = (await ToolRegistry.load(counterOnly(), FIXTURES)).get('counter')!
  t.same(counter.settings, { text_prefix: 'row', stage_every: 1 })
  t.ok(counter.declaration.keywords!.length > 0, 'keywords for find_tool')
  t.ok(counter.declaration.examples.length >= 2)
})

t.test('a bad setting stops the boot naming it', async t => {
  await t.rejects(ToolRegistry.load(counterOnly({ stage_every: 0 }), FIXTURES), { name: 'ConfigError', message: /the "counter" tool's setting "stage_every" must be >= 1, got 0/ })
  await t.rejects(ToolRegistry.load(counterOnly({ prefix: 'x' }), FIXTURES), { name: 'ConfigError', message: /the "counter" tool's setting "prefix" is not one it knows/ })
})

t.test('a run through the kernel: rows, summary, and the settings in use', async t => {
  const app = await build(t, { env: { TOOLS_CONFIG: writeConfig(t, { text_prefix: 'item' }) } })
  const user = await signup(app)
  const started = await startJob(app, user.apiKey, { max_results: 4, batch: 2, label: 'x' })
  t.equal(started.statusCode, 202, started.body)
  const status = await waitForEnd(app, user.apiKey, started.json().job_id)
  t.match(status, { status: 'done', records: 4, summary: { counted: 4, label: 'x' } })
  const rows = (await app.inject({ url: `/api/tool-run/${status.job_id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results
  t.same(rows.map((r: { n: number }) => r.n), [1, 2, 3, 4])
  t.equal(rows[0].text, 'item 1', 'ctx.settings.text_prefix')
  t.match(rows[1], { nested: { even: true } })
})

t.test('an outcome the kernel refunds: blocked', async t => {
  const app = await build(t, { env: { TOOLS_CONFIG: writeConfig(t, {}) } })
  const user = await signup(app)
  const started = await startJob(app, user.apiKey, { max_results: 3, outcome: 'blocked' })
  const status = await waitForEnd(app, user.apiKey, started.json().job_id)
  t.match(status, { status: 'error', blocked: true, refunded: true })
})

// A job stopped before its run code had loaded hands the run an aborted signal: no 'abort' event
// follows, so a wait that only listened for one kept its timer (up to 60 s) and with it the test
// process alive after its last test (fair-share, job-ending and scoped-visibility each idled ~60 s).
t.test('a run given an already-aborted signal stops at once, leaving no timer behind', async t => {
  const counter = (await ToolRegistry.load(counterOnly(), FIXTURES)).get('counter')!
  const stop = new AbortController()
  stop.abort(new Error('stopped before the run began'))
  const { ctx } = toolContext(counter.declaration, { max_results: 1, delay_ms: 60_000, batch: 1, outcome: 'done', label: 'row' }, { signal: stop.signal })
  let deadline: NodeJS.Timeout | undefined
  // The deadline only turns the old hang into a readable failure.
  const outcome = await Promise.race([
    counter.declaration.run(ctx as never).then(() => 'finished', (err: Error) => err.message),
    new Promise<string>(resolve => { deadline = setTimeout(() => resolve('still waiting on its delay'), 10_000) }),
  ])
  clearTimeout(deadline)
  t.equal(outcome, 'stopped before the run began')
})
