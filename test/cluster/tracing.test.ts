// OpenTelemetry traces (core/telemetry): a stand-in OTLP HTTP receiver gets the
// spans; a start request's `traceparent` reaches the job's run, in this process
// (the embedded queue) and across the Redis queue into a worker process (the
// distributed mode: an API app here, `npm run worker` as a real child). Tracing
// is the process's (OpenTelemetry's global provider): every app of this file
// sends to the one receiver, and this file runs alone, in no group.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { build, signup, tempDir } from '../helpers/build.ts'
import { buildWithCounter, waitForEnd } from '../helpers/jobs.ts'
import { prepareServiceBuild } from '../helpers/service-build.ts'
import { flushTraces } from '../../core/telemetry/tracing.ts'
import { childWorker, jobIdOf, startCluster, until } from './_cluster.ts'
import { ancestry, clientTrace, otlpReceiver } from './_otlp.ts'
import { modernMcpRequest } from '../helpers/mcp-request.ts'

t.setTimeout(600_000)
prepareServiceBuild()

const receiver = await otlpReceiver()
t.teardown(() => receiver.close())

t.test('embedded queue: the job\'s run continues the start request\'s trace', async t => {
  const app = await buildWithCounter(t, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } })
  const user = await signup(app)
  const client = clientTrace()
  const res = await app.inject({ method: 'POST', url: '/api/tool-run?secret=query', headers: { 'x-api-key': user.apiKey, traceparent: client.traceparent }, payload: { tool: 'counter', params: { max_results: 2 } } })
  const id = jobIdOf(res)
  t.equal((await waitForEnd(app, user.apiKey, id)).status, 'done')
  await flushTraces()
  await until('the run\'s span arrived', () => receiver.spans.some(s => s.name === 'job run' && s.attributes['job.id'] === id), 30_000)
  const trace = receiver.spans.filter(s => s.traceId === client.traceId)
  const run = trace.find(s => s.name === 'job run')
  t.ok(run, 'the run is in the client\'s trace')
  t.equal(run!.attributes['job.tool'], 'counter')
  const chain = ancestry(trace, run!)
  t.equal(chain.at(-1), 'request', `up to the request's span (${chain.join(' < ')})`)
  const request = trace.find(s => s.name === 'request')!
  t.equal(request.parentSpanId, client.spanId, 'the request continues the client\'s span')
  t.equal(request.attributes['url.path'], '/api/tool-run', 'the path, never the query')

  // A status poll gets no span (OTEL_TRACE_STATUS_POLLS unset), any other read does.
  const poll = clientTrace()
  const read = clientTrace()
  t.equal((await app.inject({ method: 'GET', url: `/api/tool-run/${id}/status?x=1`, headers: { 'x-api-key': user.apiKey, traceparent: poll.traceparent } })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey, traceparent: read.traceparent } })).statusCode, 200)
  await flushTraces()
  await until('the results read\'s span arrived', () => receiver.spans.some(s => s.traceId === read.traceId), 30_000)
  t.same(receiver.spans.filter(s => s.traceId === poll.traceId), [], 'the status poll sent no span')
})

