// The contract test's checks on maps before tools.config.json enables it:
// declaration, examples valid for the REST and agent schemas, and the
// "query or prompt" rule visible in both schemas.
import t from 'tap'
import { dirname, resolve } from 'node:path'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import { loadToolsFile } from '../../../core/config.ts'
import { ToolRegistry } from '../../../core/tools/registry.ts'

const configPath = resolve('test/fixtures/tools.maps.test.config.json')
const registry = await ToolRegistry.load(loadToolsFile(configPath), dirname(configPath))

t.test('maps declares what the kernel and agents need', async t => {
  const tool = registry.get('maps')!
  const d = tool.declaration
  t.equal(d.agentName, 'maps_search')
  t.equal((d.input as { type?: string }).type, 'object')
  t.equal((d.row as { type?: string }).type, 'object')
  t.ok(d.description.length >= 60)
  t.same(d.renames, { limit: 'max_results' })
  t.same((d.input as { anyOf?: unknown }).anyOf, [{ required: ['query'] }, { required: ['prompt'] }])
  for (const ex of d.examples) t.ok(tool.inputCheck.Check(Value.Default(d.input, structuredClone(ex.args))), `REST example "${ex.task}"`)
  const agent = registry.agentTool('maps_search')!
  t.ok(agent)
  const props = (agent.inputSchema as { properties: Record<string, unknown> }).properties
  t.ok(props.limit && !props.max_results, 'agent limit = REST max_results')
  t.same((agent.inputSchema as { anyOf?: unknown }).anyOf, [{ required: ['query'] }, { required: ['prompt'] }], 'agents see that one of query/prompt is required')
  const check = Compile(agent.inputSchema)
  for (const ex of agent.examples) {
    t.ok(check.Check(Value.Default(agent.inputSchema, structuredClone(ex.args))), `agent example "${ex.task}"`)
    t.doesNotThrow(() => registry.prepareInput(tool, registry.agentArgsToParams(agent, ex.args as Record<string, unknown>), 200))
  }
  t.throws(() => registry.prepareInput(tool, { max_results: 5 }, 200), /query|prompt/)
  t.same(registry.prepareInput(tool, { prompt: 'x', max_results: 5000 }, 200), { prompt: 'x', max_results: 200, deep_scan: false, source: 'auto' }, 'defaults filled, max_results clamped')
})
