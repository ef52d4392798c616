// The agent endpoint: POST /mcp (MCP over Streamable HTTP, stateless: a new
// Server per request, so any API process answers any request), and the
// unauthenticated discovery documents GET /mcp/docs.md and GET /mcp/manifest.json.
//
// One endpoint, two eras (SDK v2): a request that carries the 2026-07-28
// per-request envelope goes to the SDK's createMcpHandler (its header checks,
// server/discover, caching fields); anything else (initialize and the 2025
// revisions) to a web-standard Streamable HTTP transport in stateless mode,
// as before. Both take a Request built here and give back a Response that is
// sent through fastify, so the reply keeps fastify's logging and error
// handling and needs no hijack.
import { qualityValues } from '../accept-header.ts'
import { routeDefaults } from '../route-defaults.ts'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { requireAccount } from '../auth/guards.ts'
import { countRequests } from '../auth/auth-plugin.ts'
import { Type } from 'typebox'
import { Nullable } from '../tools/contract.ts'
import { AppError } from '../errors.ts'
import { AgentCatalog } from './agent-catalog.ts'
import { ToolAnnotationsSchema } from './schemas.ts'
import { agentInstructions, renderGuide, type ServerInfo } from './guide.ts'
import type { McpCaller, McpServerDeps } from './mcp-server.ts'
import type { ServerIdentity } from './task-poll.ts'
import { AgentToolCalls } from './tool-calls.ts'
import { SERVICE_ROOT } from '../code-location.ts'

const PACKAGE = JSON.parse(readFileSync(join(SERVICE_ROOT, 'package.json'), 'utf8')) as { name: string, version: string }

// MCP clients look for a Bearer challenge on a 401 (the auth hook adds it, see authChallenge).
const BEARER_CHALLENGE = { wwwAuthenticate: 'Bearer realm="mcp"', detail: 'Missing or invalid access token: send Authorization: Bearer <your sk- key or scp- token>.' }

/**
 * Which answer the client asked for. An explicit text/event-stream at least as
 * preferred as JSON gets the stream (the SDK clients send both, and only the
 * stream can carry progress notifications); otherwise JSON, when acceptable.
 */
function responseMode (accept: string | undefined): 'json' | 'sse' | null {
  if (!accept || !accept.trim()) return 'json'
  const weights = qualityValues(accept)
  const sse = weights.get('text/event-stream')
  const wildcards = [weights.get('application/*'), weights.get('*/*')].filter(w => w !== undefined)
  const json = weights.get('application/json') ?? (wildcards.length ? Math.max(...wildcards) : 0)
  if (sse !== undefined && sse > 0 && sse >= json) return 'sse'
  if (json > 0) return 'json'
  return null
}

/**
 * Sends the SDK's web Response through fastify. A JSON answer is read whole and
 * sent as one string (a content-length and one write): handing fastify the
 * Response itself streams its body as chunked transfer encoding, a write per
 * chunk and one more for the end, which cost a tasks/get poll more CPU than
 * all the rest of the request (profiled, scripts/bench/README.md `mcp-tasks`).
 * An event stream is streamed as it comes.
 */
async function sendWebResponse (reply: FastifyReply, response: Response): Promise<FastifyReply> {
  if (response.body === null || !/^\s*application\/json\b/i.test(response.headers.get('content-type') ?? '')) return reply.send(response)
  reply.code(response.status)
  for (const [name, value] of response.headers) reply.header(name, value)
  return reply.send(await response.text())
}

/** The `_meta` key whose presence is a request's claim to a per-request revision (the SDK's PROTOCOL_VERSION_META_KEY). */
const ENVELOPE_CLAIM = 'io.modelcontextprotocol/protocolVersion'

/**
 * Whether the SDK's own classification (`isLegacyRequest`) is certain to send
 * this body to the 2026-07-28 handler: one JSON-RPC message, not `initialize`,
 * whose params carry the envelope claim. The SDK routes every such message to
 * its modern path (served there, or refused there when its envelope or headers
 * are wrong), so asking it first would only classify the body twice; anything
 * else is asked.
 */
function claimsPerRequestEnvelope (body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false
  const { method, params } = body as { method?: unknown, params?: unknown }
  if (typeof method !== 'string' || method === 'initialize' || params === null || typeof params !== 'object' || Array.isArray(params)) return false
  const meta = (params as { _meta?: unknown })._meta
  return meta !== null && typeof meta === 'object' && !Array.isArray(meta) && ENVELOPE_CLAIM in meta
}

