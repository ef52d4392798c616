// A sampler that drops traces (OTEL_TRACES_SAMPLER=parentbased_traceidratio, here at a ratio of 0,
// so every decision is known): a request it drops gets no span at all, a caller's sampled
// `traceparent` is still followed into the job, an unsampled one is not. Tracing is the process's
// (the sampler too), so this file has its own process: it runs alone, in no group.
import t from 'tap'
import { trace } from '@opentelemetry/api'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, waitForEnd } from '../helpers/jobs.ts'
import { flushTraces, requestSampling, requestTraced } from '../../core/telemetry/tracing.ts'
import { jobIdOf, until } from './_cluster.ts'
import { ancestry, clientTrace, otlpReceiver } from './_otlp.ts'

const receiver = await otlpReceiver()
t.teardown(() => receiver.close())

t.test('a dropped request has no span; a sampled caller is followed into its job, an unsampled one is not', async t => {
  // What each request's handler runs in: the active span, none for a request the sampler dropped.
  const active: Array<{ traceparent: unknown, span: boolean }> = []
  const probe = { name: 'probe', register: async (scope: any) => { scope.addHook('preHandler', async (request: any) => { if (request.url === '/api/auth/me') active.push({ traceparent: request.headers.traceparent, span: trace.getActiveSpan() !== undefined }) }) } }
  const logLines: string[] = []
  t.teardown(() => { if (t.passing() === false) console.error(logLines.filter(l => l.includes('"level":50')).slice(0, 3).join('\n')) })
  const app = await buildWithCounter(t, { logLines, features: [probe], env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' } })
  const user = await signup(app)
  const me = (headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': user.apiKey, ...headers } })
  const start = (headers: Record<string, string> = {}) => app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey, ...headers }, payload: { tool: 'counter', params: { max_results: 2 } } })

  const sampled = clientTrace()
  const unsampled = clientTrace(false)
  for (let i = 0; i < 20; i++) t.equal((await me()).statusCode, 200)
  t.equal((await me({ traceparent: unsampled.traceparent })).statusCode, 200)
  t.equal((await me({ traceparent: sampled.traceparent })).statusCode, 200)
  const keptJob = clientTrace()
  const kept = jobIdOf(await start({ traceparent: keptJob.traceparent }))
  const root = jobIdOf(await start())
  const poll = clientTrace()
  t.equal((await app.inject({ method: 'GET', url: `/api/tool-run/${kept}/status`, headers: { 'x-api-key': user.apiKey, traceparent: poll.traceparent } })).statusCode, 200)
  for (const id of [kept, root]) t.equal((await waitForEnd(app, user.apiKey, id)).status, 'done')
  await flushTraces()
  await until('the kept job\'s run arrived', () => receiver.spans.some(s => s.name === 'job run' && s.attributes['job.id'] === kept), 30_000)

  t.same(active.filter(a => a.span).map(a => a.traceparent), [sampled.traceparent], 'only the sampled read of me ran in a span: a dropped one has no context either')
  t.equal(active.length, 22)

  const meSpans = receiver.spans.filter(s => s.name === 'request' && s.attributes['url.path'] === '/api/auth/me')
  t.equal(meSpans.length, 1, 'of 22 reads of me, only the one whose caller sampled it has a span')
  t.equal(meSpans[0]!.traceId, sampled.traceId)
  t.equal(meSpans[0]!.parentSpanId, sampled.spanId, 'under the caller\'s span')
  t.same(receiver.spans.filter(s => s.traceId === unsampled.traceId), [], 'an unsampled caller\'s request sent nothing')

  const keptTrace = receiver.spans.filter(s => s.traceId === keptJob.traceId)
  const run = keptTrace.find(s => s.name === 'job run')!
  t.equal(run.attributes['job.id'], kept)
  t.equal(ancestry(keptTrace, run).at(-1), 'request', 'the kept job\'s run is under its start request')
  t.notOk(receiver.spans.some(s => s.attributes['job.id'] === root), 'a job started untraced is the sampler\'s root, dropped at a ratio of 0')
  t.same(receiver.spans.filter(s => s.traceId === poll.traceId), [], 'a status poll stays untraced')
  t.equal(receiver.spans.filter(s => s.name === 'request').length, 2, 'two request spans in all: the sampled me and the kept start')
})

t.test('the head decision: the configured sampler asked before the span; @fastify/otel told for the same request only', async t => {
  t.notOk(requestTraced(undefined), 'a root request, at a ratio of 0')
  t.ok(requestTraced(clientTrace().traceparent), 'a caller that sampled')
  t.notOk(requestTraced(clientTrace(false).traceparent), 'a caller that did not')
  t.notOk(requestTraced('00-not-a-trace-01'), 'a malformed traceparent is no parent: a root')
  t.notOk(requestTraced([clientTrace().traceparent, clientTrace().traceparent]), 'two traceparent headers are no parent either')
  const sampling = requestSampling(route => route.url.startsWith('/skip'))!
  const decide = (url: string, traceparent?: string) => sampling.onRequest({ url, method: 'GET', headers: { traceparent } }, null, () => {})
  decide('/a')
  t.notOk(sampling.ignores({ url: '/b', method: 'GET' }), 'another URL: not this decision (traced, the safe side)')
  decide('/a')
  t.ok(sampling.ignores({ url: '/a', method: 'GET' }), 'the dropped request is ignored')
  t.notOk(sampling.ignores({ url: '/a', method: 'GET' }), 'once: the decision is used up')
  decide('/a', clientTrace().traceparent)
  t.notOk(sampling.ignores({ url: '/a', method: 'GET' }), 'a kept request is traced')
  decide('/skip/1')
  t.ok(sampling.ignores({ url: '/skip/1', method: 'GET' }), 'a skipped route is ignored, by its own rule')
  // Asked with no request before it (a route as it is added): the skip rule alone answers.
  t.ok(sampling.ignores({ url: '/skip/:id', method: 'GET' }), 'a skipped route\'s pattern')
  t.notOk(sampling.ignores({ url: '/c', method: 'GET' }), 'any other pattern')
})
