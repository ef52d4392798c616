// Issue 11: credentials never leave the server. Fake upstreams fail in ways
// that carry the configured keys (a reset connection on a URL with `api_key=`,
// garbage echoing the request, a provider error quoting the key), and no
// configured value may then appear in what a client, a webhook receiver or the
// log sees: the status record, results, GET /api/search/status (guest token),
// WebSocket messages, the MCP tool result and progress, the webhook body, any
// log line.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { build, signup, tempDir, PUBLIC_TOKEN, ADMIN_KEY, BLOG_KEY } from '../helpers/build.ts'
import { waitForEnd } from '../helpers/jobs.ts'
import { connect } from '../agent/_agent.ts'
import { send, startServer } from '../plugins/websearch/fake-context.ts'
import { openSocket, type OpenedSocket } from '../helpers/socket.ts'

type Teardown = Parameters<typeof tempDir>[0]
type Msg = Record<string, any>

const WEBSEARCH_KEYS = {
  SERPER_API_KEY: 'serper-November-1164',
  SERPAPI_API_KEY: 'serpapi-Kilo/7731+x',
  GOOGLE_CSE_API_KEY: 'cse-Lima-8842==',
  GOOGLE_CSE_ID: 'cx-Mike:9953',
}
const LEAKY_KEY = 'leaky-Zulu/42+key=='
const KERNEL_SECRETS = [ADMIN_KEY, BLOG_KEY, PUBLIC_TOKEN, 'test-secret-key-0123456789']

/** Every form a value may take in text: raw, percent-encoded, form-encoded, JSON-escaped. */
const formsOf = (value: string) => [...new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), JSON.stringify(value).slice(1, -1)])]

function assertClean (t: Teardown & { notOk: (v: unknown, m: string) => void }, where: string, text: string, values: string[]): void {
  for (const value of values) for (const form of formsOf(value)) t.notOk(text.includes(form), `${where}: no ${form.slice(0, 9)}…`)
}

/** A local receiver that records every webhook body. */
async function webhookReceiver (t: Teardown): Promise<{ url: string, bodies: string[] }> {
  const bodies: string[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', c => { body += c })
    req.on('end', () => { bodies.push(body); res.end('ok') })
  })
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>(r => { server.closeAllConnections(); server.close(() => r()) }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies }
}

async function collect (socket: OpenedSocket): Promise<Msg[]> {
  await socket.closed
  return socket.messages
}

async function until (check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check() && Date.now() < deadline) await new Promise(r => setTimeout(r, 20))
}

function writeToolsConfig (t: Teardown, entry: Record<string, unknown>): string {
  const path = join(tempDir(t, 'secrets-config-'), 'tools.config.json')
  writeFileSync(path, JSON.stringify({ tools: [entry], retired: [] }, null, 2))
  return path
}

