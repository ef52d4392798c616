// The README's Tools table is the operator's list of what this server runs:
// it must name exactly the enabled tools of tools.config.json, each with
// exactly its agent tools. scripts/docs-tables.ts writes it from the
// declarations, so adding or disabling a plugin means running that script;
// a table left stale fails here naming the tool.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { build } from '../helpers/build.ts'
import { between, describedTools, inputCell, sourceOf, TOOL_TABLE_END, TOOL_TABLE_START, toolRow, toolTable } from '../../scripts/docs-tables.ts'

interface ToolTableRow { key: string, agentTools: string[] }

/** Rows of the table under `## Tools`: the first backticked word of column 1, every backticked name of column 2. */
function readmeToolTable (markdown: string): ToolTableRow[] {
  const section = markdown.split(/^## Tools$/m)[1]?.split(/^## /m)[0]
  if (!section) throw new Error('README.md has no "## Tools" section')
  return section.split('\n')
    .filter(line => line.startsWith('| `'))
    .map(line => {
      const [keyCell = '', agentCell = ''] = line.split('|').slice(1)
      const key = /`([^`]+)`/.exec(keyCell)?.[1] ?? ''
      return { key, agentTools: [...agentCell.matchAll(/`([^`]+)`/g)].map(m => m[1]!).sort() }
    })
}

t.test('README Tools table lists exactly the enabled tools and their agent tools', async t => {
  const app = await build(t)
  const { registry } = app.services
  const table = readmeToolTable(readFileSync('README.md', 'utf8'))
  const enabled = registry.enabled().map(tool => tool.declaration.key)
  t.same(table.map(row => row.key).sort(), [...enabled].sort(), 'one row per enabled tool key, no row for a disabled one')
  for (const row of table) {
    const agentTools = registry.listAgentTools().filter(a => a.restKey === row.key).map(a => a.name).sort()
    t.same(row.agentTools, agentTools, `${row.key}: its agent tools`)
  }
})

t.test('the Tools table is the one the declarations give (node --import tsx scripts/docs-tables.ts --write)', async t => {
  const readme = readFileSync('README.md', 'utf8')
  const written = between(readme, TOOL_TABLE_START, TOOL_TABLE_END)
  t.ok(written !== undefined, 'the markers are in README.md')
  const rows = new Map((written ?? '').split('\n').filter(line => line.startsWith('| `')).map(line => [/`([^`]+)`/.exec(line)![1]!, line]))
  const tools = (await describedTools()).filter(tool => !tool.fixture)
  for (const tool of tools) {
    t.equal(rows.get(tool.key), toolRow(tool), `${tool.key}: its row in README.md's Tools table is stale (node --import tsx scripts/docs-tables.ts --write)`)
    t.ok(sourceOf(readFileSync(tool.readme, 'utf8')), `${tool.key}: its README has a "Source:" paragraph for the table`)
  }
  t.equal(written, toolTable(tools), 'the whole table, in tools.config.json\'s order')
})

t.test('the input cell reads the required sets of an input schema', async t => {
  const list = { anyOf: [{ type: 'string' }, { type: 'array' }] }
  t.equal(inputCell({ required: ['url'], properties: { url: list } }, false), '`url`, a string or a list')
  t.equal(inputCell({ anyOf: [{ required: ['query'] }, { required: ['niche', 'city'] }], properties: { query: { type: 'string' } } }, false), '`query` or `niche` with `city`')
  t.equal(inputCell({ oneOf: [{ required: ['query'] }, { required: ['urls'] }], properties: { query: list, urls: { type: 'array' } } }, false), '`query` or `urls`, not more than one (`query`: a string or a list)')
  t.equal(inputCell({ required: ['url'], properties: { url: { type: 'string' } } }, true), '`url`, or an uploaded file')
  t.equal(sourceOf('# x\n\nintro\n\nSource: the\n  API\n\nmore'), 'the API')
})

t.test('the table parser reads keys and agent tools', async t => {
  const table = readmeToolTable('## Tools\n\n| key | agent tool(s) | source |\n|---|---|---|\n| `a` (+ `POST /x`) | `one`, `two` | `src` |\n\n## API\n| `b` | `c` | d |\n')
  t.same(table, [{ key: 'a', agentTools: ['one', 'two'] }])
})
