// One low-level MCP Server per request (stateless Streamable HTTP), bound to
// the caller the HTTP layer resolved. Tools are served as plain JSON Schema
// from the agent catalog; the work is done by AgentToolCalls.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, InitializeRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema,
  ListToolsRequestSchema, McpError, PingRequestSchema, ReadResourceRequestSchema, type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { FastifyBaseLogger } from 'fastify'
import type { AccountCaller } from '../auth/guards.ts'
import type { AgentCatalog } from './agent-catalog.ts'
import type { ServerInfo } from './guide.ts'
import type { AgentToolCalls } from './tool-calls.ts'

const GUIDE_URI = 'docs://guide'

/** MCP's code for an unknown resource (spec: Resources, Error Handling). */
const RESOURCE_NOT_FOUND = -32002

export interface McpServerDeps {
  info: ServerInfo
  catalog: AgentCatalog
  calls: AgentToolCalls
  guide: string
  instructions: string
}

export function createMcpServer (deps: McpServerDeps, caller: AccountCaller, log: FastifyBaseLogger, origin?: string): Server {
  const { catalog, calls } = deps
  const server = new Server(
    { name: deps.info.name, version: deps.info.version, title: 'Data-extraction jobs' },
    { capabilities: { tools: {}, prompts: {}, resources: {} }, instructions: deps.instructions },
  )

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: catalog.listed() as Tool[] }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = catalog.get(request.params.name)
    // A catalogue tool that is switched off or retired is a tool result saying so (REST answers 410), not an unknown name.
    const unavailableKey = tool ? undefined : catalog.unavailableKey(request.params.name)
    if (unavailableKey) return calls.notEnabled(request.params.name, unavailableKey)
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool '${request.params.name}'. Call tools/list, or find_tool with the job in plain English.`)
    const token = request.params._meta?.progressToken
    const progress = token === undefined
      ? undefined
      : (value: number, message: string) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: value, message } })
    return calls.call(tool, request.params.arguments, { caller, signal: extra.signal, progress, log, origin })
  })

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: catalog.prompts.map(p => ({ name: p.name, title: p.title, description: p.description, arguments: p.arguments })),
  }))

  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const prompt = catalog.prompts.find(p => p.name === request.params.name)
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt '${request.params.name}'; prompts/list names them.`)
    const args = request.params.arguments ?? {}
    const missing = prompt.arguments.filter(a => a.required && !args[a.name]?.trim()).map(a => a.name)
    if (missing.length) throw new McpError(ErrorCode.InvalidParams, `Prompt '${prompt.name}' needs the argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`)
    return {
      description: prompt.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.render(args) } }],
    }
  })

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: GUIDE_URI, name: 'guide', title: 'Agent guide', description: 'How to use this server\'s tools: workflow, arguments, row fields, examples.', mimeType: 'text/markdown' }],
  }))

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (request.params.uri !== GUIDE_URI) throw new McpError(RESOURCE_NOT_FOUND, `No resource ${request.params.uri}; resources/list names them.`)
    return { contents: [{ uri: GUIDE_URI, mimeType: 'text/markdown', text: deps.guide }] }
  })

  return server
}

/** The request schemas of the methods this server answers, by method. */
const REQUEST_SCHEMAS = new Map<string, { safeParse (value: unknown): { success: boolean, error?: { issues: Array<{ path: PropertyKey[], message: string }> } } }>([
  ['initialize', InitializeRequestSchema], ['ping', PingRequestSchema], ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema], ['prompts/list', ListPromptsRequestSchema], ['prompts/get', GetPromptRequestSchema],
  ['resources/list', ListResourcesRequestSchema], ['resources/read', ReadResourceRequestSchema],
])

/**
 * Answers a request whose params do not fit its method with -32602 Invalid params.
 * The SDK checks params inside its handler wrapper and reports a failure as
 * -32603 Internal error carrying the raw validation dump: a server fault, for
 * what is the client's mistake. Call after `server.connect(transport)`.
 */
export function refuseInvalidParams (transport: Transport): void {
  const deliver = transport.onmessage
  if (!deliver) return
  transport.onmessage = (message, extra) => {
    const request = message as { id?: string | number, method?: unknown }
    const schema = request.id !== undefined && typeof request.method === 'string' ? REQUEST_SCHEMAS.get(request.method) : undefined
    const checked = schema?.safeParse(message)
    if (!checked || checked.success) return deliver(message, extra)
    const issue = checked.error?.issues[0]
    const where = issue?.path.length ? issue.path.map(String).join('.') : 'params'
    transport.send({ jsonrpc: '2.0', id: request.id!, error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${request.method}: ${where}: ${issue?.message ?? 'does not match the method'}.` } })
      .catch(() => {})
  }
}
