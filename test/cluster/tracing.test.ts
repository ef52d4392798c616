// OpenTelemetry traces (core/telemetry): a stand-in OTLP HTTP receiver gets the
// spans; a start request's `traceparent` reaches the job's run, in this process
// (the embedded queue) and across the Redis queue into a worker process (the
// distributed mode: an API app here, `npm run worker` as a real child). Tracing
// is the process's (OpenTelemetry's global provider): every app of this file
// sends to the one receiver, and this file runs alone, in no group.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, waitForEnd } from '../helpers/jobs.ts'
import { prepareServiceBuild } from '../helpers/service-build.ts'
import { flushTraces } from '../../core/telemetry/tracing.ts'
import { childWorker, jobIdOf, startCluster, until } from './_cluster.ts'

t.setTimeout(600_000)
prepareServiceBuild()

interface ReceivedSpan { service: string, traceId: string, spanId: string, parentSpanId: string, name: string, attributes: Record<string, unknown> }

/** A protobuf message's fields, in order: [field number, value] (a varint as a number, a length-delimited field as its bytes). */
function protobufFields (bytes: Buffer): Array<[number, number | Buffer]> {
  const fields: Array<[number, number | Buffer]> = []
  let at = 0
  const varint = () => {
    let value = 0
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++]!
      value += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) return value
    }
  }
  while (at < bytes.length) {
    const tag = varint()
    const wire = tag & 7
    if (wire === 0) fields.push([tag >>> 3, varint()])
    else if (wire === 2) { const length = varint(); fields.push([tag >>> 3, bytes.subarray(at, at + length)]); at += length } else if (wire === 1) { fields.push([tag >>> 3, bytes.subarray(at, at + 8)]); at += 8 } else if (wire === 5) { fields.push([tag >>> 3, bytes.subarray(at, at + 4)]); at += 4 } else throw new Error(`wire type ${wire} in an OTLP message`)
  }
  return fields
}

const field = (fields: Array<[number, number | Buffer]>, n: number) => fields.filter(([k]) => k === n).map(([, v]) => v as Buffer)

/** An OTLP KeyValue list (opentelemetry/proto/common/v1): string, bool and int values, as the spans here carry. */
function otlpAttributes (keyValues: Buffer[]): Record<string, unknown> {
  return Object.fromEntries(keyValues.map(kv => {
    const fields = protobufFields(kv)
    const [[kind, value] = [0, 0]] = protobufFields(field(fields, 2)[0] ?? Buffer.alloc(0))
    return [field(fields, 1)[0]!.toString(), kind === 1 ? (value as Buffer).toString() : kind === 2 ? value === 1 : value]
  }))
}

/**
 * The stand-in collector: OTLP over HTTP, protobuf (what exporter-trace-otlp-proto sends),
 * read with opentelemetry/proto/trace/v1's field numbers.
 */
async function otlpReceiver (): Promise<{ url: string, spans: ReceivedSpan[], close (): void }> {
  const spans: ReceivedSpan[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type'] === 'application/x-protobuf') {
        for (const resourceSpans of field(protobufFields(Buffer.concat(chunks)), 1)) {
          const resource = protobufFields(resourceSpans)
          const service = otlpAttributes(field(protobufFields(field(resource, 1)[0]!), 1))['service.name'] as string
          for (const scope of field(resource, 2)) {
            for (const span of field(protobufFields(scope), 2).map(protobufFields)) {
              const hex = (n: number) => field(span, n)[0]?.toString('hex') ?? ''
              spans.push({ service, traceId: hex(1), spanId: hex(2), parentSpanId: hex(4), name: field(span, 5)[0]!.toString(), attributes: otlpAttributes(field(span, 9)) })
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, close: () => { server.closeAllConnections(); server.close() } }
}

const receiver = await otlpReceiver()
t.teardown(() => receiver.close())

/** A client's trace: a `traceparent` as a caller upstream of the service would send it. */
function clientTrace () {
  const traceId = randomBytes(16).toString('hex')
  const spanId = randomBytes(8).toString('hex')
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` }
}

/** The chain of span names from `span` up to the client's span, which the service never sent. */
function ancestry (spans: ReceivedSpan[], span: ReceivedSpan): string[] {
  const byId = new Map(spans.map(s => [s.spanId, s]))
  const names = [span.name]
  let current = span
  while (byId.has(current.parentSpanId)) {
    current = byId.get(current.parentSpanId)!
    names.push(current.name)
  }
  return names
}

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
