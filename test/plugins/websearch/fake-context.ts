// websearch's use of the shared fake ToolContext kit (test/helpers/tool-context.ts):
// the tool's credential variable names, and the recorders on the context itself
// (ctx.rows, ctx.warnings, ctx.stages, ctx.summaries, ctx.http.requests), which
// these tests read. Plus the local fixture server they share.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { websearchInput, WebsearchInput, WebsearchRow } from '../../../plugins/websearch/schema.ts'
import type { Static } from '../../../core/tools/contract.ts'
import type { WebsearchContext } from '../../../plugins/websearch/run.ts'
import websearch from '../../../plugins/websearch/index.ts'
import { loopbackHttp, toolContext } from '../../helpers/tool-context.ts'

export { loopbackHttp }

interface Teardown { teardown (fn: () => unknown): void }

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

export function fakeContext (input: Static<typeof websearchInput>, options: FakeContextOptions = {}): FakeContext {
  const run = toolContext<WebsearchRow, WebsearchInput>(websearch, input, {
    urls: options.urls,
    credentials: options.credentials,
    credentialNames: CREDENTIAL_NAMES,
    // Without one, the kit makes the declaration's createState, as the kernel does once per app.
    ...(options.state === undefined ? {} : { state: options.state }),
    cap: options.cap ?? 1000,
    settings: options.settings,
  })
  return Object.assign(run.ctx, { rows: run.rows, warnings: run.warnings, stages: run.stages, summaries: run.summaries }) as unknown as FakeContext
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
