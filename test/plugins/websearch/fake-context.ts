// A hand-made ToolContext for driving run(ctx) without the kernel: push
// collects rows (validated against the row schema, capped like the kernel
// does), warn/summary/stage record, blocked throws ToolBlockedError, and http
// is a small wrapper over global fetch that refuses anything but loopback, so
// a test can never reach the internet.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { Value } from 'typebox/value'
import { ToolBlockedError, MissingCredentialError, type GuardedRequestInit, type HttpClient } from '../../../core/tools/contract.ts'
import { websearchRow, type WebsearchInput, type WebsearchRow } from '../../../plugins/websearch/schema.ts'
import type { WebsearchContext } from '../../../plugins/websearch/run.ts'
import type { WebsearchSettings } from '../../../plugins/websearch/settings.ts'
import websearch from '../../../plugins/websearch/index.ts'
import { readToolSettings } from '../../../core/tools/tool-settings.ts'

interface Teardown { teardown (fn: () => unknown): void }

function assertLoopback (url: string | URL): void {
  const host = new URL(url).hostname
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') throw new Error(`test network guard: refused ${url}`)
}

export function loopbackHttp (): HttpClient & { requests: string[] } {
  const requests: string[] = []
  const client = {
    requests,
    async fetch (url: string | URL, init: GuardedRequestInit = {}): Promise<Response> {
      assertLoopback(url)
      requests.push(`${init.method ?? 'GET'} ${url}`)
      const { timeoutMs, maxRedirects, maxBytes, signal, ...rest } = init
      void maxRedirects; void maxBytes
      const timeout = AbortSignal.timeout(timeoutMs ?? 5000)
      return fetch(url, { ...rest, signal: signal ? AbortSignal.any([signal, timeout]) : timeout })
    },
    async text (url: string | URL, init?: GuardedRequestInit) {
      const res = await client.fetch(url, init)
      // Every redirect hop is checked the same way the kernel's guard would.
      assertLoopback(res.url || url)
      return { status: res.status, url: res.url, headers: res.headers, body: await res.text() }
    },
    async json<T = unknown> (url: string | URL, init?: GuardedRequestInit) {
      const res = await client.text(url, init)
      return { ...res, body: JSON.parse(res.body) as T }
    },
  }
  return client
}

export interface FakeContextOptions {
  urls?: Record<string, string>
  credentials?: Record<string, string>
  state?: unknown
  /** Per-run row ceiling (default 1000). */
  cap?: number
  settings?: Record<string, unknown>
}

export type FakeContext = WebsearchContext & {
  rows: WebsearchRow[]
  warnings: string[]
  stages: string[]
  summaries: Array<Record<string, unknown>>
  http: ReturnType<typeof loopbackHttp>
}

const CREDENTIAL_NAMES: Record<string, string> = { serper: 'SERPER_API_KEY', serpapi: 'SERPAPI_API_KEY', google_cse: 'GOOGLE_CSE_API_KEY', google_cse_cx: 'GOOGLE_CSE_ID' }

export function fakeContext (input: WebsearchInput, options: FakeContextOptions = {}): FakeContext {
  const cap = options.cap ?? 1000
  const rows: WebsearchRow[] = []
  const warnings: string[] = []
  const stages: string[] = []
  const summaries: Array<Record<string, unknown>> = []
  const credentials = options.credentials ?? {}
  const ctx = {
    input,
    // As the kernel makes it at boot: the schema's defaults under the given settings.
    settings: readToolSettings(websearch, options.settings) as WebsearchSettings,
    job: { id: 'job-test', accountId: 'account-test', tool: 'websearch' },
    remaining: () => cap - rows.length,
    signal: new AbortController().signal,
    log: pino({ level: 'silent' }),
    http: loopbackHttp(),
    crawler: { http () { throw new Error('the websearch plugin does not use crawlers') } },
    network: { allowPrivateTargets: true, assertAllowedAddress () {} },
    upstream: {
      urls: options.urls ?? {},
      credentialNames: CREDENTIAL_NAMES,
      credential: (name: string) => credentials[name],
      requireCredential (name: string, what = 'This tool') {
        const value = credentials[name]
        if (!value) throw new MissingCredentialError(CREDENTIAL_NAMES[name] ?? name, what)
        return value
      },
    },
    async push (batch: WebsearchRow[]) {
      for (const row of batch) {
        if (!Value.Check(websearchRow, row)) throw new Error(`row does not match the row schema: ${JSON.stringify([...Value.Errors(websearchRow, row)].slice(0, 3))}`)
      }
      const kept = batch.slice(0, Math.max(0, cap - rows.length))
      rows.push(...kept)
      return kept.length
    },
    stage: (text: string) => { stages.push(text) },
    warn: (text: string) => { warnings.push(text) },
    summary: (data: Record<string, unknown>) => { summaries.push(data) },
    blocked: (reason: string): never => { throw new ToolBlockedError(reason) },
    artifact: async () => { throw new Error('the websearch plugin stores no artifacts') },
    scratchDir: async () => { throw new Error('the websearch plugin needs no scratch directory') },
    upload: null,
    state: options.state,
    rows,
    warnings,
    stages,
    summaries,
  }
  return ctx as unknown as FakeContext
}

export interface RecordedRequest { method: string, path: string, headers: IncomingMessage['headers'], body: string }

export type Route = (req: RecordedRequest, res: ServerResponse) => void

/** A node:http server on 127.0.0.1, port 0, closed in teardown; it records every request. */
export async function startServer (t: Teardown, route: Route): Promise<{ base: string, requests: RecordedRequest[] }> {
  const requests: RecordedRequest[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', chunk => chunks.push(chunk))
    req.on('end', () => {
      const recorded = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      requests.push(recorded)
      try { route(recorded, res) } catch (error) { res.statusCode = 500; res.end(String(error)) }
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => { server.closeAllConnections(); server.close(() => resolve()) }))
  const { port } = server.address() as AddressInfo
  return { base: `http://127.0.0.1:${port}`, requests }
}

export function send (res: ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...headers })
  res.end(body)
}
