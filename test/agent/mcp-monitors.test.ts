// The monitor tools of the agent endpoint (core/monitors through core/agent):
// advertised with their annotations; create (by agent name, its arguments
// renamed), list, get, update, pause, resume, run now (a job like a tool call,
// one call charged) and the run's changes, the same monitor REST serves; the
// same refusals as REST (a plan's shortest interval) as isError results; a
// scoped token of another tool neither sees nor creates the monitor; delete.
import t from 'tap'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { usageOf } from '../helpers/jobs.ts'
import { connect, listeningApp, mintToken } from './_agent.ts'

const textOf = (r: CallToolResult) => r.content.map(c => (c.type === 'text' ? c.text : '')).join('\n')

t.test('the monitor tools: the REST operations, as the caller, with its checks and scope', async t => {
  const { app, base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  const { tools } = await client.listTools() // the client validates structuredContent against outputSchema from now on
  const byName = new Map(tools.map(x => [x.name, x]))
  for (const name of ['create_monitor', 'list_monitors', 'get_monitor', 'update_monitor', 'pause_monitor', 'resume_monitor', 'delete_monitor', 'run_monitor_now', 'get_monitor_changes']) t.ok(byName.has(name), `${name} is advertised`)
  t.same(byName.get('delete_monitor')!.annotations, { readOnlyHint: false, idempotentHint: true, destructiveHint: true })
  t.same(byName.get('list_monitors')!.annotations, { readOnlyHint: true, idempotentHint: true })
  t.same(byName.get('create_monitor')!.inputSchema.required, ['tool', 'schedule'])

  const call = async (name: string, args: Record<string, unknown>) => await client.callTool({ name, arguments: args }) as CallToolResult

  // The plan's shortest interval (registered: 60 min), as REST refuses it.
  const tooOften = await call('create_monitor', { tool: 'count_rows', params: { limit: 3 }, schedule: { every: '5m' } })
  t.ok(tooOften.isError)
  t.match(textOf(tooOften), /Bad arguments: .*60/)

  const created = await call('create_monitor', { tool: 'count_rows', params: { limit: 3 }, schedule: { every: '1h' }, name: 'rows' })
  t.notOk(created.isError, textOf(created))
  const monitor = created.structuredContent as Record<string, any>
  t.match(monitor, { tool: 'counter', name: 'rows', status: 'active', schedule: { every: '1h' } })
  t.same(monitor.params, { max_results: 3 }, 'the agent argument is stored under its REST name')
  const rest = await app.inject({ url: `/api/monitors/${monitor.monitor_id}`, headers: { 'x-api-key': user.apiKey } })
  t.equal(rest.statusCode, 200, 'the monitor REST serves')
  t.equal(rest.json().name, 'rows')

  const listed = (await call('list_monitors', {})).structuredContent as Record<string, any>
  t.same(listed.monitors.map((m: any) => m.monitor_id), [monitor.monitor_id])

  const updated = (await call('update_monitor', { monitor_id: monitor.monitor_id, schedule: { every: '2h' }, name: 'two-hourly' })).structuredContent as Record<string, any>
  t.match(updated, { name: 'two-hourly', schedule: { every: '2h' } })
  t.match((await call('pause_monitor', { monitor_id: monitor.monitor_id })).structuredContent, { status: 'paused', next_run_at: null })
  t.match((await call('resume_monitor', { monitor_id: monitor.monitor_id })).structuredContent, { status: 'active' })

  // Run now: a job like any tool call (one call charged), then its changes (the first run: all added).
  const before = (await usageOf(app, user.apiKey)).calls_today
  const ran = await call('run_monitor_now', { monitor_id: monitor.monitor_id, wait_seconds: 30 })
  t.notOk(ran.isError, textOf(ran))
  const envelope = ran.structuredContent as Record<string, any>
  t.match(envelope, { monitor_id: monitor.monitor_id, tool: 'counter', status: 'done', records: 3 })
  t.match(textOf(ran), /get_monitor_changes/)
  t.equal((await usageOf(app, user.apiKey)).calls_today, before + 1, 'the run is one call')
  const changes = await call('get_monitor_changes', { monitor_id: monitor.monitor_id })
  t.notOk(changes.isError, textOf(changes))
  const body = changes.structuredContent as Record<string, any>
  t.equal(body.run, envelope.job_id)
  t.match(body.changes, { added: 3, removed: 0, changed: 0, first_run: true })
  t.equal(body.added.length, 3)
  t.match(textOf(changes), /3 added, 0 removed, 0 changed/)
  const detail = (await call('get_monitor', { monitor_id: monitor.monitor_id })).structuredContent as Record<string, any>
  t.match(detail.runs[0], { job_id: envelope.job_id, trigger: 'now', status: 'done' })

  // A token scoped to another tool: the monitor is not its to see, nor to make.
  const token = await mintToken(app, user.apiKey, ['webemail'])
  const scoped = await connect(t, base, token)
  t.same(((await scoped.callTool({ name: 'list_monitors', arguments: {} })) as CallToolResult).structuredContent, { count: 0, monitors: [] })
  const hidden = await scoped.callTool({ name: 'get_monitor', arguments: { monitor_id: monitor.monitor_id } }) as CallToolResult
  t.ok(hidden.isError)
  t.match(textOf(hidden), /No monitor .* for this account/)
  const refused = await scoped.callTool({ name: 'create_monitor', arguments: { tool: 'counter', schedule: { every: '1h' } } }) as CallToolResult
  t.ok(refused.isError, 'a token of other tools cannot create a monitor of this one')

  t.match((await call('delete_monitor', { monitor_id: monitor.monitor_id })).structuredContent, { deleted: true })
  t.ok((await call('get_monitor', { monitor_id: monitor.monitor_id })).isError, 'deleted')
})
