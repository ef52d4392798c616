// Issue 11, part 4: a scoped token sees only the jobs of the tools it was
// minted for. Every job route, the WebSocket and the agent's job tools answer
// another tool's job exactly as they answer another account's: 404, same detail.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { signup } from '../helpers/build.ts'
import { startJob, waitForEnd } from '../helpers/jobs.ts'
import { openSocket } from '../helpers/socket.ts'
import { connect, listeningApp, mintToken } from '../agent/_agent.ts'

const textOf = (r: CallToolResult) => r.content.map(c => (c.type === 'text' ? c.text : '')).join('\n')

/** A file for the job, as ctx.artifact would store it. */
async function addArtifact (app: FastifyInstance, jobId: string): Promise<string> {
  const job = await app.services.db.job.findUniqueOrThrow({ where: { id: jobId } })
  const stored = await app.services.artifacts.save(job, { name: 'note.txt', contentType: 'text/plain', body: Buffer.from(`file of ${jobId}`) }, new AbortController().signal)
  return stored.id
}

// Every job read route; {id} and {artifact} are filled per job.
const READ_ROUTES = [
  '/api/tool-run/{id}/status',
  '/api/jobs/{id}',
  '/api/tool-run/{id}/results',
  '/api/jobs/{id}/results',
  ...['csv', 'xlsx', 'json', 'jsonl'].flatMap(fmt => [
    `/api/tool-run/{id}/results.${fmt}`,
    `/api/jobs/{id}/results.${fmt}`,
    `/api/download/{id}/${fmt}`,
  ]),
  '/api/tool-run/{id}/artifacts',
  '/api/tool-run/{id}/artifacts.zip',
  '/api/tool-run/{id}/artifacts/{artifact}',
]

interface Fixture {
  app: FastifyInstance
  base: string
  ownerKey: string
  strangerKey: string
  /** A scoped token of the owner's account, minted for `counter` only. */
  scoped: string
  /** The owner's counter job (the token's tool) and relay job (not), both ended, each with a file. */
  mine: { id: string, artifact: string }
  other: { id: string, artifact: string }
}

async function setup (t: Parameters<typeof listeningApp>[0]): Promise<Fixture> {
  const { app, base, user } = await listeningApp(t)
  const stranger = await signup(app)
  const scoped = await mintToken(app, user.apiKey, ['counter'])
  // Both started with the personal key: what a token sees follows the job's tool, not who started it.
  const mineId = (await startJob(app, user.apiKey, { max_results: 3 })).json().job_id
  const otherId = (await startJob(app, user.apiKey, { max_results: 2 }, 'relay')).json().job_id
  await waitForEnd(app, user.apiKey, mineId)
  await waitForEnd(app, user.apiKey, otherId)
  return {
    app,
    base,
    ownerKey: user.apiKey,
    strangerKey: stranger.apiKey,
    scoped,
    mine: { id: mineId, artifact: await addArtifact(app, mineId) },
    other: { id: otherId, artifact: await addArtifact(app, otherId) },
  }
}

const fill = (route: string, job: { id: string, artifact: string }) => route.replace('{id}', job.id).replace('{artifact}', job.artifact)

t.test('every job read route: the personal key sees all, a scoped token its tools\' jobs, 404 as for another account otherwise', async t => {
  const f = await setup(t)
  const get = (url: string, key: string) => f.app.inject({ url, headers: { 'x-api-key': key } })
  for (const route of READ_ROUTES) {
    t.equal((await get(fill(route, f.mine), f.ownerKey)).statusCode, 200, `${route}: personal key, counter job`)
    t.equal((await get(fill(route, f.other), f.ownerKey)).statusCode, 200, `${route}: personal key, relay job`)
    t.equal((await get(fill(route, f.mine), f.scoped)).statusCode, 200, `${route}: scoped token, its tool's job`)

    const foreign = await get(fill(route, f.other), f.strangerKey)
    const hidden = await get(fill(route, f.other), f.scoped)
    t.equal(foreign.statusCode, 404, `${route}: another account → 404`)
    t.equal(hidden.statusCode, 404, `${route}: scoped token, another tool's job → 404`)
    t.same(hidden.json(), foreign.json(), `${route}: the same {detail} as for another account`)
    t.same(Object.keys(hidden.json()), ['detail'])
  }
})