async function listen (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

t.test('websearch: failing upstreams that carry the keys leak them nowhere', async t => {
  // Each provider fails its own way; every scraped engine's connection is reset.
  const upstream = await startServer(t, (req, res) => {
    const slow = (fn: () => void) => setTimeout(fn, 30)
    if (req.path.startsWith('/search.json')) return slow(() => res.socket?.destroy())
    if (req.path.startsWith('/customsearch/v1')) return slow(() => send(res, 200, `<html>garbage for ${req.path}</html>`))
    if (req.path === '/search' && req.method === 'POST') {
      return slow(() => send(res, 401, JSON.stringify({ message: `Invalid API key ${req.headers['x-api-key']} for ${req.path}`, statusCode: 401 }), 'application/json'))
    }
    slow(() => res.socket?.destroy())
  })
  const entry = JSON.parse(readFileSync(resolve('tools.config.json'), 'utf8')).tools.find((e: { key: string }) => e.key === 'websearch')
  entry.upstream = Object.fromEntries(['duckduckgo_html', 'duckduckgo_lite', 'brave', 'mojeek', 'bing', 'yahoo', 'google', 'serper', 'serpapi', 'google_cse'].map(n => [n, upstream.base]))
  const logLines: string[] = []
  const app = await build(t, { logLines, env: { TOOLS_CONFIG: writeToolsConfig(t, entry), ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_RETRY_BASE_MS: '20', ...WEBSEARCH_KEYS } })
  const base = await listen(app)
  const user = await signup(app)
  const hook = await webhookReceiver(t)
  const values = [...Object.values(WEBSEARCH_KEYS), ...KERNEL_SECRETS]

  // REST, with a webhook and a WebSocket watching.
  const start = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'websearch', params: { query: 'acme widgets' }, webhook: { url: hook.url } } })
  t.equal(start.statusCode, 202, start.body)
  const id = start.json().job_id as string
  const ws = await openSocket(app, `/api/tool-run/${id}/ws`, { headers: { 'x-api-key': user.apiKey } })
  const messages = await collect(ws)
  const status = await waitForEnd(app, user.apiKey, id, 30_000)
  t.match(status, { status: 'error', blocked: false, refunded: true })
  t.match(status.error, /^The upstream failed: Every search engine failed: serper: HTTP 401.*serpapi: request failed: connection reset; google_cse: unreadable answer/)
  t.notMatch(status.error, /https?:\/\/\S*\?/, 'no upstream URL with a query string')
  t.match(status.error, /\[redacted\]/, 'the key Serper quoted back was replaced')
  assertClean(t, 'status', JSON.stringify(status), values)
  t.ok(messages.length >= 1, `${messages.length} WebSocket messages`)
  t.equal(messages.at(-1)?.type, 'error')
  assertClean(t, 'WebSocket', JSON.stringify(messages), values)
  const results = await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })
  assertClean(t, 'results', results.body, values)
  await until(() => hook.bodies.length > 0)
  t.equal(hook.bodies.length, 1, 'the webhook arrived')
  assertClean(t, 'webhook', hook.bodies.join('\n'), values)

  // The shared engine health, read with a guest token.
  const searchStatus = await app.inject({ url: '/api/search/status', headers: { 'x-api-key': PUBLIC_TOKEN } })
  t.equal(searchStatus.statusCode, 200)
  const health = searchStatus.json().engine_health
  t.match(health.serpapi, { kind: 'error', reason: 'request failed: connection reset' })
  t.match(health.serper, { kind: 'error', reason: /HTTP 401.*\[redacted\]/ })
  assertClean(t, '/api/search/status', searchStatus.body, values)

  // The agent endpoint: progress notifications and the tool result.
  const client = await connect(t, base, user.apiKey)
  const progress: string[] = []
  const result = await client.callTool({ name: 'web_search', arguments: { query: 'acme gadgets', engine: 'serpapi' } }, undefined, {
    onprogress: p => { progress.push(p.message ?? '') },
  }) as CallToolResult
  t.equal(result.isError, true)
  t.match(JSON.stringify(result.content), /serpapi: request failed: connection reset/)
  t.ok(progress.length >= 1, `${progress.length} progress notifications`)
  assertClean(t, 'MCP result', JSON.stringify(result), values)
  assertClean(t, 'MCP progress', progress.join('\n'), values)

  await app.close()
  // Enough lines that the check below means something (one access line per request, the job's lines).
  t.ok(logLines.length > 5, `${logLines.length} log lines`)
  assertClean(t, 'logs', logLines.join(''), values)
})

