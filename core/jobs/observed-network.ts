// A job's network as the operator sees it: every ctx.http request and every
// page a crawler fetches is counted by tool and outcome (core/metrics) and,
// with tracing on, is a span of the job's trace. Wraps what net-factory.ts
// makes without changing it: the guarded client and the crawlers are the
// same objects underneath.
import type { HttpCrawlingContext } from 'crawlee'
import { UpstreamError, type CrawlerFactory } from '../tools/contract.ts'
import type { GuardedHttpClient } from '../net/http-client.ts'
import { upstreamOutcome, type Metrics, type UpstreamOutcome } from '../metrics/metrics.ts'
import { currentContext, inSpan, openSpan, tracingOn, type OpenSpan } from '../telemetry/tracing.ts'

/**
 * A span's class of host instead of the host: `ip` for an address literal,
 * `local` for a name without a dot, else the name's last label (`com`, `io`).
 * Enough to tell a tool's traffic apart in a trace, never the site or its URL.
 */
function hostClass (url: string | URL): string {
  let host: string
  try { host = new URL(url).hostname } catch { return 'invalid' }
  if (host.startsWith('[') || /^[\d.]+$/.test(host)) return 'ip'
  const dot = host.lastIndexOf('.')
  return dot === -1 ? 'local' : host.slice(dot + 1).toLowerCase()
}

/**
 * The outcome of a request that threw: the job's own stop is not the upstream's
 * failure (not counted); an answer the client refused (JSON that was not, a
 * redirect it does not follow) counts by its status; else `error`.
 */
const failedOutcome = (signal: AbortSignal, err?: unknown): UpstreamOutcome | null => {
  if (signal.aborted) return null
  const status = err instanceof UpstreamError ? err.status : undefined
  return status === undefined ? 'error' : upstreamOutcome(status)
}

/** ctx.http with each request counted and traced; `fetch`, `text` and `json` each count once. */
export function observedHttpClient (client: GuardedHttpClient, tool: string, metrics: Metrics, signal: AbortSignal): GuardedHttpClient {
  if (!metrics.enabled && !tracingOn()) return client
  const observe = <A extends unknown[], R extends { status: number }>(call: (input: string | URL, ...rest: A) => Promise<R>) =>
    (input: string | URL, ...rest: A): Promise<R> => {
      const started = performance.now()
      const method = (rest[0] as { method?: string } | undefined)?.method?.toUpperCase() ?? 'GET'
      return inSpan(`upstream ${method}`, { 'job.tool': tool, 'upstream.host_class': hostClass(input), 'http.request.method': method }, async (span) => {
        let outcome: UpstreamOutcome | null = null
        try {
          const answer = await call(input, ...rest)
          outcome = upstreamOutcome(answer.status)
          span.setAttributes({ 'http.response.status_code': answer.status, 'upstream.outcome': outcome })
          return answer
        } catch (err) {
          outcome = failedOutcome(signal, err)
          throw err
        } finally {
          if (outcome) {
            metrics.upstreamRequests.inc({ tool, outcome })
            metrics.upstreamDuration.observe({ tool, outcome }, (performance.now() - started) / 1000)
          }
        }
      }, { kind: 'client' })
    }
  return { ...client, fetch: observe(client.fetch), text: observe(client.text), json: observe(client.json) as GuardedHttpClient['json'] }
}

/**
 * Crawlers whose page fetches are counted (a fetched page by its status, after
 * crawlee's navigation; a fetch that got no answer as `error`) and, with tracing
 * on, each a span from before its navigation to its answer or failure. crawlee
 * runs its pages outside any callback of ours: the spans are started by hand,
 * under the context the crawler was made in (the job's run).
 */
export function observedCrawlers (factory: CrawlerFactory, tool: string, metrics: Metrics, signal: AbortSignal): CrawlerFactory {
  if (!metrics.enabled && !tracingOn()) return factory
  return {
    http (options) {
      // crawlee calls errorHandler for an attempt it may retry and failedRequestHandler at the last; an attempt that
      // the errorHandler ends (noRetry) reaches both with the same context: counted once.
      const counted = new WeakSet<object>()
      const count = (context: HttpCrawlingContext, outcome: UpstreamOutcome | null) => {
        if (!outcome || counted.has(context) || !metrics.enabled) return
        counted.add(context)
        metrics.upstreamRequests.inc({ tool, outcome })
      }
      // Each attempt's span, by its crawling context (a retry is a new context, and a span of its own).
      const parent = currentContext()
      const spans = new WeakMap<object, OpenSpan>()
      const endSpan = (context: HttpCrawlingContext, attributes: Record<string, string | number>, failure?: unknown) => {
        const span = spans.get(context)
        if (!span) return
        spans.delete(context)
        span.setAttributes(attributes)
        span.end(failure)
      }
      const failed = (context: HttpCrawlingContext, error: Error) => {
        const outcome = context.response === undefined ? failedOutcome(signal) : null
        count(context, outcome)
        endSpan(context, outcome ? { 'upstream.outcome': outcome } : {}, error)
      }
      return factory.http({
        ...options,
        preNavigationHooks: [...(options.preNavigationHooks ?? []), async (context) => {
          const span = openSpan('upstream GET', { 'job.tool': tool, 'upstream.host_class': hostClass(context.request.url), 'http.request.method': context.request.method }, parent, { kind: 'client' })
          if (span) spans.set(context, span)
        }],
        postNavigationHooks: [async (context) => {
          const status = context.response?.statusCode
          if (status !== undefined) {
            count(context, upstreamOutcome(status))
            endSpan(context, { 'http.response.status_code': status, 'upstream.outcome': upstreamOutcome(status) })
          }
        }, ...(options.postNavigationHooks ?? [])],
        async errorHandler (context, error) {
          failed(context, error)
          await options.errorHandler?.(context, error)
        },
        async failedRequestHandler (context, error) {
          failed(context, error)
          await options.failedRequestHandler?.(context, error)
        },
      })
    },
  }
}
