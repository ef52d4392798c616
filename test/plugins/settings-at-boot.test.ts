// Plugin settings and `uses` are checked at boot: a bad tools.config.json
// setting of any plugin stops the boot naming the tool and the setting (exit
// 78 from `npm start`), the schema's defaults fill what the operator left out,
// and a tool enabled without the tools it uses is refused, naming both.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import { ConfigError, loadToolsFile, type ToolsFileConfig } from '../../core/config.ts'
import { ToolRegistry } from '../../core/tools/registry.ts'
import { build, tempDir } from '../helpers/build.ts'
import { prepareServiceBuild, runServiceToExit } from '../helpers/service-build.ts'

// The last test starts package.json's start command on this run's build: it goes on meanwhile.
prepareServiceBuild()

const configPath = resolve('tools.config.json')
const shipped = loadToolsFile(configPath)
const configDir = dirname(configPath)
const load = (file: ToolsFileConfig) => ToolRegistry.load(file, configDir)

/** The shipped tools.config.json with one entry's settings replaced. */
function withSettings (key: string, settings: Record<string, unknown> | undefined): ToolsFileConfig {
  const file = structuredClone(shipped)
  const entry = file.tools.find(e => e.key === key)!
  if (settings === undefined) delete entry.settings
  else entry.settings = settings
  return file
}

const registry = await load(shipped)
const withSchema = registry.enabled().filter(tool => tool.declaration.settings)

t.test('every shipped plugin declares a settings schema', async t => {
  for (const tool of registry.enabled()) t.ok(tool.declaration.settings, `${tool.declaration.key} declares settings`)
})

// A table over every plugin with a settings schema, built from the schema itself
// so a new plugin is covered without editing this file: each of its settings, in
// turn, given a value no schema in this repository accepts.
for (const tool of withSchema) {
  const key = tool.declaration.key
  const names = Object.keys((tool.declaration.settings as { properties: Record<string, unknown> }).properties)
  t.test(`${key}: a bad value of each setting stops the boot naming the tool and the setting`, async t => {
    for (const name of names) {
      await t.rejects(load(withSettings(key, { ...tool.config.settings, [name]: { not: 'a setting value' } })),
        { name: 'ConfigError', message: `the "${key}" tool's setting "${name}"` }, name)
    }
  })
  t.test(`${key}: an unknown setting stops the boot naming it`, async t => {
    await t.rejects(load(withSettings(key, { ...tool.config.settings, no_such_setting: 1 })),
      { name: 'ConfigError', message: `the "${key}" tool's setting "no_such_setting" is not one it knows` })
  })
  t.test(`${key}: with no settings in tools.config.json, the schema's defaults`, async t => {
    const bare = (await load(withSettings(key, undefined))).get(key)!
    const defaults = Value.Default(tool.declaration.settings!, {})
    t.ok(Compile(tool.declaration.settings!).Check(defaults), 'the defaults alone are valid settings')
    t.same(bare.settings, defaults)
    t.ok(Object.isFrozen(bare.settings), 'frozen: every job shares them')
  })
}