t.test('the kernel scrubs a careless plugin: stage, warning, summary, rows, error, webhook, logs', async t => {
  const upstream = await startServer(t, (_req, res) => { setTimeout(() => res.socket?.destroy(), 30) })
  const logLines: string[] = []
  const tools = writeToolsConfig(t, { key: 'leaky', plugin: resolve('test/fixtures/plugins/leaky'), enabled: true, upstream: { api: upstream.base }, credentials: { api: 'LEAKY_API_KEY' } })
  const app = await build(t, { logLines, env: { TOOLS_CONFIG: tools, ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_RETRY_BASE_MS: '20', LEAKY_API_KEY: LEAKY_KEY } })
  const user = await signup(app)
  const hook = await webhookReceiver(t)
  const values = [LEAKY_KEY, ...KERNEL_SECRETS]

  for (const outcome of ['upstream', 'blocked', 'crash'] as const) {
    const start = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'leaky', params: { outcome }, webhook: { url: hook.url } } })
    t.equal(start.statusCode, 202, start.body)
    const id = start.json().job_id as string
    const ws = await openSocket(app, `/api/tool-run/${id}/ws`, { headers: { 'x-api-key': user.apiKey } })
    const messages = await collect(ws)
    const status = await waitForEnd(app, user.apiKey, id)
    t.equal(status.status, 'error', outcome)
    t.notMatch(status.error, /\?q=acme/, `${outcome}: the error names no request parameters`)
    if (outcome === 'upstream') t.match(status.error, /^The upstream failed: Could not fetch http:\/\/127\.0\.0\.1:\d+\/v1\/lookup: .*\(key \[redacted\]\)$/)
    if (outcome === 'blocked') t.match(status.error, /^The source refused the request: http:\/\/127\.0\.0\.1:\d+\/v1\/lookup refused with key \[redacted\]$/)
    t.match(status.warning, /api_key=\[redacted\]/, `${outcome}: the warning keeps its shape`)
    t.match(status.summary, { upstream: /api_key=\[redacted\]$/, nested: { note: 'key [redacted]' } })
    assertClean(t, `${outcome} status`, JSON.stringify(status), values)
    assertClean(t, `${outcome} WebSocket`, JSON.stringify(messages), values)
    t.ok(messages.some(m => m.type === 'progress' && /calling .*api_key=\[redacted\]/.test(m.stage)), `${outcome}: the stage arrived, scrubbed`)
    const results = await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })
    const row = results.json().results[0]
    t.equal(row.note, "the key is [redacted]; a caller's own link https://example.com/?token=callers-own-token", `${outcome}: rows lose only this server's values`)
    assertClean(t, `${outcome} results`, results.body, values)
  }
  await until(() => hook.bodies.length >= 3)
  t.equal(hook.bodies.length, 3)
  assertClean(t, 'webhooks', hook.bodies.join('\n'), values)
  await app.close()
  const log = logLines.join('')
  t.match(log, /upstream call failed/, 'the plugin\'s own log line is there')
  t.match(log, /tool run failed/, 'the crash was logged')
  assertClean(t, 'logs', log, values)
})

t.test('webhook failures are logged with the target\'s origin only', async t => {
  const logLines: string[] = []
  const failing = await startServer(t, (_req, res) => send(res, 500, 'no'))
  const app = await build(t, { logLines, env: { TOOLS_CONFIG: resolve('test/fixtures/tools.test.config.json'), ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_RETRY_BASE_MS: '5' } })
  const user = await signup(app)
  const targets = [
    `${failing.base}/hooks/T0/B0/path-token-Oscar?token=query-token-Papa`,
    'http://127.0.0.1:1/hooks/T1/B1/path-token-Quebec?sig=query-token-Romeo',
  ]
  for (const url of targets) {
    const start = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'counter', params: { max_results: 1 }, webhook: { url } } })
    t.equal(start.statusCode, 202, start.body)
    await waitForEnd(app, user.apiKey, start.json().job_id)
  }
  await until(() => logLines.filter(l => l.includes('webhook')).length >= 10)
  await app.close()
  const lines = logLines.filter(l => l.includes('webhook attempt failed'))
  t.ok(lines.some(l => l.includes('"httpStatus":500') && l.includes(`"webhook":"${failing.base}"`)), 'an error answer names the origin')
  t.ok(lines.some(l => l.includes('"webhook":"http://127.0.0.1:1"')), 'a failed delivery names the origin')
  const log = logLines.join('')
  for (const s of ['path-token-Oscar', 'query-token-Papa', 'path-token-Quebec', 'query-token-Romeo', '/hooks/T']) t.notOk(log.includes(s), `not logged: ${s}`)
})
