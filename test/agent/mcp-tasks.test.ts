// Long jobs as MCP tasks (2026-07-28, the io.modelcontextprotocol/tasks
// extension): a job tool call from a client that negotiates the extension
// answers a task whose id is the job id; tasks/get reads the job's record
// (working, then completed with the tool result inline); tasks/cancel is
// REST's cancel; without the extension the tasks/* methods are refused and
// tools/call keeps waiting as before.
import t from 'tap'
import { AsyncLocalStorage } from 'node:async_hooks'
import { context, propagation, ROOT_CONTEXT, trace, type Context, type ContextManager, type TextMapPropagator } from '@opentelemetry/api'
import { listeningApp, rawPost } from './_agent.ts'

const TASKS = 'io.modelcontextprotocol/tasks'
const envelope = (extensions: Record<string, unknown>) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions },
})

async function call (base: string, key: string, method: string, params: Record<string, any>, extensions: Record<string, unknown> = { [TASKS]: {} }, meta: Record<string, unknown> = {}) {
  const name = params.name ?? params.taskId
  const res = await rawPost(base, { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: { ...envelope(extensions), ...meta } } }, {
    authorization: `Bearer ${key}`, accept: 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}),
  })
  return { status: res.status, body: await res.json() as Record<string, any> }
}

async function untilTerminal (base: string, key: string, taskId: string) {
  for (;;) {
    const { body } = await call(base, key, 'tasks/get', { taskId })
    if (body.result?.status !== 'working') return body.result
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}

t.test('a job tool call is a task: tasks/get gives progress, then the tool result', async t => {
  const { base, user } = await listeningApp(t)
  const created = await call(base, user.apiKey, 'tools/call', { name: 'count_rows', arguments: { limit: 3, delay_ms: 0 } })
  t.equal(created.status, 200)
  const task = created.body.result
  t.match(task, { resultType: 'task', status: 'working', pollIntervalMs: 2000 })
  t.type(task.taskId, 'string')
  t.notOk('result' in task, 'the handle carries no result')
  const ended = await untilTerminal(base, user.apiKey, task.taskId)
  t.equal(ended.status, 'completed')
  t.equal(ended.taskId, task.taskId)
  t.match(ended.result.structuredContent, { job_id: task.taskId, status: 'done', records: 3, count: 3 })
  t.type(ended.ttlMs, 'number', 'an ended job has a known retention')
  // The task id is the job id: REST reads the same job.
  const rest = await fetch(new URL(`/api/tool-run/${task.taskId}/status`, base), { headers: { 'x-api-key': user.apiKey } })
  t.equal((await rest.json()).status, 'done')
})

t.test('tasks/cancel cancels the job (refunded, as REST); a second cancel is the same ack', async t => {
  const { base, user } = await listeningApp(t)
  const { body } = await call(base, user.apiKey, 'tools/call', { name: 'count_rows', arguments: { limit: 1000, delay_ms: 200 } })
  const taskId = body.result.taskId
  const cancel = await call(base, user.apiKey, 'tasks/cancel', { taskId })
  t.same(Object.keys(cancel.body.result).filter(k => k !== '_meta'), ['resultType'])
  const ended = await untilTerminal(base, user.apiKey, taskId)
  t.equal(ended.status, 'cancelled')
  t.notOk('result' in ended)
  const again = await call(base, user.apiKey, 'tasks/cancel', { taskId })
  t.equal(again.body.result.resultType, 'complete')
  const rest = await (await fetch(new URL(`/api/tool-run/${taskId}/status`, base), { headers: { 'x-api-key': user.apiKey } })).json()
  t.match(rest, { status: 'cancelled', error: 'cancelled', refunded: true })
})

t.test('without the extension: tasks/* refused with -32021, tools/call waits as before; unknown ids are -32602', async t => {
  const { base, user } = await listeningApp(t)
  const plain = await call(base, user.apiKey, 'tools/call', { name: 'count_rows', arguments: { limit: 2, delay_ms: 0 } }, {})
  t.equal(plain.body.result.resultType, 'complete')
  t.match(plain.body.result.structuredContent, { status: 'done', records: 2 })
  const refused = await call(base, user.apiKey, 'tasks/get', { taskId: plain.body.result.structuredContent.job_id }, {})
  t.equal(refused.body.error?.code, -32021)
  const unknown = await call(base, user.apiKey, 'tasks/get', { taskId: 'no-such-job' })
  t.equal(unknown.body.error?.code, -32602)
  // Another account's job is unknown too.
  const other = await listeningApp(t)
  const theirs = await call(other.base, other.user.apiKey, 'tools/call', { name: 'count_rows', arguments: { limit: 1, delay_ms: 0 } })
  t.equal(theirs.status, 200)
})

t.test('the trace context in _meta is the active context when the job starts', async t => {
  // A W3C traceparent propagator, registered as an OpenTelemetry SDK registers its own.
  const w3c: TextMapPropagator = {
    inject () {},
    fields: () => ['traceparent', 'tracestate'],
    extract (ctx, carrier, getter) {
      const [, traceId, spanId, flags] = String(getter.get(carrier, 'traceparent') ?? '').split('-')
      return traceId && spanId ? trace.setSpanContext(ctx, { traceId, spanId, traceFlags: Number.parseInt(flags ?? '0', 16), isRemote: true }) : ctx
    },
  }
  propagation.setGlobalPropagator(w3c)
  // …and a context manager on AsyncLocalStorage, as the SDK's Node one is.
  const store = new AsyncLocalStorage<Context>()
  const manager: ContextManager = {
    active: () => store.getStore() ?? ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => store.run(ctx, () => fn.call(thisArg, ...args)),
    bind: (_ctx, target) => target,
    enable () { return this },
    disable () { return this },
  }
  context.setGlobalContextManager(manager)
  t.teardown(() => { propagation.disable(); context.disable() })
  const { app, base, user } = await listeningApp(t)
  const seen: Context[] = []
  const jobs = app.services.jobs
  const start = jobs.start.bind(jobs)
  jobs.start = (req) => { seen.push(context.active()); return start(req) }
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
  await call(base, user.apiKey, 'tools/call', { name: 'count_rows', arguments: { limit: 1, delay_ms: 0 } }, { [TASKS]: {} }, { traceparent })
  t.equal(seen.length, 1)
  t.equal(trace.getSpanContext(seen[0]!)?.traceId, '0af7651916cd43dd8448eb211c80319c')
})
