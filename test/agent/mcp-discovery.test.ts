import { resolve } from 'node:path'
import t from 'tap'
import { connect, initializeRequest, listeningApp, rawPost, sseMessages } from './_agent.ts'

t.test('initialize returns usage instructions and the server capabilities', async t => {
  const { base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  const instructions = client.getInstructions() ?? ''
  t.match(instructions, /find_tool/)
  t.match(instructions, /get_job_status/)
  t.match(instructions, /wait_seconds/)
  t.match(instructions, /count_rows/, 'names the tools this server has')
  t.match(client.getServerVersion(), { name: 'extraction-jobs', version: '1.0.0' })
  t.ok(client.getServerCapabilities()?.tools && client.getServerCapabilities()?.prompts && client.getServerCapabilities()?.resources)
})

t.test('tools/list serves every enabled tool by agent name, plus the helpers', async t => {
  const { app, base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  const { tools } = await client.listTools()
  const names = tools.map(x => x.name).sort()
  const expected = [...app.services.registry.listAgentTools().map(x => x.name), 'find_tool', 'get_job_status', 'get_job_results', 'create_monitor', 'list_monitors', 'get_monitor', 'update_monitor', 'pause_monitor', 'resume_monitor', 'delete_monitor', 'run_monitor_now', 'get_monitor_changes'].sort()
  t.same(names, expected)
  t.ok(names.includes('count_rows') && names.includes('website_email_find'))

  const count = tools.find(x => x.name === 'count_rows')!
  const props = count.inputSchema.properties as Record<string, any>
  t.ok(props.limit, 'the agent name of max_results')
  t.notOk(props.max_results)
  t.match(props.wait_seconds, { type: 'integer', minimum: 0, maximum: 60, default: 25 })
  t.notOk((count.inputSchema.required ?? []).includes('limit'), 'a field with a default is not required of the agent')
  const out = count.outputSchema as Record<string, any>
  t.same(out.required.sort(), ['blocked', 'count', 'error', 'has_more', 'job_id', 'next', 'records', 'refunded', 'results', 'stage', 'status', 'summary', 'tool', 'warning'].sort())
  t.same(out.properties.results.items, JSON.parse(JSON.stringify(app.services.registry.agentTool('count_rows')!.outputSchema)), 'rows use the REST row schema')

  const helper = tools.find(x => x.name === 'find_tool')!
  t.same(helper.inputSchema.required, ['task'])
  t.ok(helper.outputSchema)
})

t.test('the manifest serves the same schemas as tools/list, without auth', async t => {
  const { base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  const { tools } = await client.listTools()
  const res = await fetch(new URL('/mcp/manifest.json', base))
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /application\/json/)
  const manifest = await res.json() as { name: string, version: string, tools: Array<Record<string, any>> }
  t.match(manifest, { name: 'extraction-jobs', version: '1.0.0' })
  t.same(manifest.tools.map(x => x.name), tools.map(x => x.name))
  for (const listed of tools) {
    const entry = manifest.tools.find(x => x.name === listed.name)!
    t.same(Object.keys(entry).sort(), ['annotations', 'description', 'fixed_params', 'inputSchema', 'name', 'outputSchema', 'renames', 'rest_key'])
    t.same(entry.annotations, listed.annotations, `${listed.name} annotations`)
    t.same(entry.inputSchema, listed.inputSchema, `${listed.name} inputSchema`)
    t.same(entry.outputSchema, listed.outputSchema, `${listed.name} outputSchema`)
    t.equal(entry.description, listed.description)
  }
  t.equal(manifest.tools.find(x => x.name === 'count_rows')!.rest_key, 'counter')
  t.equal(manifest.tools.find(x => x.name === 'find_tool')!.rest_key, null)
})

t.test('docs.md is the agent guide as markdown, the same text as docs://guide', async t => {
  const { base, user } = await listeningApp(t)
  const res = await fetch(new URL('/mcp/docs.md', base))
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^text\/markdown/)
  const text = await res.text()
  t.match(text, /^# extraction-jobs 1\.0\.0: agent guide/)
  t.match(text, /### `count_rows`/)
  t.match(text, /\| `limit` \| integer \| no \|/)
  t.match(text, /### `find_tool`/)
  t.match(text, /Authorization: Bearer/)

  const client = await connect(t, base, user.apiKey)
  const { resources } = await client.listResources()
  t.same(resources.map(r => r.uri), ['docs://guide'])
  t.equal(resources[0]!.mimeType, 'text/markdown')
  const read = await client.readResource({ uri: 'docs://guide' })
  t.same(read.contents, [{ uri: 'docs://guide', mimeType: 'text/markdown', text }])
  await t.rejects(client.readResource({ uri: 'docs://nothing' }), /No resource docs:\/\/nothing/)
})

t.test('prompts are the enabled plugins\' workflows whose tools are all enabled', async t => {
  const { base, user } = await listeningApp(t, { env: { TOOLS_CONFIG: resolve('tools.config.json') } })
  const client = await connect(t, base, user.apiKey)
  const { prompts } = await client.listPrompts()
  t.same(prompts.map(p => p.name).sort(), ['find_leads_in_city', 'research_topic', 'verify_mailing_list'], 'no workflow names an unbuilt tool')
  const leadsEntry = prompts.find(p => p.name === 'find_leads_in_city')!
  t.same(leadsEntry.arguments!.filter(a => a.required).map(a => a.name), ['niche', 'city'])

  const leads = await client.getPrompt({ name: 'find_leads_in_city', arguments: { niche: 'dentists', city: 'Leeds' } })
  const text = (leads.messages[0]!.content as { text: string }).text
  t.equal(leads.messages[0]!.role, 'user')
  t.match(text, /25 dentists in Leeds/)
  t.match(text, /`website_email_find`/)
  t.match(text, /`maps_search`/)

  const list = await client.getPrompt({ name: 'verify_mailing_list', arguments: { addresses: 'a@x.com, b@y.org\nc@z.net' } })
  t.match((list.messages[0]!.content as { text: string }).text, /3 addresses: \["a@x.com","b@y.org","c@z.net"\]/)
  const research = await client.getPrompt({ name: 'research_topic', arguments: { topic: 'solar panels' } })
  t.match((research.messages[0]!.content as { text: string }).text, /`web_search_scrape` \(query "solar panels", limit 5\)/)
  await t.rejects(client.getPrompt({ name: 'find_leads_in_city', arguments: { niche: 'dentists' } }), /needs the argument city/)
  await t.rejects(client.getPrompt({ name: 'nope' }), /Unknown prompt/)
})

t.test('a workflow whose tools are not all enabled is not offered', async t => {
  // The counter app enables webemail but not maps, email, disposable or websearch.
  const { base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  t.same((await client.listPrompts()).prompts, [])
  await t.rejects(client.getPrompt({ name: 'find_leads_in_city', arguments: { niche: 'dentists', city: 'Leeds' } }), /Unknown prompt/)
})

t.test('JSON or an SSE stream, as the Accept header asks', async t => {
  const { base, user } = await listeningApp(t)
  const auth = { authorization: `Bearer ${user.apiKey}` }
  const sse = await rawPost(base, initializeRequest, auth)
  t.equal(sse.status, 200)
  t.match(sse.headers.get('content-type'), /text\/event-stream/)
  const [message] = sseMessages(await sse.text())
  t.match(message, { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'extraction-jobs' } } })
  t.type(message!.result.instructions, 'string')

  const json = await rawPost(base, initializeRequest, { ...auth, accept: 'application/json' })
  t.equal(json.status, 200)
  t.match(json.headers.get('content-type'), /application\/json/)
  t.match(await json.json(), { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'extraction-jobs' } } })

  const preferJson = await rawPost(base, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...auth, accept: 'text/event-stream;q=0.5, application/json' })
  t.match(preferJson.headers.get('content-type'), /application\/json/)
  t.ok(((await preferJson.json()) as any).result.tools.length > 3)

  const refused = await rawPost(base, initializeRequest, { ...auth, accept: 'text/html' })
  t.equal(refused.status, 406)
  t.type(((await refused.json()) as any).detail, 'string')
})

t.test('GET and DELETE /mcp answer 405 {detail}: the endpoint is stateless', async t => {
  const { base, user } = await listeningApp(t)
  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(new URL('/mcp', base), { method, headers: { authorization: `Bearer ${user.apiKey}`, accept: 'text/event-stream' } })
    t.equal(res.status, 405, method)
    t.equal(res.headers.get('allow'), 'POST')
    t.match(await res.json(), { detail: /stateless/ })
  }
})
