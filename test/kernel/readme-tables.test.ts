// The README tables are checked against what they describe, so they cannot
// drift: the Configuration table is the one scripts/config-table.ts writes from
// core/config-schema.ts and names every variable config.ts reads (config.test.ts
// checks the other way: each named variable has a bad-value case), the tier table carries core/quotas/tiers.ts's numbers, and
// each plugin README's Settings table lists exactly its settings schema, with
// its defaults, as scripts/docs-tables.ts writes it. (The Tools table:
// readme-tool-table.test.ts; the Authentication table: route-access.test.ts.)
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { loadConfig, loadToolsFile } from '../../core/config.ts'
import { tierLimits, type TierName } from '../../core/quotas/tiers.ts'
import { PLUGINS_DIR, ToolRegistry } from '../../core/tools/registry.ts'
import { tempDir } from '../helpers/build.ts'
import { configurationRows, configurationTable, TABLE_END, TABLE_START, withTable } from '../../scripts/config-table.ts'
import { between, describedTools, SETTINGS_TABLE_END, SETTINGS_TABLE_START, settingsTable } from '../../scripts/docs-tables.ts'

const README = readFileSync(resolve('README.md'), 'utf8')

/** The part of a Markdown text under a heading (up to the next heading of that level or above). */
function section (markdown: string, heading: RegExp): string {
  const lines = markdown.split('\n')
  const start = lines.findIndex(line => heading.test(line))
  if (start === -1) return ''
  const level = /^#+/.exec(lines[start]!)![0].length
  const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level}} `).test(line))
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n')
}

/** Rows of the first table in a text whose header starts with `firstHeader`: cells, trimmed. */
function tableRows (text: string, firstHeader: string): string[][] {
  const lines = text.split('\n')
  const start = lines.findIndex(line => line.replace(/\s/g, '').startsWith(`|${firstHeader}|`))
  if (start === -1) return []
  const rows: string[][] = []
  for (const line of lines.slice(start + 2)) {
    if (!line.trim().startsWith('|')) break
    rows.push(line.trim().slice(1, -1).split('|').map(cell => cell.trim()))
  }
  return rows
}

t.test('the Configuration table names every variable config.ts reads', async t => {
  const dir = tempDir(t)
  const read = new Set<string>()
  const env = new Proxy({ DATA_DIR: dir, SECRET_KEY: 'a-secret-of-sixteen+', TOOLS_CONFIG: resolve('tools.config.json') } as Record<string, string | undefined>, {
    get (target, key) { if (typeof key === 'string') read.add(key); return target[key as string] },
  })
  loadConfig(env)
  // Tool credentials are read by the names tools.config.json gives (README: "the exception").
  const credentials = new Set(loadToolsFile(resolve('tools.config.json')).tools.flatMap(e => Object.values(e.credentials ?? {})))
  const documented = new Set(tableRows(section(README, /^## Configuration$/), 'variable').flatMap(row => [...row[0]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map(m => m[1]!)))
  // The process environment handed on to child programs (yt-dlp, ffmpeg) as it is: not service settings.
  const inherited = new Set(['PATH', 'LANG', 'TZ', 'HOME', 'LC_ALL'])
  const variables = [...read].filter(name => /^[A-Z][A-Z0-9_]*$/.test(name) && !credentials.has(name) && !inherited.has(name))
  t.ok(variables.length >= 25, `config.ts read ${variables.length} variables`)
  for (const name of variables) t.ok(documented.has(name), `${name} is in the README's Configuration table`)
})

t.test('the Configuration table is the schema\'s (node --import tsx scripts/config-table.ts --write)', async t => {
  const between = README.slice(README.indexOf(TABLE_START) + TABLE_START.length, README.indexOf(TABLE_END))
  t.ok(README.indexOf(TABLE_START) !== -1 && README.indexOf(TABLE_END) !== -1, 'the markers are in README.md')
  const readmeRows = new Map<string, string>()
  for (const line of between.split('\n')) {
    const name = /^\| `([A-Z][A-Z0-9_]*)` \|/.exec(line)?.[1]
    if (name) readmeRows.set(name, line)
  }
  const schemaRows = configurationRows()
  for (const { name, row } of schemaRows) t.equal(readmeRows.get(name), row, `${name}: README's row is the schema's`)
  for (const name of readmeRows.keys()) t.ok(schemaRows.some(r => r.name === name), `${name}: in README's table, not in core/config-schema.ts`)
  t.same([...readmeRows.keys()], schemaRows.map(r => r.name), 'in the schema\'s order')
  t.equal(withTable(README, configurationTable()), README, 'the whole table, as the script writes it')
})

