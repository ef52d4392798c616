// One low-level MCP Server (SDK v2) per request, bound to the caller the HTTP
// layer resolved, for either era: the 2026-07-28 revision (each request
// carries its own metadata; long jobs as tasks through the
// io.modelcontextprotocol/tasks extension) and the 2025 revisions (stateless
// Streamable HTTP). Tools are served as plain JSON Schema from the agent
// catalog; the work is done by AgentToolCalls, the task state is the job's.
import {
  MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, ResourceNotFoundError, Server, specTypeSchemas,
  type CallToolResult, type ServerContext, type StandardSchemaV1Sync, type Tool, type Transport,
} from '@modelcontextprotocol/server'
import { Type } from 'typebox'
import type { FastifyBaseLogger } from 'fastify'
import type { AccountCaller } from '../auth/guards.ts'
import { isAppError } from '../errors.ts'
import type { JobService } from '../jobs/job-service.ts'
import type { JobStatusRecord } from '../jobs/job-view.ts'
import type { AgentCatalog } from './agent-catalog.ts'
import type { ServerInfo } from './guide.ts'
import { standardSchema } from './standard-schema.ts'
import { TASKS_EXTENSION, taskHandle, taskState } from './tasks.ts'
import { isTaskStarted, type AgentToolCalls } from './tool-calls.ts'
import { traceCarrier } from './trace-context.ts'

const GUIDE_URI = 'docs://guide'

export interface McpServerDeps {
  info: ServerInfo
  catalog: AgentCatalog
  calls: AgentToolCalls
  jobs: JobService
  guide: string
  instructions: string
}

/** Who a request is for and where it came in: what the HTTP layer resolved. */
export interface McpCaller {
  caller: AccountCaller
  log: FastifyBaseLogger
  /** `scheme://host[:port]` of the /mcp request: resource links are absolute on it. */
  origin: string
}

const TaskParams = standardSchema(Type.Object({ taskId: Type.String({ minLength: 1, maxLength: 64 }) }))
const TaskUpdateParams = standardSchema(Type.Object({
  taskId: Type.String({ minLength: 1, maxLength: 64 }),
  inputResponses: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}))

/** Whether this request's own client capabilities name the tasks extension (2026-07-28: capabilities travel with each request). */
function tasksNegotiated (ctx: ServerContext): boolean {
  const capabilities = (ctx.mcpReq.envelope as Record<string, { extensions?: Record<string, unknown> } | undefined> | undefined)?.['io.modelcontextprotocol/clientCapabilities']
  return Boolean(capabilities?.extensions?.[TASKS_EXTENSION])
}

function requireTasks (ctx: ServerContext, method: string): void {
  if (tasksNegotiated(ctx)) return
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${method} needs the ${TASKS_EXTENSION} extension in the request's client capabilities.`,
  )
}

/** The server's identity (initialize's serverInfo, and the `_meta` serverInfo of every 2026-07-28 result). */
export function serverIdentity (info: ServerInfo): { name: string, version: string, title: string } {
  return { name: info.name, version: info.version, title: 'Data-extraction jobs' }
}

