// The contract test: every plugin named in tools.config.json loads, declares
// what the kernel needs, and its examples are valid input for its own schemas.
import t from 'tap'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import { loadToolsFile } from '../../core/config.ts'
import { PLUGINS_DIR, ToolRegistry } from '../../core/tools/registry.ts'

const configPath = resolve('tools.config.json')
const file = loadToolsFile(configPath)
const registry = await ToolRegistry.load(file, dirname(configPath))

t.test('every enabled entry has a plugin and every plugin is enabled or deliberately off', async t => {
  for (const entry of file.tools) {
    if (entry.enabled) t.ok(entry.plugin, `${entry.key} is enabled and names a plugin`)
  }
  t.ok(registry.enabled().length >= 1)
})

for (const tool of registry.enabled()) {
  const d = tool.declaration
  t.test(`plugin ${d.key}`, async t => {
    t.match(d.key, /^[A-Za-z][A-Za-z0-9_]*$/)
    t.ok(d.title.length > 0, 'title')
    t.ok(d.description.length >= 60, 'an agent-facing description of some substance')
    t.equal((d.input as { type?: string }).type, 'object', 'input is an object schema')
    t.equal((d.row as { type?: string }).type, 'object', 'row is an object schema')
    t.doesNotThrow(() => tool.rowCheck, 'the row schema compiles (the registry compiles it with the first row, not at boot)')
    t.ok(d.examples.length >= 1, 'at least one example')
    // The boot checks that each path starts at a row field; every shipped tool can be monitored.
    t.ok(d.rowKey && d.rowKey.length > 0, 'declares its row identity (rowKey) for monitors')
    t.ok(d.watch && d.watch.length > 0, 'declares the fields a monitor watches (watch)')
    for (const ex of d.examples) {
      const input = Value.Default(d.input, structuredClone(ex.args))
      t.ok(tool.inputCheck.Check(input), `REST example "${ex.task}" is valid input`)
    }
    const agents = registry.listAgentTools().filter(a => a.restKey === d.key)
    t.ok(agents.length >= 1, 'serves at least one agent tool')
    for (const agent of agents) {
      t.match(agent.name, /^[a-zA-Z][a-zA-Z0-9_]{2,63}$/, `agent name ${agent.name}`)
      t.ok(agent.description.length >= 60, `${agent.name} description`)
      const check = Compile(agent.inputSchema)
      for (const ex of agent.examples) {
        t.ok(check.Check(Value.Default(agent.inputSchema, structuredClone(ex.args))), `${agent.name} example "${ex.task}" is valid agent input`)
        const params = registry.agentArgsToParams(agent, ex.args as Record<string, unknown>)
        t.doesNotThrow(() => registry.prepareInput(tool, params, 200), `${agent.name} example maps to valid REST params`)
      }
    }
    t.type(d.run, 'function')
  })
}

