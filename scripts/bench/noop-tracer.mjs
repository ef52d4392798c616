// The floor of tracing (observability.ts, variant `floor`): loaded into a traced
// service with `--import` before its code, it registers a tracer whose spans
// cost nothing (a fresh sampled span context, no attributes kept, nothing
// recorded or exported) with the SDK's own AsyncLocalStorage context manager.
// OpenTelemetry's API keeps the first global registration and refuses later
// ones, so the service's SDK provider, started next, stays unregistered while
// @fastify/otel still makes its request span (this one) and runs the request in
// its context, as with the SDK. What the service then pays over `metrics` is
// what any tracer that follows a request through its context pays here,
// however cheap its spans: a tracer of our own could not go under it.
// The propagator stays the API's no-op: the floor's callers send no traceparent.
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'

/** Lowercase hex digits, as many as asked (Math.random, as the SDK's ids). */
function hexId (digits) {
  let id = ''
  for (let i = 0; i < digits; i++) id += ((Math.random() * 16) | 0).toString(16)
  return id
}

class FreeSpan {
  constructor (spanContext) { this.context = spanContext }
  spanContext () { return this.context }
  setAttribute () { return this }
  setAttributes () { return this }
  addEvent () { return this }
  addLink () { return this }
  addLinks () { return this }
  setStatus () { return this }
  updateName () { return this }
  isRecording () { return true }
  recordException () {}
  end () {}
}

const tracer = {
  startSpan (_name, options = {}, parentContext = context.active()) {
    const parent = options.root ? undefined : trace.getSpanContext(parentContext)
    return new FreeSpan({ traceId: parent?.traceId ?? hexId(32), spanId: hexId(16), traceFlags: 1 })
  },
  startActiveSpan (name, ...rest) {
    const work = rest.pop()
    const [options, parentContext = context.active()] = rest
    const span = this.startSpan(name, options, parentContext)
    return context.with(trace.setSpan(parentContext, span), work, undefined, span)
  },
}

trace.setGlobalTracerProvider({ getTracer: () => tracer })
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
