// OpenTelemetry traces (core/telemetry/README.md). Off unless
// OTEL_EXPORTER_OTLP_ENDPOINT is set; off, the SDK and the exporter are never
// loaded and the helpers below call straight through.
//
// A tracer provider is the process's (OpenTelemetry's API holds it globally,
// with the context manager and the propagator), so tracing is started once per
// process, by the first app or worker whose configuration names an endpoint.
import type { TracingConfig } from '../config.ts'
import { context, propagation, trace, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Attributes, type Context, type Span } from '@opentelemetry/api'
import type { IdGenerator, Sampler } from '@opentelemetry/sdk-trace-node'


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
    const [sdk, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-proto'),
      import('@opentelemetry/resources'),
    ])
    const configured = samplerOf(sdk, config.sampler, config.samplerRatio)
    // A sampler that may drop a request decides it before its span (requestSampling); the
    // provider then records the request spans it meets, kept already, and asks it of the rest.
    const dropsRequests = config.sampler !== 'always_on' && config.sampler !== 'parentbased_always_on'
    const kept = sdk.SamplingDecision.RECORD_AND_SAMPLED
    requestDecision = dropsRequests ? { sampler: configured, ids: new sdk.RandomIdGenerator(), kept } : null
    const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` })
    const provider = new sdk.NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': config.serviceName }),
      sampler: dropsRequests ? keptRequests(configured, kept) : configured,
      spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
    })
    provider.register()
    on = true
    return { flush: () => provider.forceFlush() }
  })()
  await started
}

type SdkTrace = typeof import('@opentelemetry/sdk-trace-node')

/** OTEL_TRACES_SAMPLER's sampler, as the SDK would make it from the environment. */
function samplerOf (sdk: SdkTrace, name: TracingConfig['sampler'], ratio: number): Sampler {
  switch (name) {
    case 'always_on': return new sdk.AlwaysOnSampler()
    case 'always_off': return new sdk.AlwaysOffSampler()
    case 'traceidratio': return new sdk.TraceIdRatioBasedSampler(ratio)
    case 'parentbased_always_off': return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() })
    case 'parentbased_traceidratio': return new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio) })
    case 'parentbased_always_on': return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() })
  }
}

/** @fastify/otel's mark on its request span's attributes (what it passes to `startSpan`). */
const REQUEST_SPAN_MARK = 'fastify.root'

/** The provider's sampler when requests are decided first: a request span is one that was kept; any other span is `inner`'s to decide. */
function keptRequests (inner: Sampler, recorded: number): Sampler {
  return {
    shouldSample (parent, traceId, name, kind, attributes, links) {
      return attributes?.[REQUEST_SPAN_MARK] !== undefined ? { decision: recorded } : inner.shouldSample(parent, traceId, name, kind, attributes, links)
    },
    toString: () => `KeptRequests{${inner.toString()}}`,
  }
}

/**
 * When the configured sampler may drop a request (ratio, always_off), requests are decided before
 * their span: the sampler, the ids of a request without a parent (the SDK's, Math.random:
 * crypto.randomBytes costs ≈ 12 µs a call on this machine, more than the rest of a dropped
 * request) and the decision that keeps one (the SDK's enum, which is loaded only with tracing).
 */
let requestDecision: { sampler: Sampler, ids: IdGenerator, kept: number } | null = null

/**
 * Whether the configured sampler keeps a request: asked as the SDK would ask it for the request's
 * span, the caller's `traceparent` its parent, or a root with a fresh trace id.
 */
export function requestTraced (traceparent: string | string[] | undefined): boolean {
  if (!requestDecision) return true
  const parent = typeof traceparent === 'string' ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT
  const traceId = trace.getSpanContext(parent)?.traceId ?? requestDecision.ids.generateTraceId()
  return requestDecision.sampler.shouldSample(parent, traceId, 'request', SpanKind.SERVER, {}, []).decision === requestDecision.kept
}

/** What `requestSampling` needs of a request: fastify's onRequest arguments. */
interface SampledRequest { url: string, method: string, headers: Record<string, string | string[] | undefined> }

/**
 * A sampler that may drop requests decides each one before @fastify/otel makes its span: a dropped
 * request then gets no span and no context at all, and costs what an untraced one does (an
 * unsampled span and its context cost 15–25 % of `me`, scripts/bench/README.md). `onRequest`
 * decides; registered just before @fastify/otel's hook, which fastify runs next for the same
 * request, synchronously, it leaves the decision for `ignores` (@fastify/otel's `ignorePaths`,
 * asked with the request's URL). Null when the sampler keeps every root request (the default).
 * `skip` routes (status polls) are ignored without asking the sampler; `ignores` asks `skip` itself
 * only of what no request decided (a route as it is added).
 */
export function requestSampling (skip: (route: { url: string, method: string | string[] }) => boolean): { onRequest (request: SampledRequest, reply: unknown, done: () => void): void, ignores (route: { url: string, method: string | string[] }): boolean } | null {
  if (!requestDecision) return null
  let decided: { url: string, ignored: boolean } | null = null
  return {
    onRequest (request, _reply, done) {
      decided = { url: request.url, ignored: skip(request) || !requestTraced(request.headers.traceparent) }
      done()
    },
    ignores (route) {
      const request = decided
      decided = null
      return request !== null && request.url === route.url ? request.ignored : skip(route)
    },
  }
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

/** How a span stands: a `client` call leaving the service, else `internal`; `root` starts a trace of its own, whatever context is active. */
export interface SpanPlace { kind?: 'client' | 'internal', root?: boolean }

const spanOptions = (attributes: Attributes, place: SpanPlace) =>
  ({ attributes, kind: place.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, root: place.root === true })

/** Marks a span failed with the error's class name (never its message: messages may quote URLs). */
const markFailed = (span: Span, err: unknown) => span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' })

/**
 * Runs `work` in a span named `name` (the active context's child), ended when
 * `work` settles; a throw marks it as an error with the error's class name.
 * Off: `work` runs as it is.
 */
export function inSpan<T> (name: string, attributes: Attributes, work: (span: SpanHandle) => Promise<T>, place: SpanPlace = {}): Promise<T> {
  if (!on) return work(NO_SPAN)
  const tracer = trace.getTracer(TRACER_NAME)
  return tracer.startActiveSpan(name, spanOptions(attributes, place), async (span: Span) => {
    try {
      return await work(span)
    } catch (err) {
      markFailed(span, err)
      throw err
    } finally {
      span.end()
    }
  })
}

/** A span started and ended by hand, for work that runs outside any callback of ours (a crawler's page). */
export interface OpenSpan extends SpanHandle {
  /** Ends it; `failure` (an error, or true) marks it failed. */
  end (failure?: unknown): void
}

/**
 * Starts a span named `name` under `parent` (a context `currentContext` gave;
 * null: the active one). Null when tracing is off.
 */
export function openSpan (name: string, attributes: Attributes, parent: Context | null, place: SpanPlace = {}): OpenSpan | null {
  if (!on) return null
  const span = trace.getTracer(TRACER_NAME).startSpan(name, spanOptions(attributes, place), parent ?? context.active())
  return {
    setAttributes: (more) => { span.setAttributes(more) },
    end (failure) {
      if (failure !== undefined && failure !== false) markFailed(span, failure)
      span.end()
    },
  }
}

/** The active trace context, to run later work in (a queued job); null when tracing is off. */
export function currentContext (): Context | null {
  return on ? context.active() : null
}

/** Runs `work` in a context `currentContext` gave (null: as it is). */
export function withContext<T> (saved: Context | null, work: () => T): T {
  return saved ? context.with(saved, work) : work()
}
