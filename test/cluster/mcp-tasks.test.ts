// MCP tasks (2026-07-28, io.modelcontextprotocol/tasks) in the distributed
// mode: two API apps (RUN_JOBS unset, as two `npm start` processes: each its
// own container, sharing only the database and Redis) and a BullMQ worker
// beside them. A task started through API A is read (tasks/get, its result)
// and cancelled through API B; a client that drops its connection while its
// task runs comes back on a new connection, to the other process, and gets
// the result: the task is the job, and nothing of it lives in the process or
// the connection that started it.
import t from 'tap'
import { Agent, request } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { build, signup } from '../helpers/build.ts'
import { modernMcpRequest } from '../helpers/mcp-request.ts'
import { inProcessWorker, startCluster, until, type Cluster } from './_cluster.ts'

/** One request of the 2026-07-28 revision (test/helpers/mcp-request.ts) on the given keep-alive agent. */
function mcp (base: string, key: string, method: string, params: Record<string, any>, agent?: Agent): Promise<{ status: number, body: Record<string, any> }> {
  const { headers, body } = modernMcpRequest(key, method, params, 'cluster-tasks-test')
  return new Promise((resolve, reject) => {
    const req = request(new URL('/mcp', base), { method: 'POST', agent, headers }, res => {
      let data = ''
      res.setEncoding('utf8')
      res.on('data', c => { data += c })
      res.on('end', () => { try { resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }) } catch (err) { reject(err) } })
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

const listen = async (app: FastifyInstance): Promise<string> => {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('not listening on a port')
  return `http://127.0.0.1:${address.port}`
}

/** API A (the cluster's) and API B (a second app on the same database, data dir and Redis), both listening, and a worker. */
async function twoApis (t: Parameters<typeof startCluster>[0]): Promise<{ cluster: Cluster, a: string, b: string, apiB: FastifyInstance }> {
  const cluster = await startCluster(t)
  const apiB = await build(t, { dataDir: cluster.env.DATA_DIR, databaseUrl: cluster.env.DATABASE_URL, env: cluster.env, distributed: false })
  await inProcessWorker(t, cluster)
  return { cluster, a: await listen(cluster.api), b: await listen(apiB), apiB }
}

const rowsOf = async (api: FastifyInstance, jobId: string) => (await api.services.db.job.findUnique({ where: { id: jobId } }))?.records ?? 0

async function untilTerminal (base: string, key: string, taskId: string, agent?: Agent) {
  const deadline = Date.now() + 60_000
  for (;;) {
    const { status, body } = await mcp(base, key, 'tasks/get', { taskId }, agent)
    if (status !== 200 || !body.result) throw new Error(`tasks/get answered ${status}: ${JSON.stringify(body)}`)
    if (body.result.status !== 'working') return body.result
    if (Date.now() > deadline) throw new Error(`task ${taskId} still working after 60 s`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}

t.test('a task started through API A is read through API B: working with progress, then completed with the tool result', async t => {
  const { cluster, a, b } = await twoApis(t)
  const user = await signup(cluster.api)
  const created = await mcp(a, user.apiKey, 'tools/call', { name: 'count_rows', arguments: { limit: 4, batch: 1, delay_ms: 1000 } })
  t.equal(created.status, 200)
  const taskId = created.body.result.taskId as string
  t.match(created.body.result, { resultType: 'task', status: 'working' })
  // Three seconds of rows after the first: a loaded machine's read through B still meets the task working.
  await until('the worker stored a row', async () => (await rowsOf(cluster.api, taskId)) >= 1)
  const midway = await mcp(b, user.apiKey, 'tasks/get', { taskId })
  t.match(midway.body.result, { taskId, status: 'working', statusMessage: /row/ }, 'B sees the task A started, still working')
  t.notOk('result' in midway.body.result, 'no result while it works')
  const ended = await untilTerminal(b, user.apiKey, taskId)
  t.equal(ended.status, 'completed')
  t.match(ended.result.structuredContent, { job_id: taskId, status: 'done', records: 4, count: 4 })
  t.same(ended.result.structuredContent.results.map((r: { n: number }) => r.n), [1, 2, 3, 4], 'every row the worker stored, read through B')
  // …and through A, the same answer.
  const fromA = await mcp(a, user.apiKey, 'tasks/get', { taskId })
  t.same(fromA.body.result.result.structuredContent, ended.result.structuredContent)
})

t.test('a task started through API A is cancelled through API B: the worker stops it, A reads it cancelled, refunded as REST', async t => {
  const { cluster, a, b } = await twoApis(t)
  const user = await signup(cluster.api)
  const { body } = await mcp(a, user.apiKey, 'tools/call', { name: 'count_rows', arguments: { limit: 1000, batch: 1, delay_ms: 200 } })
  const taskId = body.result.taskId as string
  await until('the worker runs it', async () => (await rowsOf(cluster.api, taskId)) >= 1)
  const cancel = await mcp(b, user.apiKey, 'tasks/cancel', { taskId })
  t.equal(cancel.status, 200)
  t.notOk(cancel.body.error, 'cancel acknowledged')
  const ended = await untilTerminal(a, user.apiKey, taskId)
  t.equal(ended.status, 'cancelled', 'A reads the task B cancelled')
  const rest = await cluster.api.inject({ url: `/api/tool-run/${taskId}/status`, headers: { 'x-api-key': user.apiKey } })
  t.match(rest.json(), { status: 'cancelled', error: 'cancelled', refunded: true })
  // The worker lets it go: once it has stopped it records the rows it kept on the cancelled job
  // (the counter then agrees with the stored rows), and no row is added after that.
  const stored = async () => await cluster.api.services.db.resultRow.count({ where: { jobId: taskId } })
  await until('the worker recorded the rows it kept', async () => (await rowsOf(cluster.api, taskId)) === await stored())
  const rows = await stored()
  t.ok(rows >= 1, `the rows written before the cancel are kept (${rows})`)
  await new Promise(resolve => setTimeout(resolve, 1000))
  t.equal(await stored(), rows, 'no rows after the cancel')
  t.equal(await rowsOf(cluster.api, taskId), rows, 'and the count says so')
  const again = await mcp(a, user.apiKey, 'tasks/cancel', { taskId })
  t.notOk(again.body.error, 'a second cancel, through the other process, is the same ack')
})

t.test('a client that drops its connection mid-task reconnects (to the other API process) and gets the result; the job was not cancelled', async t => {
  const { cluster, a, b } = await twoApis(t)
  const user = await signup(cluster.api)
  const first = new Agent({ keepAlive: true, maxSockets: 1 })
  const created = await mcp(a, user.apiKey, 'tools/call', { name: 'count_rows', arguments: { limit: 8, batch: 1, delay_ms: 400 } }, first)
  const taskId = created.body.result.taskId as string
  const polled = await mcp(a, user.apiKey, 'tasks/get', { taskId }, first)
  t.equal(polled.body.result.status, 'working')
  // The client goes away: its connection is closed mid-task (a laptop lid, a restarted agent).
  let closed = 0
  for (const sockets of Object.values(first.sockets).concat(Object.values(first.freeSockets))) {
    for (const socket of sockets ?? []) { socket.destroy(); closed++ }
  }
  first.destroy()
  t.ok(closed >= 1, 'the client\'s connection was closed')
  const rowsAtDisconnect = await rowsOf(cluster.api, taskId)
  await until('the job goes on without its client', async () => (await rowsOf(cluster.api, taskId)) > rowsAtDisconnect)

  // It comes back on a new connection, this time to API B, with only the task id it kept.
  const second = new Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => second.destroy())
  const ended = await untilTerminal(b, user.apiKey, taskId, second)
  t.equal(ended.status, 'completed')
  t.match(ended.result.structuredContent, { job_id: taskId, status: 'done', records: 8 })
  const rest = await cluster.api.inject({ url: `/api/tool-run/${taskId}/status`, headers: { 'x-api-key': user.apiKey } })
  t.match(rest.json(), { status: 'done', records: 8, refunded: false })
})
