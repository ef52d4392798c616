// OpenTelemetry traces (core/telemetry): a stand-in OTLP HTTP receiver gets the
// spans; a start request's `traceparent` reaches the job's run, in this process
// (the embedded queue) and across the Redis queue into a worker process (the
// distributed mode: an API app here, `npm run worker` as a real child). Tracing
// is the process's (OpenTelemetry's global provider): every app of this file
// sends to the one receiver, and this file runs alone, in no group.
import t from 'tap'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, waitForEnd } from '../helpers/jobs.ts'
import { prepareServiceBuild } from '../helpers/service-build.ts'
import { flushTraces } from '../../core/telemetry/tracing.ts'
import { childWorker, jobIdOf, startCluster, until } from './_cluster.ts'
import { ancestry, clientTrace, otlpReceiver } from './_otlp.ts'

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
})