/** The revision whose requests each carry their own version and capabilities (createMcpHandler); the SDK's list holds the `initialize` ones. */
const PER_REQUEST_REVISION = '2026-07-28'

/** /mcp/manifest.json: each tool's REST key, agent schema, renames and fixed params (agent-catalog.ts manifestTools). */
const ManifestAnswer = Type.Object({
  name: Type.String(),
  version: Type.String(),
  protocol_versions: Type.Array(Type.String(), { description: 'The MCP revisions /mcp serves, newest first (the SDK\'s own list).' }),
  tools: Type.Array(Type.Object({
    name: Type.String(),
    rest_key: Nullable(Type.String(), { description: 'The REST tool key; null for a helper (jobs, results, usage) that is no tool.' }),
    description: Type.String(),
    renames: Type.Record(Type.String(), Type.String(), { description: 'Agent argument → REST param.' }),
    fixed_params: Type.Record(Type.String(), Type.Unknown()),
    inputSchema: Type.Object({}, { additionalProperties: true }),
    outputSchema: Type.Object({}, { additionalProperties: true }),
    annotations: ToolAnnotationsSchema,
  })),
})

export default async function agentRoutes (app: FastifyInstance): Promise<void> {
  routeDefaults(app, { tag: 'Agent', auth: 'none' })
  const { registry, jobs, rateLimiter, config } = app.services
  const info: ServerInfo = { name: PACKAGE.name, version: PACKAGE.version }
  // The catalog is built (and checked: reserved names, prompts) at boot; what is
  // derived from it, the guide, the manifest and the MCP server's parts, is made
  // with the first request that needs it, off the start.
  const catalog = new AgentCatalog(registry)
  let guide: string | undefined
  const guideText = () => (guide ??= renderGuide(catalog, info))
  let deps: McpServerDeps | undefined
  const mcpDeps = (): McpServerDeps => (deps ??= {
    info, catalog, jobs, calls: new AgentToolCalls({ catalog, registry, jobs, monitors: app.services.monitors }), guide: guideText(), instructions: agentInstructions(catalog),
  })
  // The 2026-07-28 handlers (one per response mode), made with the first request of that era.
  const modernHandlers = new Map<'json' | 'auto', Promise<{ fetch (request: Request, options?: { parsedBody?: unknown, authInfo?: { token: string, clientId: string, scopes: string[], extra?: Record<string, unknown> } }): Promise<Response> }>>()
  const modernHandler = (mode: 'json' | 'auto') => {
    let handler = modernHandlers.get(mode)
    if (!handler) {
      handler = Promise.all([import('./mcp-server.ts'), import('@modelcontextprotocol/server')]).then(([{ createMcpServer }, { createMcpHandler }]) =>
        createMcpHandler(ctx => createMcpServer(mcpDeps(), ctx.authInfo?.extra?.who as McpCaller, 'modern'), {
          legacy: 'reject',
          responseMode: mode,
          onerror: (err) => app.log.debug({ err }, 'mcp request refused'),
        }))
      modernHandlers.set(mode, handler)
    }
    return handler
  }
  let identity: ServerIdentity | undefined
  let manifest: { name: string, version: string, protocol_versions: string[], tools: ReturnType<AgentCatalog['manifestTools']> } | undefined
  const manifestAnswer = async () => (manifest ??= {
    name: info.name,
    version: info.version,
    protocol_versions: [PER_REQUEST_REVISION, ...(await import('@modelcontextprotocol/server')).SUPPORTED_PROTOCOL_VERSIONS],
    tools: catalog.manifestTools(),
  })

  app.post('/mcp', {
    config: {
      auth: 'account',
      authChallenge: BEARER_CHALLENGE,
      responses: { 200: { content: { 'application/json': { schema: { type: 'object', description: 'JSON-RPC 2.0 response.' } }, 'text/event-stream': { schema: { type: 'string', description: 'Server-sent events carrying JSON-RPC messages.' } } } } },
    },
  }, async (req, reply) => {
    const caller = requireAccount(req.principal, { scoped: true })
    // A JSON-RPC batch is as many calls as it has messages: the request was counted
    // once on arrival, the rest of the batch is counted here (all or nothing: 429).
    if (Array.isArray(req.body) && req.body.length > 1) await countRequests(rateLimiter, config, req, req.body.length - 1)
    const mode = responseMode(req.headers.accept)
    if (!mode) throw new AppError(406, 'The agent endpoint answers application/json or text/event-stream; accept one of them.')

    // The name the client used for /mcp: resource links to job files are absolute URLs on it.
    const who: McpCaller = { caller, log: req.log, origin: `${req.protocol}://${req.host}` }
    const modern = claimsPerRequestEnvelope(req.body)
    if (modern) {
      // The poll a task's client repeats while its job runs, and its last, is answered without a per-request SDK Server (task-poll.ts); any other request, or a poll that path declines, goes on to the SDK.
      const { answerTaskPoll } = await import('./task-poll.ts')
      const single = (name: string) => { const value = req.headers[name]; return typeof value === 'string' ? value : undefined }
      identity ??= (await import('./mcp-server.ts')).serverIdentity(info)
      const answer = await answerTaskPoll(mcpDeps(), identity, who, {
        contentType: single('content-type'), protocolVersion: single('mcp-protocol-version'), method: single('mcp-method'), name: single('mcp-name'),
      }, req.body)
      if (answer !== undefined) return reply.type('application/json').send(answer)
    }
    // The MCP SDK loads with the first agent call: processes nobody talks MCP to stay smaller.
    const { isLegacyRequest } = await import('@modelcontextprotocol/server')
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name === 'authorization' || name === 'cookie' || name === 'x-api-key') continue
      // A value WHATWG Headers refuses (Node is laxer) is left out: the SDK then judges the request without it.
      try { headers.set(name, Array.isArray(value) ? value.join(', ') : value) } catch { continue }
    }
    const request = new Request('http://localhost/mcp', { method: 'POST', headers })
    if (modern || !(await isLegacyRequest(request, req.body))) {
      // 2026-07-28: every request stands alone (its version, capabilities and client in _meta, Mcp-Method/Mcp-Name headers checked by the SDK).
      const handler = await modernHandler(mode === 'json' ? 'json' : 'auto')
      const response = await handler.fetch(request, { parsedBody: req.body, authInfo: { token: 'http', clientId: caller.account.id, scopes: [], extra: { who } } })
      return sendWebResponse(reply, response)
    }

    const [{ createMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
      import('./mcp-server.ts'),
      import('@modelcontextprotocol/server'),
    ])
    const server = createMcpServer(mcpDeps(), who, 'legacy')
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: mode === 'json' })
    transport.onerror = (err) => req.log.debug({ err }, 'mcp transport error')
    await server.connect(transport)
    // Closing aborts handlers still waiting on a job (the job itself goes on).
    reply.raw.on('close', () => { server.close().catch(() => {}) })

    const legacyHeaders = new Headers({ accept: 'application/json, text/event-stream', 'content-type': 'application/json' })
    const version = req.headers['mcp-protocol-version']
    if (typeof version === 'string') legacyHeaders.set('mcp-protocol-version', version)
    const response = await transport.handleRequest(new Request('http://localhost/mcp', { method: 'POST', headers: legacyHeaders }), { parsedBody: req.body })
    return sendWebResponse(reply, response)
  })

  // Stateless: there is no session to stream to or end.
  const notAllowed = async (_req: unknown, reply: { code (n: number): unknown, header (k: string, v: string): unknown }) => {
    reply.header('allow', 'POST')
    reply.code(405)
    return { detail: 'This MCP endpoint is stateless: send JSON-RPC messages with POST /mcp; there is no session to open or close.' }
  }
  const notAllowedRoute = { config: { responses: { 405: Type.Object({ detail: Type.String() }) } } }
  app.get('/mcp', notAllowedRoute, notAllowed)
  app.delete('/mcp', notAllowedRoute, notAllowed)

  app.get('/mcp/docs.md', { config: { auth: 'none', responses: { 200: { content: { 'text/markdown': { schema: { type: 'string' } } } } } } }, async (_req, reply) => {
    reply.type('text/markdown; charset=utf-8')
    return guideText()
  })

  app.get('/mcp/manifest.json', { config: { auth: 'none', responses: { 200: ManifestAnswer } } }, async () => manifestAnswer())
}
