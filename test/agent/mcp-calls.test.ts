import t from 'tap'
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { usageOf } from '../helpers/jobs.ts'
import { connect, listeningApp } from './_agent.ts'

const textOf = (r: CallToolResult) => r.content.map(c => (c.type === 'text' ? c.text : '')).join('\n')

t.test('a job tool call starts the same job as REST, waits, and returns the rows', async t => {
  const { app, base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  await client.listTools() // lets the client validate structuredContent against outputSchema
  const result = await client.callTool({ name: 'count_rows', arguments: { limit: 4, label: 'lead' } }) as CallToolResult
  t.notOk(result.isError)
  const content = result.structuredContent as Record<string, any>
  t.match(content, { tool: 'counter', status: 'done', records: 4, count: 4, has_more: false, error: null, refunded: false })
  t.same(content.results.map((r: any) => r.n), [1, 2, 3, 4])
  t.equal(content.results[0].label, 'lead')
  t.match(textOf(result), /count_rows finished job .+: 4 rows/)
  t.same(JSON.parse((result.content[1] as { text: string }).text), content.results, 'the rows also as JSON text')

  // The very job REST serves: same id, same rows, same account.
  const rest = await app.inject({ url: `/api/tool-run/${content.job_id}/results`, headers: { 'x-api-key': user.apiKey } })
  t.equal(rest.statusCode, 200)
  t.same(rest.json().results, content.results)
  const listed = (await app.inject({ url: '/api/jobs', headers: { 'x-api-key': user.apiKey } })).json()
  t.same(listed.jobs.map((j: any) => j.job_id), [content.job_id])
})

t.test('each tools/call that starts a job is one call of the quota; helpers are free', async t => {
  const { app, base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0)
  const first = await client.callTool({ name: 'count_rows', arguments: { limit: 1 } }) as CallToolResult
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1)
  await client.callTool({ name: 'count_rows', arguments: { limit: 2 } })
  t.equal((await usageOf(app, user.apiKey)).calls_today, 2)
  const jobId = (first.structuredContent as { job_id: string }).job_id
  await client.callTool({ name: 'get_job_status', arguments: { job_id: jobId } })
  await client.callTool({ name: 'get_job_results', arguments: { job_id: jobId } })
  await client.callTool({ name: 'find_tool', arguments: { task: 'count rows' } })
  await client.listTools()
  t.equal((await usageOf(app, user.apiKey)).calls_today, 2, 'status, results, find_tool and tools/list cost nothing')

  const refused = await client.callTool({ name: 'count_rows', arguments: { limit: 'many' } }) as CallToolResult
  t.ok(refused.isError)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 2, 'bad arguments are refused before the charge')
})

