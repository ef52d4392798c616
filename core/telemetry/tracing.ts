// OpenTelemetry traces (core/telemetry/README.md). Off unless
// OTEL_EXPORTER_OTLP_ENDPOINT is set; off, the SDK and the exporter are never
// loaded and the helpers below call straight through.
//
// A tracer provider is the process's (OpenTelemetry's API holds it globally,
// with the context manager and the propagator), so tracing is started once per
// process, by the first app or worker whose configuration names an endpoint.
import type { TracingConfig } from '../config.ts'
import { context, trace, SpanKind, SpanStatusCode, type Attributes, type Context, type Span } from '@opentelemetry/api'


/** The instrumentation scope every span of the service is made under. */
const TRACER_NAME = 'extraction-jobs'

let started: Promise<{ flush (): Promise<void> }> | null = null
let on = false

/** True once a process's tracing is started: the helpers make spans. */
export const tracingOn = (): boolean => on

/**
 * Starts the process's tracing when the configuration names an endpoint:
 * the tracer provider (batching spans to the OTLP HTTP exporter, protobuf:
 * the JSON encoding cost about twice its CPU per span, scripts/bench/README.md), the
 * AsyncLocalStorage context manager and the W3C trace-context propagator,
 * registered globally. Later calls reuse the first.
 */
export async function startTracing (config: TracingConfig): Promise<void> {
  if (!config.endpoint) return
  const endpoint = config.endpoint
  started ??= (async () => {
    const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-proto'),
      import('@opentelemetry/resources'),
    ])
    const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` })
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': config.serviceName }),
      spanProcessors: [new BatchSpanProcessor(exporter)],
    })
    provider.register()
    on = true
    return { flush: () => provider.forceFlush() }
  })()
  await started
}

const STATUS_POLL = /^\/api\/tool-run\/[^/?]+\/status(?:\?|$)/

/**
 * A job's status poll, `GET /api/tool-run/:id/status` (@fastify/otel's `ignorePaths`, asked with
 * the route's pattern when a route is added and with the request's URL at each request).
 */
export function isStatusPoll (route: { url: string, method: string | string[] }): boolean {
  // Asked at every request of every route while tracing: the prefix spares the others the pattern.
  if (!route.url.startsWith('/api/tool-run/')) return false
  const get = Array.isArray(route.method) ? route.method.includes('GET') : route.method === 'GET'
  return get && (route.url === '/api/tool-run/:id/status' || STATUS_POLL.test(route.url))
}

/** Sends the spans still batched (an app's close, a test that reads what was sent). */
export async function flushTraces (): Promise<void> {
  if (started) await (await started).flush()
}

/** What a span helper's callback may add to its span; a no-op when tracing is off. */
export interface SpanHandle {
  setAttributes (attributes: Attributes): void
}

const NO_SPAN: SpanHandle = { setAttributes () {} }

/**
 * Runs `work` in a span named `name` (the active context's child), ended when
 * `work` settles; a throw marks it as an error with the error's class name
 * (never its message: messages may quote URLs). Off: `work` runs as it is.
 * For a webhook attempt: `inSpan('webhook attempt', { 'webhook.attempt': n }, span => …)`.
 */
export function inSpan<T> (name: string, attributes: Attributes, work: (span: SpanHandle) => Promise<T>, kind: 'client' | 'internal' = 'internal'): Promise<T> {
  if (!on) return work(NO_SPAN)
  const tracer = trace.getTracer(TRACER_NAME)
  return tracer.startActiveSpan(name, { attributes, kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL }, async (span: Span) => {
    try {
      return await work(span)
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' })
      throw err
    } finally {
      span.end()
    }
  })
}

/** The active trace context, to run later work in (a queued job); null when tracing is off. */
export function currentContext (): Context | null {
  return on ? context.active() : null
}

/** Runs `work` in a context `currentContext` gave (null: as it is). */
export function withContext<T> (saved: Context | null, work: () => T): T {
  return saved ? context.with(saved, work) : work()
}