t.test('the tier table carries the numbers core/quotas/tiers.ts enforces', async t => {
  const rows = tableRows(README, 'tier')
  const number = (cell: string) => Number(cell.replace(/[,\s]/g, '').replace(/h$/, ''))
  t.same(rows.map(r => r[0]), ['guest', 'registered', 'pro'])
  for (const [tier, records, perDay, retention, running, queued, , , , monitors, interval] of rows) {
    const limits = tierLimits(tier as TierName)
    t.same([number(records!), number(perDay!), number(retention!), number(running!), number(queued!), number(monitors!), interval === 'none' ? 0 : number(interval!.replace(/ min$/, ''))],
      [limits.max_records_per_run, limits.calls_per_day, limits.retention_hours, limits.max_running_jobs, limits.max_queued_jobs, limits.max_monitors, limits.min_monitor_interval_minutes], tier)
  }
})

/** A default cell's value: its first backticked token, as JSON when it parses, else as text; undefined when the cell explains instead. */
function documentedDefault (cell: string): { value: unknown } | undefined {
  const token = /^`([^`]*)`/.exec(cell)?.[1]
  if (token === undefined) return undefined
  try { return { value: JSON.parse(token) } } catch { return { value: token } }
}

const registry = await ToolRegistry.load(loadToolsFile(resolve('tools.config.json')), resolve('.'))
const plugins = registry.enabled().map(tool => ({ key: tool.declaration.key, settings: tool.declaration.settings, readme: join(PLUGINS_DIR, tool.config.plugin!, 'README.md') }))
const counter = await ToolRegistry.load({ tools: [{ key: 'counter', plugin: './plugins/counter', enabled: true }], retired: [] }, resolve('test/fixtures'))
plugins.push({ key: 'counter', settings: counter.get('counter')!.declaration.settings, readme: resolve('test/fixtures/plugins/counter/README.md') })

for (const plugin of plugins.filter(p => p.settings)) {
  t.test(`${plugin.key}: its README's Settings table is its settings schema`, async t => {
    const properties = (plugin.settings as { properties: Record<string, { default?: unknown }> }).properties
    const rows = tableRows(section(readFileSync(plugin.readme, 'utf8'), /^## Settings/), 'setting')
    const names = rows.map(r => /`([^`]+)`/.exec(r[0]!)?.[1])
    t.same([...names].sort(), Object.keys(properties).sort(), 'one row per setting')
    for (const [cell0, defaultCell = ''] of rows) {
      const name = /`([^`]+)`/.exec(cell0!)?.[1]!
      const documented = documentedDefault(defaultCell)
      const actual = properties[name]?.default
      if (documented && actual !== undefined) t.same(documented.value, actual, `${name}: the default the README gives`)
    }
  })
}

t.test('each plugin README\'s Settings table is the one its settings schema gives (node --import tsx scripts/docs-tables.ts --write)', async t => {
  const tools = (await describedTools({ withFixtures: true })).filter(tool => tool.declaration.settings)
  t.ok(tools.length >= 15, `${tools.length} tools with settings`)
  for (const tool of tools) {
    const written = between(readFileSync(tool.readme, 'utf8'), SETTINGS_TABLE_START, SETTINGS_TABLE_END)
    t.equal(written, settingsTable(tool.declaration.settings as Parameters<typeof settingsTable>[0]), `${tool.key}: the Settings table in its README is stale (node --import tsx scripts/docs-tables.ts --write)`)
  }
})

t.test('the table readers', async t => {
  t.same(tableRows('x\n| setting | default | meaning |\n|---|---|---|\n| `a` | `1` | one |\n\nafter', 'setting'), [['`a`', '`1`', 'one']])
  t.equal(section('# A\n## Settings (x)\nbody\n## Next\nno', /^## Settings/), 'body')
  t.same(documentedDefault('`[]` (system resolvers)'), { value: [] })
  t.same(documentedDefault('`v19.0`'), { value: 'v19.0' })
  t.equal(documentedDefault('absent: 5'), undefined)
})
