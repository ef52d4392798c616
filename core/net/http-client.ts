// The guarded HTTP client handed to tools as ctx.http. See README.md.
//
// Where the guard runs:
// - Direct connections: inside the undici connector. Every new socket resolves
//   its host, checks every address, then connects with a lookup that can only
//   answer those vetted addresses, so the address connected to is the address
//   checked (no DNS-rebinding window between a check and a second resolution).
// - Through a proxy: the proxy resolves the target itself, out of our reach, so
//   the target host is resolved and checked here before each request; that is
//   the best a client can do, and the proxy should refuse private targets too.
// Redirects are followed by hand (`redirect: 'manual'`) so every hop goes
// through the same check.
//
// undici (about a hundred modules) loads with a client's first request, not
// with the app: a server that runs no job and sends no webhook never loads it.
import type { Dispatcher, RequestInit as UndiciRequestInit, buildConnector as BuildConnector, fetch as UndiciFetch } from 'undici'
import { BlockedTargetError, InputError, ResponseTooLargeError, UpstreamError, type GuardedRequestInit, type HttpClient } from '../tools/contract.ts'
import { pinnedLookup, systemLookup, urlPort, vetTarget, type HostLookup, type TargetPolicy } from './network-policy.ts'
import { decodeBody } from './body-charset.ts'
import { describeNetworkFailure, redactUrl } from './public-errors.ts'
import type { ProxyChooser } from './proxy-pool.ts'

const DEFAULT_TIMEOUT_MS = 20_000
const DEFAULT_MAX_REDIRECTS = 5
/** MAX_RESPONSE_BYTES's default: the decoded size of one response body. */
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024

export interface HttpClientOptions {
  policy: TargetPolicy
  /** Sent unless the caller sets its own User-Agent header. */
  userAgent: string
  /** The outbound proxies' chooser (core/net/proxy-pool.ts), asked once per request; none: direct connections. */
  proxies?: ProxyChooser | null
  /** The job's signal: aborting it cancels every request and body read of this client. */
  signal?: AbortSignal
  /** Host resolution (default node:dns lookup, all addresses); injected by tests. */
  lookup?: HostLookup
  /**
   * MAX_RESPONSE_BYTES: the most decoded bytes one response body may have
   * (default 5 MB). A caller's `maxBytes` can lower it, never raise it.
   */
  maxResponseBytes?: number
}

/** The contract's HttpClient plus close(), for the container's disposer. */
export interface GuardedHttpClient extends HttpClient {
  /** Closes pooled connections; requests after close() fail. */
  close (): Promise<void>
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304])
// Dropped when a redirect leaves the origin, as browsers do: credentials meant for one site.
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization']
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']

/** An undici connector that vets host and port before each new socket and pins the vetted addresses. */
function guardedConnector (buildConnector: typeof BuildConnector, policy: TargetPolicy, lookup: HostLookup): BuildConnector.connector {
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80)
    vetTarget(policy, lookup, options.hostname, port).then(
      addresses => buildConnector({ lookup: pinnedLookup(addresses) })(options, callback),
      (err: Error) => callback(err, null),
    )
  }
}

