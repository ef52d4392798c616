// The README's Tools table is the operator's list of what this server runs:
// it must name exactly the enabled tools of tools.config.json, each with
// exactly its agent tools, so adding or disabling a plugin without the docs fails here.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { build } from '../helpers/build.ts'

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

t.test('the table parser reads keys and agent tools', async t => {
  const table = readmeToolTable('## Tools\n\n| key | agent tool(s) | source |\n|---|---|---|\n| `a` (+ `POST /x`) | `one`, `two` | `src` |\n\n## API\n| `b` | `c` | d |\n')
  t.same(table, [{ key: 'a', agentTools: ['one', 'two'] }])
})
