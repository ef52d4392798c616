// What the agent endpoint says about the catalogue beyond the tools it runs:
// the job summary on every job answer, catalogue tools that are switched off
// or retired (an isError result like REST's 410, not "unknown tool"), and the
// REST renames in the manifest and the guide.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { tempDir } from '../helpers/build.ts'
import { TEST_TOOLS_CONFIG, usageOf } from '../helpers/jobs.ts'
import { connect, listeningApp } from './_agent.ts'

const textOf = (r: CallToolResult) => r.content.map(c => (c.type === 'text' ? c.text : '')).join('\n')

t.test('a job tool answer carries the job summary (structuredContent.summary and the text)', async t => {
  const { app, base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  await client.listTools() // the client validates structuredContent against the advertised outputSchema
  const result = await client.callTool({ name: 'count_rows', arguments: { limit: 2, label: 'lead' } }) as CallToolResult
  t.notOk(result.isError)
  const envelope = result.structuredContent as Record<string, any>
  t.same(envelope.summary, { counted: 2, label: 'lead' })
  t.match(textOf(result), /Job summary: \{"counted":2,"label":"lead"\}/)
  // The same summary REST's status record serves.
  const status = (await app.inject({ url: `/api/tool-run/${envelope.job_id}/status`, headers: { 'x-api-key': user.apiKey } })).json()
  t.same(status.summary, envelope.summary)

  // A tool that writes no summary, and a job still running, answer summary: null.
  const empty = await client.callTool({ name: 'count_rows', arguments: { outcome: 'empty' } }) as CallToolResult
  t.equal((empty.structuredContent as Record<string, any>).summary, null)
  const running = await client.callTool({ name: 'count_rows', arguments: { limit: 3, delay_ms: 2000, wait_seconds: 0 } }) as CallToolResult
  t.match(running.structuredContent, { status: 'running', summary: null })
})

t.test('a catalogue tool that is not enabled, or retired, is an isError result saying so; nothing is charged', async t => {
  const { app, base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  const listed = (await client.listTools()).tools.map(x => x.name)
  t.notOk(listed.includes('maps_search'), 'not advertised')

  const disabled = await client.callTool({ name: 'maps_search', arguments: { query: 'dentists in Austin' } }) as CallToolResult
  t.ok(disabled.isError)
  const rest = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'maps', params: {} } })
  t.equal(rest.statusCode, 410)
  t.match(textOf(disabled), /^maps_search: /)
  t.ok(textOf(disabled).includes(rest.json().detail), 'the same words as REST\'s 410')
  t.match(textOf(disabled), /not enabled on this server.*Nothing was charged/)
  t.notMatch(textOf(disabled), /Unknown tool/)

  const notBuilt = await client.callTool({ name: 'videoA_extract', arguments: {} }) as CallToolResult
  t.ok(notBuilt.isError)
  t.match(textOf(notBuilt), /The tool 'yt' is not enabled/)

  const retired = await client.callTool({ name: 'maps_reviews', arguments: {} }) as CallToolResult
  t.ok(retired.isError)
  t.match(textOf(retired), /The tool key 'mapsrev' is retired/)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0)
})

t.test('a plugin switched off in tools.config.json: its declared agent names answer "not enabled"', async t => {
  const config = JSON.parse(readFileSync(TEST_TOOLS_CONFIG, 'utf8'))
  for (const tool of config.tools) {
    if (tool.plugin?.startsWith('.')) tool.plugin = resolve(dirname(TEST_TOOLS_CONFIG), tool.plugin)
    if (tool.key === 'relay') tool.enabled = false
  }
  const path = join(tempDir(t), 'tools.config.json')
  writeFileSync(path, JSON.stringify(config))
  const { base, user } = await listeningApp(t, { env: { TOOLS_CONFIG: path } })
  const client = await connect(t, base, user.apiKey)
  const result = await client.callTool({ name: 'relay_rows', arguments: {} }) as CallToolResult
  t.ok(result.isError)
  t.match(textOf(result), /The tool 'relay' is not enabled on this server/)
})

t.test('the manifest and the guide list each tool\'s renames (agent argument → REST param)', async t => {
  const { base } = await listeningApp(t)
  const manifest = await (await fetch(new URL('/mcp/manifest.json', base))).json() as { tools: Array<Record<string, any>> }
  const counter = manifest.tools.find(x => x.name === 'count_rows')!
  t.same(counter.renames, { limit: 'max_results' })
  t.same(counter.fixed_params, {})
  t.ok('limit' in counter.inputSchema.properties && !('max_results' in counter.inputSchema.properties), 'the schema has the agent name')
  t.same(manifest.tools.find(x => x.name === 'find_tool')!.renames, {})

  const guide = await (await fetch(new URL('/mcp/docs.md', base))).text()
  const section = guide.split('### `count_rows`')[1]!.split('### ')[0]!
  t.match(section, /REST: `POST \/api\/tool-run \{"tool": "counter", "params": \{…\}\}`; renamed arguments: `limit` is REST `max_results`/)
})

t.test('boot refuses agent_names that collide with an enabled agent tool or a helper', async t => {
  for (const [name, pattern] of [['count_rows', /count_rows/], ['find_tool', /find_tool/]] as const) {
    const config = JSON.parse(readFileSync(TEST_TOOLS_CONFIG, 'utf8'))
    for (const tool of config.tools) {
      if (tool.plugin?.startsWith('.')) tool.plugin = resolve(dirname(TEST_TOOLS_CONFIG), tool.plugin)
      if (tool.key === 'yt') tool.agent_names = [name]
    }
    const path = join(tempDir(t), 'tools.config.json')
    writeFileSync(path, JSON.stringify(config))
    await t.rejects(listeningApp(t, { env: { TOOLS_CONFIG: path } }), pattern)
  }
})