function parseTargetUrl (input: string | URL): URL {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new InputError(`Not a valid URL: ${String(input)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InputError(`Only http: and https: URLs can be fetched, not ${url.protocol} (${redactUrl(url)})`)
  }
  return url
}

/**
 * Counts bytes as the caller reads and errors the stream past the limit; maps
 * read errors. undici's fetch has already decoded the content encoding, so the
 * count is of decoded bytes, and since it decodes only as fast as this stream
 * is read, a compression bomb is stopped at the limit, not inflated first.
 */
function limitBody (source: ReadableStream<Uint8Array>, maxBytes: number, href: string, mapError: (err: unknown) => unknown): ReadableStream<Uint8Array> {
  const reader = source.getReader()
  let received = 0
  return new ReadableStream<Uint8Array>({
    async pull (controller) {
      try {
        const { done, value } = await reader.read()
        if (done) return controller.close()
        received += value.byteLength
        if (received > maxBytes) {
          const err = new ResponseTooLargeError(`The response from ${redactUrl(href)} is larger than the ${maxBytes}-byte limit`, maxBytes)
          controller.error(err)
          await reader.cancel(err).catch(() => {})
          return
        }
        controller.enqueue(value)
      } catch (err) {
        controller.error(mapError(err))
      }
    },
    cancel (reason) {
      return reader.cancel(reason)
    },
  })
}

export function createHttpClient (options: HttpClientOptions): GuardedHttpClient {
  const { policy, userAgent, proxies, signal: clientSignal } = options
  const lookup = options.lookup ?? systemLookup
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_BYTES
  /** undici and this client's connection pool, made on the first request. */
  let network: Promise<{ dispatcherFor: (proxy: string | null) => Dispatcher, dispatchers: Map<string | null, Dispatcher>, undiciFetch: typeof UndiciFetch }> | null = null
  let closed = false
  // One connection pool per proxy this client has used (and one for direct connections).
  const connect = () => network ??= import('undici').then(({ Agent, ProxyAgent, buildConnector, fetch: undiciFetch }) => {
    const dispatchers = new Map<string | null, Dispatcher>()
    const dispatcherFor = (proxy: string | null) => {
      let dispatcher = dispatchers.get(proxy)
      if (!dispatcher) {
        dispatcher = proxy ? new ProxyAgent({ uri: proxy }) : new Agent({ connect: guardedConnector(buildConnector, policy, lookup) })
        dispatchers.set(proxy, dispatcher)
      }
      return dispatcher
    }
    return { dispatcherFor, dispatchers, undiciFetch }
  })

  async function guardedFetch (input: string | URL, init: GuardedRequestInit = {}): Promise<Response> {
    const {
      timeoutMs = DEFAULT_TIMEOUT_MS, maxRedirects = DEFAULT_MAX_REDIRECTS, maxBytes: askedMaxBytes,
      signal: callerSignal, redirect: redirectMode = 'follow', ...requestInit
    } = init
    const maxBytes = Math.min(askedMaxBytes ?? maxResponseBytes, maxResponseBytes)
    let url = parseTargetUrl(input)
    const timeoutSignal = AbortSignal.timeout(timeoutMs)
    const cancelSignals = [callerSignal, clientSignal].filter((s): s is AbortSignal => s !== undefined)
    // One signal for every hop and for the body read after fetch() returns.
    const signal = AbortSignal.any([timeoutSignal, ...cancelSignals])

    // Timeouts become UpstreamError (the job ends in error, refunded); a
    // cancellation stays the caller's own abort reason.
    const mapError = (err: unknown, href = url.href): unknown => {
      const cancelled = cancelSignals.find(s => s.aborted)
      if (cancelled) return cancelled.reason ?? err
      if (timeoutSignal.aborted) return new UpstreamError(`Timed out after ${timeoutMs} ms fetching ${redactUrl(href)}`)
      if (err instanceof BlockedTargetError || err instanceof UpstreamError || err instanceof InputError) return err
      const cause = (err as { cause?: unknown }).cause
      if (cause instanceof BlockedTargetError || cause instanceof UpstreamError) return cause
      // Never the library's message: it names the address and port tried (see public-errors.ts).
      return new UpstreamError(`Could not fetch ${redactUrl(href)}: ${describeNetworkFailure(err)}`)
    }

    const headers = new Headers(requestInit.headers)
    if (!headers.has('user-agent')) headers.set('user-agent', userAgent)
    let method = (requestInit.method ?? 'GET').toUpperCase()
    let body = requestInit.body
    const chain = [url.href]
    // Every hop of one request goes through the same proxy.
    const proxy = proxies ? proxies.pick() : null

    for (let hop = 0; ; hop++) {
      let response: Awaited<ReturnType<typeof UndiciFetch>>
      try {
        if (closed && !network) throw new UpstreamError('the HTTP client is closed')
        const { dispatcherFor, undiciFetch } = await connect()
        const dispatcher = dispatcherFor(proxy)
        if (proxy) {
          // The proxy resolves the target, so check it here; see the header comment.
          await vetTarget(policy, lookup, url.hostname, urlPort(url))
          signal.throwIfAborted()
        }
        try {
          response = await undiciFetch(url, {
            ...requestInit, method, headers, body, redirect: 'manual', signal, dispatcher,
          } as UndiciRequestInit)
        } catch (err) {
          // No answer through the proxy (not a cancel, not our own refusal): the proxy's failure, for its health.
          if (proxy && !cancelSignals.some(s => s.aborted) && !(err instanceof BlockedTargetError)) proxies!.failed(proxy, describeNetworkFailure(err))
          throw err
        }
        if (proxy) proxies!.succeeded(proxy)
      } catch (err) {
        throw mapError(err)
      }

      const location = response.headers.get('location')
      if (!REDIRECT_STATUSES.has(response.status) || location === null || redirectMode === 'manual') {
        return guardedResponse(response, url.href, maxBytes, mapError)
      }
      await response.body?.cancel().catch(() => {})
      if (redirectMode === 'error') {
        throw new UpstreamError(`${redactUrl(url)} redirected, and this request refuses redirects`, response.status)
      }
      let next: URL
      try {
        next = new URL(location, url)
      } catch {
        throw new UpstreamError(`${redactUrl(url)} redirected to an invalid URL`, response.status)
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new UpstreamError(`${redactUrl(url)} redirected to a ${next.protocol} URL, which is not fetched`, response.status)
      }
      next.hash = next.hash || url.hash
      if (chain.includes(next.href)) {
        throw new UpstreamError(`Redirect loop: ${[...chain, next.href].map(redactUrl).join(' -> ')}`, response.status)
      }
      if (hop >= maxRedirects) {
        // The next hop was never vetted, so it is not shown.
        throw new UpstreamError(`Too many redirects (more than ${maxRedirects}): ${chain.map(redactUrl).join(' -> ')}`, response.status)
      }
      // Method and body after a redirect, as the fetch standard has it.
      if ((response.status === 303 && method !== 'HEAD') || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET'
        body = undefined
        for (const name of BODY_HEADERS) headers.delete(name)
      } else if (body instanceof ReadableStream) {
        throw new UpstreamError(`${redactUrl(url)} answered ${response.status}, which would resend a streamed body that cannot be replayed`, response.status)
      }
      if (next.origin !== url.origin) for (const name of ORIGIN_BOUND_HEADERS) headers.delete(name)
      url = next
      chain.push(url.href)
    }
  }

  /** Wraps the undici response in a standard Response whose body honours maxBytes, the timeout and the signal. */
  function guardedResponse (response: Awaited<ReturnType<typeof UndiciFetch>>, href: string, maxBytes: number, mapError: (err: unknown, href?: string) => unknown): Response {
    const declared = Number(response.headers.get('content-length'))
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.body?.cancel().catch(() => {})
      throw new ResponseTooLargeError(`The response from ${redactUrl(href)} is ${declared} bytes, larger than the ${maxBytes}-byte limit`, maxBytes, response.status)
    }
    const body = response.body && !NULL_BODY_STATUSES.has(response.status)
      ? limitBody(response.body as ReadableStream<Uint8Array>, maxBytes, href, err => mapError(err, href))
      : null
    const wrapped = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers as unknown as HeadersInit,
    })
    // A constructed Response has an empty url; callers need the final URL after redirects.
    Object.defineProperty(wrapped, 'url', { value: href })
    return wrapped
  }

  async function readText (input: string | URL, init?: GuardedRequestInit) {
    const response = await guardedFetch(input, init)
    const bytes = new Uint8Array(await response.arrayBuffer())
    return { status: response.status, url: response.url, headers: response.headers, body: decodeBody(bytes, response.headers.get('content-type')) }
  }

  return {
    fetch: guardedFetch,
    text: readText,
    async json<T = unknown> (input: string | URL, init?: GuardedRequestInit) {
      const headers = new Headers(init?.headers)
      if (!headers.has('accept')) headers.set('accept', 'application/json')
      const result = await readText(input, { ...init, headers })
      let body: T
      try {
        body = JSON.parse(result.body) as T
      } catch {
        const excerpt = result.body.slice(0, 120).replace(/\s+/g, ' ')
        throw new UpstreamError(`Expected JSON from ${redactUrl(result.url)} (HTTP ${result.status}), got: ${excerpt || '(empty body)'}`, result.status)
      }
      return { ...result, body }
    },
    async close () {
      closed = true
      if (network) await Promise.all([...(await network).dispatchers.values()].map(d => d.close()))
    },
  }
}
