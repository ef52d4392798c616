// Shared by the products, fbads, gads and adleads tests: local upstream servers
// on 127.0.0.1 (port 0) and job runs through the kernel with a per-test tools
// config (upstream URLs pointing at those servers) written to a temp dir.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { build, signup, tempDir, type TestUser } from '../../helpers/build.ts'
import { startJob, waitForEnd } from '../../helpers/jobs.ts'

interface Teardown { teardown (fn: () => unknown): void }

export interface RecordedRequest { method: string, path: string, url: URL, headers: IncomingMessage['headers'], body: string }
export type Route = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>

/** A node:http server on 127.0.0.1, port 0, closed in teardown; it records every request. */
export async function startServer (t: Teardown, route: Route): Promise<{ base: string, requests: RecordedRequest[] }> {
  const requests: RecordedRequest[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', chunk => chunks.push(chunk))
    req.on('end', () => {
      const recorded = { method: req.method ?? 'GET', path: req.url ?? '/', url: new URL(req.url ?? '/', 'http://127.0.0.1'), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      requests.push(recorded)
      Promise.resolve(route(recorded, res)).catch(error => { res.statusCode = 500; res.end(String(error)) })
    })
  })
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>(r => { server.closeAllConnections(); server.close(() => r()) }))
  const { port } = server.address() as AddressInfo
  return { base: `http://127.0.0.1:${port}`, requests }
}

export function send (res: ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...headers })
  res.end(body)
}
export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void =>
  send(res, status, JSON.stringify(body), 'application/json; charset=utf-8', headers)

export const PLUGINS = resolve('plugins')

export interface ToolEntry {
  key: string
  plugin: string | null
  enabled: boolean
  upstream?: Record<string, string>
  credentials?: Record<string, string>
  settings?: Record<string, unknown>
}

export interface JobHarness {
  app: FastifyInstance
  user: TestUser
  /** Starts a job, waits for its end, returns the status record and the rows. */
  run (tool: string, params: Record<string, unknown>, timeoutMs?: number): Promise<{ status: Record<string, any>, rows: Array<Record<string, any>>, started: number }>
  usage (): Promise<Record<string, any>>
}

/** A fresh app whose tools.config.json holds exactly `tools`, with private targets allowed. */
export async function jobHarness (t: Teardown, tools: ToolEntry[], env: Record<string, string | undefined> = {}): Promise<JobHarness> {
  const dir = tempDir(t, 'ejs-tools-')
  const configPath = join(dir, 'tools.config.json')
  writeFileSync(configPath, JSON.stringify({ tools, retired: [] }, null, 2))
  const app = await build(t, { env: { TOOLS_CONFIG: configPath, ALLOW_PRIVATE_TARGETS: '1', ...env } })
  return harnessFor(app, await signup(app))
}

/**
 * The same app under a fresh account: tests on the same tools config can share one app
 * (an app and its extraction worker boot per test was most of their time) and still keep
 * their charges, usage and jobs apart.
 */
export async function withFreshAccount (h: JobHarness): Promise<JobHarness> {
  return harnessFor(h.app, await signup(h.app))
}

function harnessFor (app: FastifyInstance, user: TestUser): JobHarness {
  return {
    app,
    user,
    async run (tool, params, timeoutMs = 30_000) {
      const res = await startJob(app, user.apiKey, params, tool)
      if (res.statusCode !== 202) return { status: { http: res.statusCode, ...res.json() }, rows: [], started: res.statusCode }
      const id = res.json().job_id
      const status = await waitForEnd(app, user.apiKey, id, timeoutMs)
      const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results ?? []
      return { status, rows, started: 202 }
    },
    async usage () {
      return (await app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': user.apiKey } })).json().usage
    },
  }
}
