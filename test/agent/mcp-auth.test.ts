import t from 'tap'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { ADMIN_KEY, PUBLIC_TOKEN } from '../helpers/build.ts'
import { usageOf } from '../helpers/jobs.ts'
import { connect, initializeRequest, listeningApp, mintToken, rawPost } from './_agent.ts'

const textOf = (r: CallToolResult) => r.content.map(c => (c.type === 'text' ? c.text : '')).join('\n')

t.test('no token or a bad token: 401 {detail} with a Bearer challenge', async t => {
  const { base } = await listeningApp(t)
  for (const [label, headers] of [['no token', {}], ['bad sk- key', { authorization: 'Bearer sk-not-a-real-key' }], ['bad scoped token', { authorization: 'Bearer scp-nope' }], ['not bearer', { authorization: 'Basic abc' }]] as const) {
    const res = await rawPost(base, initializeRequest, headers)
    t.equal(res.status, 401, label)
    t.equal(res.headers.get('www-authenticate'), 'Bearer realm="mcp"', label)
    const body = await res.json() as Record<string, unknown>
    t.same(Object.keys(body), ['detail'], label)
    t.match(body.detail, /Authorization: Bearer/, label)
  }
  await t.rejects(connect(t, base, undefined), /401|Missing or invalid access token/, 'the SDK client fails to connect without a token')
  await t.rejects(connect(t, base, 'sk-wrong'), /401|Missing or invalid access token/)
})

t.test('a guest token or the admin key: 403 {detail}', async t => {
  const { base } = await listeningApp(t)
  const guest = await rawPost(base, initializeRequest, { authorization: `Bearer ${PUBLIC_TOKEN}` })
  t.equal(guest.status, 403)
  t.match(await guest.json(), { detail: /sign up/ })
  const admin = await rawPost(base, initializeRequest, { authorization: `Bearer ${ADMIN_KEY}` })
  t.equal(admin.status, 403)
  t.match(await admin.json(), { detail: /personal sk- key/ })
  await t.rejects(connect(t, base, PUBLIC_TOKEN), /403|sign up/)
})

t.test('a scoped token runs the tools it was minted for, and gets isError for the others', async t => {
  const { app, base, user } = await listeningApp(t)
  const token = await mintToken(app, user.apiKey, ['counter'])
  const client = await connect(t, base, token)
  await client.listTools()
  const allowed = await client.callTool({ name: 'count_rows', arguments: { limit: 2 } }) as CallToolResult
  t.notOk(allowed.isError)
  t.match(allowed.structuredContent, { status: 'done', records: 2 })

  const refused = await client.callTool({ name: 'website_email_find', arguments: { website: 'example.com' } }) as CallToolResult
  t.ok(refused.isError)
  t.match(textOf(refused), /not allowed to run the tool 'webemail'.*counter/)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'the refused call is not charged')

  // The token's job belongs to the account: the personal key reads it too.
  const jobId = (allowed.structuredContent as { job_id: string }).job_id
  const status = await app.inject({ url: `/api/tool-run/${jobId}/status`, headers: { 'x-api-key': user.apiKey } })
  t.equal(status.json().status, 'done')
})

t.test('another account cannot read a job over MCP', async t => {
  const { app, base, user } = await listeningApp(t)
  const owner = await connect(t, base, user.apiKey)
  const started = await owner.callTool({ name: 'count_rows', arguments: { limit: 1 } }) as CallToolResult
  const jobId = (started.structuredContent as { job_id: string }).job_id
  const { signup } = await import('../helpers/build.ts')
  const other = await signup(app)
  const stranger = await connect(t, base, other.apiKey)
  const read = await stranger.callTool({ name: 'get_job_results', arguments: { job_id: jobId } }) as CallToolResult
  t.ok(read.isError)
  t.match(textOf(read), new RegExp(`No job ${jobId} for this account`))
})
