// The one answer of the agent endpoint that is made without the SDK's
// per-request Server: a well-formed 2026-07-28 `tasks/get` of a task the caller
// can see. That is the poll a client repeats every pollIntervalMs for as long
// as a job runs, and through the SDK (a Server, a per-request transport,
// AbortControllers, a web Response, the JSON-RPC shape checked by zod several
// times) it cost about 0.3 ms of CPU more than the job-status read it wraps;
// the last poll, whose answer carries the tool result, is answered here too,
// because many clients' jobs tend to end together and those answers are the
// crowd's slowest (scripts/bench/README.md `mcp-tasks`).
//
// The rule is narrow on purpose: the SDK's own classifier decides that the
// request is a modern tasks/get (the same ladder its handler runs: envelope,
// header/body agreement), the standard headers are present and agree with the
// body exactly, the request names the tasks extension, and the job is read
// with the caller's own scope (jobs.status: one tenant never sees another's
// job); a completed task's result is the SDK handler's own (calls.taskResult).
// Anything else returns undefined and goes to the SDK, which answers or
// refuses as before. test/agent/mcp-task-poll.test.ts checks that both paths
// give the same answer.
import { classifyInboundRequest, isJsonContentType, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server'
import type { McpCaller, McpServerDeps } from './mcp-server.ts'
import { TASKS_EXTENSION, taskHandle, taskState } from './tasks.ts'

/** The revision this path answers (the only one with the tasks extension). */
const REVISION = '2026-07-28'
/** TaskParams in mcp-server.ts: what the SDK path accepts as a task id. */
const MAX_TASK_ID = 64

export interface TaskPollHeaders {
  contentType: string | undefined
  protocolVersion: string | undefined
  method: string | undefined
  name: string | undefined
}

/** The server identity the SDK stamps on every 2026-07-28 result (`_meta` serverInfo). */
export interface ServerIdentity { name: string, version: string, title: string }

/**
 * The JSON-RPC answer (as JSON text) the SDK would give a tasks/get, or
 * undefined when the request is anything else: the caller then hands it to
 * the SDK.
 */
export async function answerTaskPoll ({ jobs, calls }: Pick<McpServerDeps, 'jobs' | 'calls'>, server: ServerIdentity, who: McpCaller, headers: TaskPollHeaders, body: unknown): Promise<string | undefined> {
  if (!isJsonContentType(headers.contentType ?? null)) return undefined
  if (headers.protocolVersion !== REVISION || headers.method !== 'tasks/get' || headers.name === undefined) return undefined
  const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: headers.protocolVersion, mcpMethodHeader: headers.method, mcpNameHeader: headers.name, body })
  if (route.kind !== 'modern' || route.messageKind !== 'request' || route.classification.revision !== REVISION) return undefined
  const message = route.message as { id: string | number, method: string, params?: Record<string, unknown> }
  if (message.method !== 'tasks/get') return undefined
  const params = message.params ?? {}
  const taskId = params.taskId
  // Only the task id and the envelope: any other parameter is the SDK's to judge.
  if (Object.keys(params).some(key => key !== 'taskId' && key !== '_meta')) return undefined
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID || headers.name !== taskId) return undefined
  const meta = params._meta as Record<string, { extensions?: Record<string, unknown> } | undefined> | undefined
  if (!meta?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS_EXTENSION]) return undefined

  let job
  try {
    job = await jobs.status(who.caller, taskId)
  } catch {
    // Unknown to this caller (-32602 there) or a fault: the SDK path says which.
    return undefined
  }
  const result = taskState(job) === 'completed' ? await calls.taskResult(job, who) : undefined
  return JSON.stringify({ result: { ...taskHandle(job), ...(result && { result }), resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: server } }, jsonrpc: '2.0', id: message.id })
}