export function createMcpServer (deps: McpServerDeps, who: McpCaller, era: 'legacy' | 'modern'): Server {
  const { catalog, calls, jobs } = deps
  const { caller, log, origin } = who
  const server = new Server(
    serverIdentity(deps.info),
    {
      capabilities: { tools: {}, prompts: {}, resources: {}, ...(era === 'modern' ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) },
      instructions: deps.instructions,
    },
  )

  server.setRequestHandler('tools/list', async () => ({ tools: catalog.listed() as Tool[] }))

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const tool = catalog.get(request.params.name)
    // A catalogue tool that is switched off or retired is a tool result saying so (REST answers 410), not an unknown name.
    const unavailableKey = tool ? undefined : catalog.unavailableKey(request.params.name)
    if (unavailableKey) return calls.notEnabled(request.params.name, unavailableKey)
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool '${request.params.name}'. Call tools/list, or find_tool with the job in plain English.`)
    const token = request.params._meta?.progressToken
    const progress = token === undefined
      ? undefined
      : (value: number, message: string) => ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: value, message } })
    const asTask = era === 'modern' && Boolean(tool.job) && tasksNegotiated(ctx)
    const trace = traceCarrier(ctx.mcpReq._meta as Record<string, unknown> | undefined)
    const answer = await calls.call(tool, request.params.arguments, { caller, signal: ctx.mcpReq.signal, progress, log, origin, asTask, trace })
    // A task: the job goes on whatever becomes of this request; the client polls tasks/get.
    if (isTaskStarted(answer)) return { resultType: 'task', ...taskHandle(answer.taskStarted) } as unknown as CallToolResult
    return answer
  })

  server.setRequestHandler('prompts/list', async () => ({
    prompts: catalog.prompts.map(p => ({ name: p.name, title: p.title, description: p.description, arguments: p.arguments })),
  }))

  server.setRequestHandler('prompts/get', async (request) => {
    const prompt = catalog.prompts.find(p => p.name === request.params.name)
    if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt '${request.params.name}'; prompts/list names them.`)
    const args = request.params.arguments ?? {}
    const missing = prompt.arguments.filter(a => a.required && !args[a.name]?.trim()).map(a => a.name)
    if (missing.length) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt '${prompt.name}' needs the argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`)
    return {
      description: prompt.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.render(args) } }],
    }
  })

  server.setRequestHandler('resources/list', async () => ({
    resources: [{ uri: GUIDE_URI, name: 'guide', title: 'Agent guide', description: 'How to use this server\'s tools: workflow, arguments, row fields, examples.', mimeType: 'text/markdown' }],
  }))

  // No templated resources: an empty list, not "method not found", as resources are a capability served here.
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }))

  server.setRequestHandler('resources/read', async (request) => {
    if (request.params.uri !== GUIDE_URI) throw new ResourceNotFoundError(request.params.uri, `No resource ${request.params.uri}; resources/list names them.`)
    return { contents: [{ uri: GUIDE_URI, mimeType: 'text/markdown', text: deps.guide }] }
  })

  if (era === 'modern') {
    /** The job behind a task id; an id the caller cannot see is unknown (-32602), as the extension wants. */
    const jobOf = async (taskId: string): Promise<JobStatusRecord> => {
      try {
        return await jobs.status(caller, taskId)
      } catch (err) {
        if (isAppError(err) && err.statusCode === 404) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task '${taskId}'.`)
        throw err
      }
    }

    server.setRequestHandler('tasks/get', { params: TaskParams }, async (params, ctx) => {
      requireTasks(ctx, 'tasks/get')
      const job = await jobOf(params.taskId)
      const state = taskState(job)
      if (state !== 'completed') return taskHandle(job)
      return { ...taskHandle(job), result: await calls.taskResult(job, { caller, origin }) }
    })

    server.setRequestHandler('tasks/cancel', { params: TaskParams }, async (params, ctx) => {
      requireTasks(ctx, 'tasks/cancel')
      const job = await jobOf(params.taskId)
      if (job.status === 'running') {
        // REST's cancel (refunded as there); a job that ended meanwhile answers 409, and the ack is the same.
        await jobs.cancel(caller, job.job_id).catch((err: unknown) => { if (!isAppError(err) || err.statusCode !== 409) throw err })
      }
      return {}
    })

    // No job asks its caller for input, so there is never a pending request to answer: the update is acknowledged.
    server.setRequestHandler('tasks/update', { params: TaskUpdateParams }, async (params, ctx) => {
      requireTasks(ctx, 'tasks/update')
      await jobOf(params.taskId)
      return {}
    })
  }

  // Whichever transport serves this server (a legacy stream or the SDK's per-request exchange),
  // params that do not fit their method are refused as the client's mistake first.
  const connect = server.connect.bind(server)
  server.connect = async (transport: Transport) => {
    await connect(transport)
    refuseInvalidParams(transport, era)
  }
  return server
}

/** The request schemas of the methods this server answers, by method. */
const REQUEST_SCHEMAS = new Map<string, StandardSchemaV1Sync<unknown>>([
  ['initialize', specTypeSchemas.InitializeRequest], ['ping', specTypeSchemas.PingRequest], ['tools/list', specTypeSchemas.ListToolsRequest],
  ['tools/call', specTypeSchemas.CallToolRequest], ['prompts/list', specTypeSchemas.ListPromptsRequest], ['prompts/get', specTypeSchemas.GetPromptRequest],
  ['resources/list', specTypeSchemas.ListResourcesRequest], ['resources/templates/list', specTypeSchemas.ListResourceTemplatesRequest],
  ['resources/read', specTypeSchemas.ReadResourceRequest],
])

/**
 * Answers a request whose params do not fit its method with -32602
 * Invalid params. The SDK checks params inside its handler wrapper and reports
 * a failure as -32603 Internal error carrying the raw validation dump: a
 * server fault, for what is the client's mistake. createMcpServer's `connect` applies it.
 */
function refuseInvalidParams (transport: Transport, era: 'legacy' | 'modern'): void {
  const deliver = transport.onmessage
  if (!deliver) return
  transport.onmessage = (message, extra) => {
    const request = message as { id?: string | number, method?: unknown }
    // 2026-07-28 has no initialize (each request carries what it set up): the SDK answers it 404 Method not found, whatever its params.
    const method = typeof request.method === 'string' && !(era === 'modern' && request.method === 'initialize') ? request.method : undefined
    const schema = request.id !== undefined && method !== undefined ? REQUEST_SCHEMAS.get(method) : undefined
    const checked = schema?.['~standard'].validate(message)
    if (!checked?.issues) return deliver(message, extra)
    const issue = checked.issues[0]
    const where = issue?.path?.length ? issue.path.map(p => String(typeof p === 'object' ? p.key : p)).join('.') : 'params'
    transport.send({ jsonrpc: '2.0', id: request.id!, error: { code: ProtocolErrorCode.InvalidParams, message: `Invalid params for ${request.method}: ${where}: ${issue?.message ?? 'does not match the method'}.` } })
      .catch(() => {})
  }
}
