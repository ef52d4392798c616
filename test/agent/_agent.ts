// Helpers for the agent endpoint tests: a listening app with the counter tool,
// and the SDK's own client connected to it over Streamable HTTP.
import type { FastifyInstance } from 'fastify'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { signup, type BuildTestOptions, type TestUser } from '../helpers/build.ts'
import { buildWithCounter } from '../helpers/jobs.ts'

interface Teardown { teardown (fn: () => unknown): void }

export interface AgentApp { app: FastifyInstance, base: string, user: TestUser }

/** An app with the counter tool, listening on a free loopback port, and one signed-up user. */
export async function listeningApp (t: Teardown & Parameters<typeof buildWithCounter>[0], options: BuildTestOptions = {}): Promise<AgentApp> {
  const app = await buildWithCounter(t, options)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('app is not listening on a port')
  return { app, base: `http://127.0.0.1:${address.port}`, user: await signup(app) }
}

/** The SDK client, initialized against /mcp with a Bearer token; closed in teardown. */
export async function connect (t: Teardown, base: string, token: string | undefined): Promise<Client> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers } })
  const client = new Client({ name: 'agent-test', version: '0.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  return client
}

/** A raw JSON-RPC POST to /mcp, for what the SDK client hides (status codes, Accept handling). */
export async function rawPost (base: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(new URL('/mcp', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  })
}

export const initializeRequest = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
}

export async function mintToken (app: FastifyInstance, apiKey: string, tools: string[]): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: { 'x-api-key': apiKey }, payload: { name: 'agent', tools } })
  if (res.statusCode !== 201) throw new Error(`mint failed: ${res.statusCode} ${res.body}`)
  return res.json().token
}

/** The JSON-RPC messages of an SSE body. */
export function sseMessages (body: string): Array<Record<string, any>> {
  return body.split(/\n\n/).flatMap(event => event.split('\n').filter(l => l.startsWith('data:')).map(l => l.slice(5).trim()).filter(Boolean).map(d => JSON.parse(d)))
}
