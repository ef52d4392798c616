// W3C trace context (traceparent, tracestate) that an MCP request carries in
// its `_meta`: the job a tool call starts begins inside it, so with an
// OpenTelemetry SDK registered the job's spans join the caller's trace.
// Without one, @opentelemetry/api's propagator and context manager are no-ops
// and this changes nothing.
import { context, propagation } from '@opentelemetry/api'

export interface TraceCarrier { traceparent?: string, tracestate?: string }

/** The trace-context keys of a request's `_meta` (strings only; anything else is not a carrier). */
export function traceCarrier (meta: Record<string, unknown> | undefined): TraceCarrier | undefined {
  if (!meta) return undefined
  const carrier: TraceCarrier = {}
  if (typeof meta.traceparent === 'string') carrier.traceparent = meta.traceparent
  if (typeof meta.tracestate === 'string') carrier.tracestate = meta.tracestate
  return carrier.traceparent ? carrier : undefined
}

/** Runs `fn` inside the context the carrier names (the active one when there is none). */
export function withTraceContext<T> (carrier: TraceCarrier | undefined, fn: () => T): T {
  if (!carrier) return fn()
  return context.with(propagation.extract(context.active(), carrier), fn)
}