t.test('boot fails on an unknown plugin, a key mismatch and a duplicate agent name', async t => {
  await t.rejects(ToolRegistry.load({ tools: [{ key: 'x', plugin: 'no-such-plugin', enabled: true }], retired: [] }, process.cwd()), /does not exist/)
  await t.rejects(ToolRegistry.load({ tools: [{ key: 'other', plugin: 'webemail', enabled: true }], retired: [] }, process.cwd()), /declares the key "webemail"/)
  await t.rejects(ToolRegistry.load({ tools: [{ key: 'webemail', plugin: 'webemail', enabled: true }, { key: 'webemail', plugin: 'webemail', enabled: true }], retired: [] }, process.cwd()), /twice/)

  const dir = mkdtempSync(join(tmpdir(), 'ejs-rowkey-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'keyed'))
  // An ES module wherever the temporary folder is (with no package.json above it, the loader may read it as CommonJS).
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n')
  writeFileSync(join(dir, 'keyed', 'index.ts'), `export default { key: 'keyed', agentName: 'keyed_tool', title: 'Keyed', description: 'A fixture.', input: { type: 'object', properties: {} }, row: { type: 'object', properties: { id: { type: 'string' } } }, examples: [], rowKey: ['id'], watch: ['price'], run: async () => {} }\n`)
  await t.rejects(ToolRegistry.load({ tools: [{ key: 'keyed', plugin: './keyed', enabled: true }], retired: [] }, dir), /declares watch "price", which is not a field of its row schema/)

  // A declared list reads input fields, each in one list only.
  mkdirSync(join(dir, 'listed'))
  const listed = (list: string) => `export default { key: 'listed', agentName: 'listed_tool', title: 'Listed', description: 'A fixture.', input: { type: 'object', properties: { url: { type: 'string' }, urls: { type: 'array' } } }, row: { type: 'object', properties: { id: { type: 'string' } } }, examples: [], list: ${list}, run: async () => {} }\n`
  writeFileSync(join(dir, 'listed', 'index.ts'), listed("{ param: ['urls', 'link'], noun: 'links', onItemError: 'fail-job' }"))
  await t.rejects(ToolRegistry.load({ tools: [{ key: 'listed', plugin: './listed', enabled: true }], retired: [] }, dir), /declares the list param "link", which is not a field of its input schema/)
})

/**
 * The parameter names an agent tool's description mentions that its agent
 * schema does not have: REST-only names (renamed, or not part of this agent
 * tool). A name counts as mentioned when it is quoted (`max_results`,
 * "max_results") or, being snake_case, appears as a word.
 */
export function restOnlyNamesIn (description: string, restProperties: string[], agentProperties: string[]): string[] {
  const agent = new Set(agentProperties)
  return [...new Set(restProperties)].filter(name => {
    if (agent.has(name)) return false
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    const quoted = new RegExp(`[\`"']${escaped}[\`"']`)
    const word = name.includes('_') && new RegExp(`(^|[^A-Za-z0-9_])${escaped}($|[^A-Za-z0-9_])`).test(description)
    return quoted.test(description) || word
  })
}

const propertiesOf = (schema: unknown) => Object.keys((schema as { properties?: Record<string, unknown> }).properties ?? {})

t.test('agent descriptions name agent arguments, never a REST-only parameter', async t => {
  for (const agent of registry.listAgentTools()) {
    const rest = registry.get(agent.restKey)!
    const restOnly = restOnlyNamesIn(agent.description, [...propertiesOf(rest.declaration.input), ...Object.values(agent.renames)], propertiesOf(agent.inputSchema))
    t.same(restOnly, [], `${agent.name}: the description names ${restOnly.join(', ') || 'no REST-only parameter'}; its agent arguments are ${propertiesOf(agent.inputSchema).join(', ')}`)
  }
})

t.test('the REST-only check catches a renamed parameter and lets agent names and prose through', async t => {
  t.same(restOnlyNamesIn('Example: {"website": "acme.com", "max_pages": 20}.', ['website', 'max_pages'], ['website', 'limit']), ['max_pages'])
  t.same(restOnlyNamesIn('Set `search_terms` to a brand.', ['search_terms'], ['query']), ['search_terms'])
  t.same(restOnlyNamesIn('clamped like max_results is', ['max_results'], ['limit']), ['max_results'])
  t.same(restOnlyNamesIn('Looks an advertiser up by name. Example: {"query": "Acme"}.', ['advertiser'], ['query']), [], 'a plain word is prose')
  t.same(restOnlyNamesIn('Example: {"advertiser": "Acme"}.', ['advertiser'], ['query']), ['advertiser'])
  t.same(restOnlyNamesIn('Example: {"website": "acme.com", "limit": 20}.', ['website', 'max_pages'], ['website', 'limit']), [])
})

/** Every .ts file of a folder, sub-folders included. */
function sourceFiles (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

t.test('a plugin imports from the kernel only the contract (shared parsing is the plugin library, plugins/lib)', async t => {
  const kernel = resolve('core')
  const allowed = [resolve('core/tools/contract.ts')]
  for (const entry of file.tools.filter(e => e.plugin)) {
    for (const path of sourceFiles(join(PLUGINS_DIR, entry.plugin!))) {
      const specifiers = [...readFileSync(path, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(m => m[1] ?? m[2]!)
      const reached = specifiers.filter(s => s.startsWith('.')).map(s => resolve(dirname(path), s))
      // A tool's dashboard view (browser code, dashboardViews) imports the dashboard's view kit too: the one exception.
      const allowedHere = /\/dashboard\/[^/]+$/.test(path) ? [...allowed, resolve('core/features/web/dashboard/client/view-kit.ts')] : allowed
      const offending = reached.filter(target => target.startsWith(kernel + '/') && !allowedHere.some(a => target === a || target.startsWith(a + '/')))
      t.same(offending.map(o => relative(process.cwd(), o)), [], `${relative(process.cwd(), path)} imports from core/ only the contract`)
    }
  }
})