t.test('a job\'s upstream requests (its ctx.http and its crawler\'s pages) and media runs are spans of its run; each webhook attempt a trace of its own', async t => {
  // One local host for all: a site with a contact page, an API answering 200, a webhook receiver answering 204.
  const seen: string[] = []
  const site = createServer((req, res) => {
    seen.push(req.url!)
    if (req.url === '/hook') { req.resume(); req.on('end', () => res.writeHead(204).end()); return }
    if (req.url!.startsWith('/v1/')) { res.end('ok'); return }
    if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Write to <a href="mailto:hello@shop.example">hello@shop.example</a></body></html>'); return }
    res.writeHead(404).end()
  })
  await new Promise<void>(resolve => site.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { site.closeAllConnections(); site.close() })
  const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  const tools = join(tempDir(t), 'tools.json')
  writeFileSync(tools, JSON.stringify({
    tools: [
      { key: 'leaky', plugin: resolve('test/fixtures/plugins/leaky'), enabled: true, upstream: { api: base }, credentials: { api: 'LEAKY_API_KEY' } },
      { key: 'webemail', plugin: resolve('plugins/webemail'), enabled: true, settings: { page_timeout_ms: 5000, concurrency: 2 } },
      { key: 'exec_probe', plugin: resolve('test/fixtures/plugins/exec-probe'), enabled: true },
    ],
    retired: [],
  }))
  const app = await build(t, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, TOOLS_CONFIG: tools, ALLOW_PRIVATE_TARGETS: '1', LEAKY_API_KEY: 'k', FFMPEG_PATH: '/bin/sh', WEBHOOK_RETRY_BASE_MS: '20' } })
  const user = await signup(app)
  const run = async (tool: string, params: Record<string, unknown>, webhook?: string) => {
    const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool, params, ...(webhook ? { webhook: { url: webhook } } : {}) } })
    const id = jobIdOf(res)
    await waitForEnd(app, user.apiKey, id, 30_000)
    return id
  }
  const spansOfRun = async (id: string, name: string) => {
    await flushTraces()
    await until(`the run of ${id}`, () => receiver.spans.some(s => s.name === 'job run' && s.attributes['job.id'] === id), 30_000)
    const runSpan = receiver.spans.find(s => s.name === 'job run' && s.attributes['job.id'] === id)!
    return receiver.spans.filter(s => s.traceId === runSpan.traceId && s.name === name && ancestry(receiver.spans, s).includes('job run'))
  }

  // ctx.http: one request, one span, its host's class and status, never the URL.
  const leaky = await run('leaky', { outcome: 'upstream' }, `${base}/hook`)
  const [call, ...more] = await spansOfRun(leaky, 'upstream GET')
  t.equal(more.length, 0, 'one span for the one request')
  t.match(call?.attributes, { 'job.tool': 'leaky', 'upstream.host_class': 'ip', 'http.response.status_code': 200, 'upstream.outcome': 'ok' })
  t.notOk(JSON.stringify(call?.attributes).includes('127.0.0.1'), 'no host, no URL')

  // The webhook of the job's end: an attempt is a root span, with the event, the attempt and the outcome.
  await until('the delivery was sent', () => seen.includes('/hook'), 30_000)
  await app.services.webhooks.idle()
  await flushTraces()
  await until('the attempt\'s span arrived', () => receiver.spans.some(s => s.name === 'webhook attempt' && s.attributes['job.id'] === leaky), 30_000)
  const attempt = receiver.spans.find(s => s.name === 'webhook attempt' && s.attributes['job.id'] === leaky)!
  t.equal(attempt.parentSpanId, '', 'a trace of its own')
  t.match(attempt.attributes, { 'webhook.event': 'job.error', 'webhook.attempt': 1, 'http.response.status_code': 204, 'webhook.outcome': 'delivered' })

  // A crawler's pages: each fetch the site saw from the job is a span under its run.
  const before = seen.length
  const crawl = await run('webemail', { website: base, max_pages: 2 })
  const fetched = seen.length - before
  t.ok(fetched >= 1, `the crawl fetched ${fetched}`)
  await until('a span for each fetch', async () => (await spansOfRun(crawl, 'upstream GET')).length >= fetched, 30_000)
  const pages = await spansOfRun(crawl, 'upstream GET')
  t.equal(pages.length, fetched, `as many spans as fetches (${seen.slice(before).join(', ')})`)
  t.ok(pages.every(s => s.attributes['job.tool'] === 'webemail' && s.attributes['upstream.host_class'] === 'ip'), 'each with its tool and host class')
  t.ok(pages.some(s => s.attributes['http.response.status_code'] === 200), 'the page that answered, with its status')

  // A media program run.
  const media = await run('exec_probe', { program: 'ffmpeg', args: ['-c', 'exit 0'] })
  const [program] = await spansOfRun(media, 'media ffmpeg')
  t.match(program?.attributes, { 'media.program': 'ffmpeg', 'media.network': false })
})

t.test('distributed: an API process offers, a worker process runs, one trace across both', async t => {
  const cluster = await startCluster(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })
  await childWorker(t, cluster, { OTEL_SERVICE_NAME: 'worker-under-test', OTEL_BSP_SCHEDULE_DELAY: '100' })
  const { api } = cluster
  const user = await signup(api)
  const client = clientTrace()
  const id = jobIdOf(await api.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey, traceparent: client.traceparent }, payload: { tool: 'counter', params: { max_results: 2 } } }))
  t.equal((await waitForEnd(api, user.apiKey, id, 120_000)).status, 'done')
  t.notOk(api.services.runner.isRunningHere(id), 'the API process ran nothing')
  await flushTraces()
  // The worker sends its spans as each batch fills or its timer fires: the run's, then BullMQ's around it.
  const inTrace = () => receiver.spans.filter(s => s.traceId === client.traceId)
  const runSpan = () => inTrace().find(s => s.name === 'job run')
  await until('the run\'s ancestry reached the request', () => { const run = runSpan(); return run !== undefined && ancestry(inTrace(), run).at(-1) === 'request' }, 60_000).catch(() => {})
  const trace = inTrace()
  const run = runSpan()!
  t.equal(run.service, 'worker-under-test', 'sent by the worker')
  t.ok(trace.some(s => s.service === 'extraction-jobs' && s.name === 'request'), 'the API\'s request span is in the same trace')
  const chain = ancestry(trace, run)
  t.equal(chain.at(-1), 'request', `the run's ancestry crosses the queue up to the request (${chain.join(' < ')})`)

  // An agent's request: the trace context in its _meta, not in a header, reaches the worker's run the same way.
  const agent = clientTrace()
  const { headers, body } = modernMcpRequest(user.apiKey, 'tools/call', { name: 'count_rows', arguments: { limit: 2, delay_ms: 0 } }, 'tracing-test')
  ;(body.params as { _meta: Record<string, unknown> })._meta.traceparent = agent.traceparent
  const called = await api.inject({ method: 'POST', url: '/mcp', headers, payload: body })
  t.equal(called.statusCode, 200, called.body.slice(0, 300))
  const taskId = called.json().result.taskId as string
  t.equal((await waitForEnd(api, user.apiKey, taskId, 120_000)).status, 'done')
  await flushTraces()
  await until('the agent\'s run arrived', () => receiver.spans.some(s => s.traceId === agent.traceId && s.name === 'job run'), 60_000)
  const agentRun = receiver.spans.find(s => s.traceId === agent.traceId && s.name === 'job run')!
  t.equal(agentRun.service, 'worker-under-test', 'run by the worker, in the agent\'s trace')
  t.equal(agentRun.attributes['job.id'], taskId)
})