t.test('a long job: the wait runs out, then get_job_status and get_job_results finish the work', async t => {
  const { base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  await client.listTools()
  const started = await client.callTool({ name: 'count_rows', arguments: { limit: 6, delay_ms: 400, wait_seconds: 1 } }) as CallToolResult
  t.notOk(started.isError)
  const envelope = started.structuredContent as Record<string, any>
  t.match(envelope, { status: 'running', count: 0, results: [], has_more: false })
  t.type(envelope.job_id, 'string')
  t.match(envelope.next, /get_job_status/)
  t.match(textOf(started), new RegExp(`started job ${envelope.job_id}.*still running after 1 s`))

  const early = await client.callTool({ name: 'get_job_results', arguments: { job_id: envelope.job_id } }) as CallToolResult
  t.ok(early.isError, 'results before the end are refused')
  t.match(textOf(early), /still running.*get_job_status/)

  let status: Record<string, any> = {}
  for (let i = 0; i < 10 && status.status !== 'done'; i++) {
    const polled = await client.callTool({ name: 'get_job_status', arguments: { job_id: envelope.job_id, wait_seconds: 5 } }) as CallToolResult
    t.notOk(polled.isError)
    status = polled.structuredContent as Record<string, any>
  }
  t.match(status, { job_id: envelope.job_id, status: 'done', records: 6, done: true })

  const page = await client.callTool({ name: 'get_job_results', arguments: { job_id: envelope.job_id, offset: 2, limit: 3 } }) as CallToolResult
  t.notOk(page.isError)
  t.match(page.structuredContent, { job_id: envelope.job_id, tool: 'counter', status: 'done', count: 3, total: 6, offset: 2, limit: 3 })
  t.same((page.structuredContent as any).results.map((r: any) => r.n), [3, 4, 5])
  t.match(textOf(page), /More rows: get_job_results .*"offset": 5/)
})

t.test('progress notifications arrive while the call waits, when the client gives a progress token', async t => {
  const { base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  const seen: Array<{ progress: number, message?: string }> = []
  const result = await client.callTool({ name: 'count_rows', arguments: { limit: 4, delay_ms: 100 } }, undefined, {
    onprogress: (p) => { seen.push({ progress: p.progress, message: p.message }) },
  }) as CallToolResult
  t.match(result.structuredContent, { status: 'done', records: 4 })
  t.ok(seen.length >= 3, `got ${seen.length} notifications`)
  t.equal(seen[0]!.progress, 0)
  t.equal(seen[0]!.message, 'queued')
  t.ok(seen.every((p, i) => i === 0 || p.progress > seen[i - 1]!.progress), 'progress only grows')
  t.ok(seen.some(p => /counted \d of 4/.test(p.message ?? '')), 'the stage is the message')
})

t.test('tool failures come back as isError results with a safe message', async t => {
  const { app, base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  await client.listTools()

  const badType = await client.callTool({ name: 'count_rows', arguments: { limit: 0 } }) as CallToolResult
  t.ok(badType.isError)
  t.match(textOf(badType), /^Bad arguments: arguments\.limit /, 'named by the agent argument, not the REST field')
  const unknownField = await client.callTool({ name: 'count_rows', arguments: { colour: 'red' } }) as CallToolResult
  t.match(textOf(unknownField), /Bad arguments: arguments has an unknown field 'colour'/)
  const badWait = await client.callTool({ name: 'count_rows', arguments: { wait_seconds: 'soon' } }) as CallToolResult
  t.match(textOf(badWait), /wait_seconds must be a number/)
  const missingTask = await client.callTool({ name: 'find_tool', arguments: {} }) as CallToolResult
  t.match(textOf(missingTask), /Bad arguments: arguments\.task is required/)

  const inputError = await client.callTool({ name: 'count_rows', arguments: { outcome: 'input' } }) as CallToolResult
  t.ok(inputError.isError)
  t.match(textOf(inputError), /ended in error: That input cannot be counted\./)
  t.match(inputError.structuredContent, { status: 'error', error: 'That input cannot be counted.', refunded: false })
  const crash = await client.callTool({ name: 'count_rows', arguments: { outcome: 'crash', limit: 3 } }) as CallToolResult
  t.ok(crash.isError)
  t.match(textOf(crash), /refunded/)
  t.notMatch(textOf(crash), /TypeError|boom|at .*\.ts/, 'no stack or internal error text')

  const unknownJob = await client.callTool({ name: 'get_job_status', arguments: { job_id: 'no-such-job' } }) as CallToolResult
  t.ok(unknownJob.isError)
  t.match(textOf(unknownJob), /No job no-such-job/)

  // The daily quota is spent: the call is refused with the reason and when to retry.
  const { quotas } = app.services
  for (let i = (await usageOf(app, user.apiKey)).calls_today; i < 50; i++) await quotas.charge(user.id, 'registered')
  const spent = await client.callTool({ name: 'count_rows', arguments: {} }) as CallToolResult
  t.ok(spent.isError)
  t.match(textOf(spent), /Daily quota of 50 calls .* used up.*Retry after \d+ s\./)

  const error = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: unknown) => e)
  t.ok(error instanceof McpError)
  t.equal((error as McpError).code, ErrorCode.InvalidParams)
  t.match((error as McpError).message, /Unknown tool 'no_such_tool'.*find_tool/)
})

t.test('wait_seconds is clamped to 60 and stripped from the tool params', async t => {
  const { base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  const result = await client.callTool({ name: 'count_rows', arguments: { limit: 1, wait_seconds: 600 } }) as CallToolResult
  t.notOk(result.isError, 'counter refuses unknown params, so wait_seconds never reached it')
  t.match(result.structuredContent, { status: 'done', records: 1 })
})