t.test('a few bad values and what the message says', async t => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['email', { smtp_port: 70000 }, /the "email" tool's setting "smtp_port" must be <= 65535, got 70000/],
    ['email', { helo_name: 'two words' }, /"email" tool's setting "helo_name"/],
    ['disposable', { allow: ['ok.test', 'not ok'] }, /the "disposable" tool's setting "allow\[1\]" .*got "not ok"/],
    ['websearch', { cooldown_ms: '600' }, /the "websearch" tool's setting "cooldown_ms" must be integer, got "600"/],
    ['maps', { sources: ['serper', 'bing'] }, /the "maps" tool's setting "sources\[1\]"/],
    ['maps', { google_places_api: 'old' }, /the "maps" tool's setting "google_places_api" must be one of "new", "legacy", got "old"/],
    ['fbads', { api_version: '19' }, /the "fbads" tool's setting "api_version"/],
    ['adleads', { concurrency: 0 }, /the "adleads" tool's setting "concurrency" must be >= 1, got 0/],
  ]
  for (const [key, settings, message] of cases) {
    await t.rejects(load(withSettings(key, settings)), { name: 'ConfigError', message }, `${key} ${JSON.stringify(settings)}`)
  }
})

t.test('one unit per kind: durations in *_ms, parallelism as concurrency; an older name is accepted, converted, with a warning naming the new one', async t => {
  for (const tool of withSchema) {
    for (const name of Object.keys((tool.declaration.settings as unknown as { properties: Record<string, unknown> }).properties)) {
      t.notMatch(name, /(_s|_secs|_seconds|_sec)$/, `${tool.declaration.key}.${name}: a duration is in milliseconds (*_ms)`)
      t.notMatch(name, /^(?!per_).+_concurrency$|parallel/, `${tool.declaration.key}.${name}: parallelism is "concurrency" (or per_<what>_concurrency)`)
    }
  }
  const old = await load(withSettings('websearch', { cooldown_s: 120, google_cooldown_s: 300, scrape_concurrency: 2 }))
  t.same(old.get('websearch')!.settings, { cooldown_ms: 120_000, google_cooldown_ms: 300_000, concurrency: 2, max_text_chars: 100_000 }, 'seconds made milliseconds')
  t.same(old.settingWarnings, [
    'tools.config.json: the "websearch" tool\'s setting "cooldown_s" is now "cooldown_ms", in milliseconds: rename it to "cooldown_ms": 120000',
    'tools.config.json: the "websearch" tool\'s setting "google_cooldown_s" is now "google_cooldown_ms", in milliseconds: rename it to "google_cooldown_ms": 300000',
    'tools.config.json: the "websearch" tool\'s setting "scrape_concurrency" is now "concurrency": rename it to "concurrency": 2',
  ])
  const maps = await load(withSettings('maps', { overpass_timeout_s: 40, deep_scan_concurrency: 5 }))
  t.match(maps.get('maps')!.settings, { overpass_timeout_ms: 40_000, concurrency: 5 })
  t.equal((await load(shipped)).settingWarnings.length, 0, 'the shipped file uses the current names')
  await t.rejects(load(withSettings('webemail', { max_concurrency: 4, concurrency: 4 })), { name: 'ConfigError', message: /"max_concurrency" is the older name of "concurrency", and both are given/ })
  await t.rejects(load(withSettings('products', { page_timeout_secs: 0.5 })), { name: 'ConfigError', message: /"page_timeout_ms" must be >= 1000, got 500/ }, 'converted first, then validated under the new name')
})

t.test('defaults fill in around what the operator set, and reach ctx.settings and createState', async t => {
  const r = await load(withSettings('websearch', { google_cooldown_ms: 60_000 }))
  t.same(r.get('websearch')!.settings, { cooldown_ms: 600_000, google_cooldown_ms: 60_000, concurrency: 4, max_text_chars: 100_000 })
  const health = r.get('websearch')!.state as { recordBlocked (engine: string, reason: string): void, statusRecord (o: unknown): Record<string, any> }
  health.recordBlocked('google', 'consent wall')
  const status = health.statusRecord({ credential: () => undefined, credentialNames: {}, proxyConfigured: false })
  t.equal(status.engine_health.google.cooldown_remaining_s, 60, 'createState made the engine health with the cooldown setting')
  const email = (await load(withSettings('email', { smtp_port: 2525 }))).get('email')!.settings
  t.match(email, { smtp_port: 2525, dns_timeout_ms: 5000, helo_name: '', starttls: true })
})

t.test('a tool without a settings schema takes no settings', async t => {
  // relay (a test-only tool) declares no settings schema.
  await t.rejects(ToolRegistry.load({ tools: [{ key: 'relay', plugin: './plugins/relay', enabled: true, settings: { speed: 1 } }, { key: 'counter', plugin: './plugins/counter', enabled: true }], retired: [] }, resolve('test/fixtures')),
    { name: 'ConfigError', message: /the "relay" tool takes no settings, but "speed" is given/ })
})

t.test('uses: boot refuses a tool enabled without the tools it runs, naming both', async t => {
  const file = structuredClone(shipped)
  file.tools.find(e => e.key === 'webemail')!.enabled = false
  await t.rejects(load(file), { name: 'ConfigError', message: /enables the tool "maps", which uses the tool "webemail", but "webemail" is not enabled/ })
  const relayAlone: ToolsFileConfig = { tools: [{ key: 'relay', plugin: './plugins/relay', enabled: true }, { key: 'counter', plugin: './plugins/counter', enabled: false }], retired: [] }
  await t.rejects(ToolRegistry.load(relayAlone, resolve('test/fixtures')), /"relay", which uses the tool "counter"/)
  // Disabled, it may go without them.
  file.tools.find(e => e.key === 'maps')!.enabled = false
  file.tools.find(e => e.key === 'adleads')!.enabled = false
  t.ok(await load(file))
})

t.test('buildApp and npm start refuse a bad setting; npm start exits 78 naming it', async t => {
  const dir = tempDir(t)
  const bad = join(dir, 'tools.json')
  const file = withSettings('email', { smtp_port: 'twenty-five' })
  // The plugins stay named by their folder under plugins/: the one of the code that runs (the
  // source tree's in this process, the build's in the compiled start's), wherever the file is.
  writeFileSync(bad, JSON.stringify(file))
  await t.rejects(build(t, { env: { TOOLS_CONFIG: bad } }), ConfigError)
  const res = await runServiceToExit('start', { DATA_DIR: dir, SECRET_KEY: 'a-secret-of-sixteen+', PORT: '0', TOOLS_CONFIG: bad })
  t.equal(res.status, 78, 'exit 78, like the other configuration errors')
  t.match(res.stderr, /configuration error: .*the "email" tool's setting "smtp_port" must be integer, got "twenty-five"/)
  // The compiled code's frames would name the .ts sources (source maps) or .js files.
  t.notMatch(res.stderr, /\.[jt]s:\d+|^\s+at /m, 'a message, not a stack')
})