t.test('the job list shows a scoped token only its tools\' jobs', async t => {
  const f = await setup(t)
  const list = async (key: string) => (await f.app.inject({ url: '/api/jobs', headers: { 'x-api-key': key } })).json()
  t.same((await list(f.ownerKey)).jobs.map((j: any) => j.job_id).sort(), [f.mine.id, f.other.id].sort(), 'personal key: every job of the account')
  const scopedList = await list(f.scoped)
  t.equal(scopedList.count, 1)
  t.same(scopedList.jobs.map((j: any) => j.job_id), [f.mine.id], 'scoped token: only the counter job')
  t.equal((await list(f.strangerKey)).count, 0)
})

t.test('cancel: a scoped token cancels its tools\' jobs; another tool\'s job is 404, even one that ended', async t => {
  const f = await setup(t)
  const del = (id: string, key: string) => f.app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': key } })
  const slow = (await startJob(f.app, f.ownerKey, { max_results: 1, delay_ms: 60_000 })).json().job_id
  const cancelled = await del(slow, f.scoped)
  t.equal(cancelled.statusCode, 200, 'its tool: cancelled')
  t.match(cancelled.json(), { status: 'cancelled', error: 'cancelled', refunded: true })

  const hidden = await del(f.other.id, f.scoped)
  const foreign = await del(f.other.id, f.strangerKey)
  t.equal(hidden.statusCode, 404, 'another tool: 404, not the 409 that would say it exists and ended')
  t.same(hidden.json(), foreign.json())
  t.equal((await del(f.other.id, f.ownerKey)).statusCode, 409, 'the personal key reaches it (already ended)')
})

t.test('the WebSocket closes 4404 for another tool\'s job, as for an unknown one', async t => {
  const f = await setup(t)
  const follow = async (id: string, key: string) => {
    const socket = await openSocket(f.app, `/api/tool-run/${id}/ws`, { headers: { 'x-api-key': key } })
    return { code: await socket.closed, messages: socket.messages }
  }
  const own = await follow(f.mine.id, f.scoped)
  t.equal(own.code, 1000)
  t.match(own.messages[0], { type: 'done', job: { job_id: f.mine.id } })

  const hidden = await follow(f.other.id, f.scoped)
  const foreign = await follow(f.other.id, f.strangerKey)
  t.equal(hidden.code, 4404)
  t.equal(foreign.code, 4404)
  t.same(hidden.messages, foreign.messages, 'the same error message')
  t.equal((await follow(f.other.id, f.ownerKey)).code, 1000, 'the personal key follows it')
})

t.test('MCP get_job_status (with and without a wait) and get_job_results: isError "not found" for another tool\'s job', async t => {
  const f = await setup(t)
  const asToken = await connect(t, f.base, f.scoped)
  const asStranger = await connect(t, f.base, f.strangerKey)
  const asOwner = await connect(t, f.base, f.ownerKey)
  const calls = [
    { name: 'get_job_status', arguments: { job_id: f.other.id } },
    { name: 'get_job_status', arguments: { job_id: f.other.id, wait_seconds: 1 } },
    { name: 'get_job_results', arguments: { job_id: f.other.id } },
  ]
  for (const call of calls) {
    const label = JSON.stringify(call)
    const hidden = await asToken.callTool(call) as CallToolResult
    const foreign = await asStranger.callTool(call) as CallToolResult
    t.ok(hidden.isError, `${label}: isError`)
    t.match(textOf(hidden), new RegExp(`No job ${f.other.id} for this account`), label)
    t.equal(textOf(hidden), textOf(foreign), `${label}: the same text as for another account`)
    t.notOk((await asOwner.callTool(call) as CallToolResult).isError, `${label}: the personal key reads it`)
  }
  const own = await asToken.callTool({ name: 'get_job_results', arguments: { job_id: f.mine.id } }) as CallToolResult
  t.notOk(own.isError, 'the token reads its tool\'s job')
  t.match(own.structuredContent, { job_id: f.mine.id, total: 3 })
})
