// What a tools/call does, independent of the protocol: a job tool starts the
// same job as REST (same validation, scope check and quota charge), then either
// hands the job back as a task (a client that negotiated tasks) or waits up to
// wait_seconds and returns the rows or the job_id to poll; the helper tools
// rank tools and read jobs. Every refusal comes back as an isError result
// whose text is safe to show (the catalogue's {detail}), never a stack.
import { Compile, type Validator } from 'typebox/compile'
import { Value } from 'typebox/value'
import type { TSchema } from 'typebox'
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/server'
import type { FastifyBaseLogger } from 'fastify'
import { artifactUrl } from '../artifacts/artifact-service.ts'
import type { AccountCaller } from '../auth/guards.ts'
import { badRequest, describeValidation, isAppError } from '../errors.ts'
import type { JobService } from '../jobs/job-service.ts'
import type { JobStatusRecord } from '../jobs/job-view.ts'
import type { AgentTool, ToolRegistry } from '../tools/registry.ts'
import type { MonitorInput, MonitorService } from '../monitors/monitor-service.ts'
import type { AdvertisedTool, AgentCatalog, MonitorToolName } from './agent-catalog.ts'
import {
  CreateMonitorArgs, FindToolArgs, INLINE_ROWS, JobResultsArgs, JobStatusArgs, MAX_RESULT_BYTES_DEFAULT, MAX_RESULT_BYTES_MAX, MAX_RESULT_BYTES_MIN,
  MonitorChangesArgs, MonitorIdArgs, RunMonitorArgs, UpdateMonitorArgs, WAIT_SECONDS_DEFAULT, WAIT_SECONDS_MAX,
} from './schemas.ts'
import { withTraceContext, type TraceCarrier } from './trace-context.ts'

export interface CallContext {
  caller: AccountCaller
  /** Aborted when the client goes away: stop waiting (the job itself goes on). */
  signal: AbortSignal
  /** Sends an MCP progress notification; present only when the client gave a progress token. */
  progress?: (progress: number, message: string) => Promise<void>
  log: FastifyBaseLogger
  /**
   * `scheme://host[:port]` the client reached /mcp by: a resource_link's `uri` must be
   * absolute (rows keep paths, like status_url); unset, the links are paths.
   */
  origin?: string
  /**
   * Run the job as a task: start it and answer at once with its status (the
   * caller makes the task handle of it); the client polls tasks/get.
   */
  asTask?: boolean
  /** W3C trace context from the request's `_meta` (traceparent, tracestate): the job starts inside it. */
  trace?: TraceCarrier
}

/** A job tool call run as a task: the job's status when it was started. */
export interface TaskStarted { taskStarted: JobStatusRecord }

export const isTaskStarted = (answer: CallToolResult | TaskStarted): answer is TaskStarted => 'taskStarted' in answer

type Args = Record<string, unknown>

const text = (value: string) => ({ type: 'text' as const, text: value })
const failure = (message: string, structuredContent?: Record<string, unknown>): CallToolResult =>
  ({ isError: true, content: [text(message)], ...(structuredContent ? { structuredContent } : {}) })

/** Validated helper arguments with defaults applied. */
class ArgsParser<T> {
  private readonly check: Validator
  constructor (private readonly schema: TSchema) { this.check = Compile(schema) }
  parse (args: Args): T {
    const value = Value.Default(this.schema, structuredClone(args))
    if (!this.check.Check(value)) throw badRequest(describeValidation('arguments', [...this.check.Errors(value)] as never))
    return value as T
  }
}

/** wait_seconds: taken out of the arguments; clamped to 0…60 (never an error), anything but a number refused. */
function takeWaitSeconds (args: Args, fallback: number): number {
  const raw = args.wait_seconds
  delete args.wait_seconds
  if (raw === undefined || raw === null) return fallback
  if (typeof raw !== 'number' || !Number.isFinite(raw)) throw badRequest('arguments.wait_seconds must be a number of seconds (0 to 60).')
  return Math.min(WAIT_SECONDS_MAX, Math.max(0, raw))
}

/** max_result_bytes: taken out of the arguments; clamped to its bounds, anything but a number refused. */
function takeMaxResultBytes (args: Args): number {
  const raw = args.max_result_bytes
  delete args.max_result_bytes
  if (raw === undefined || raw === null) return MAX_RESULT_BYTES_DEFAULT
  if (typeof raw !== 'number' || !Number.isFinite(raw)) throw badRequest(`arguments.max_result_bytes must be a number of bytes (${MAX_RESULT_BYTES_MIN} to ${MAX_RESULT_BYTES_MAX}).`)
  return Math.min(MAX_RESULT_BYTES_MAX, Math.max(MAX_RESULT_BYTES_MIN, Math.floor(raw)))
}

/**
 * The leading rows whose JSON fits the byte budget (at least none; a first row
 * over the budget is left for get_job_results, which pages by count).
 */
function rowsWithin (rows: Array<Record<string, unknown>>, maxBytes: number): Array<Record<string, unknown>> {
  let used = 2 // the brackets
  let kept = 0
  for (const row of rows) {
    const size = Buffer.byteLength(JSON.stringify(row)) + (kept ? 1 : 0)
    if (used + size > maxBytes) break
    used += size
    kept++
  }
  return kept === rows.length ? rows : rows.slice(0, kept)
}

/** The REST-worded validation detail ("params.max_results …") in the agent's argument names. */
function inAgentTerms (detail: string, tool: AgentTool): string {
  const restToAgent = Object.fromEntries(Object.entries(tool.renames).map(([agent, rest]) => [rest, agent]))
  return detail
    .replace(/\bparams\.([A-Za-z0-9_]+)/g, (_m, name: string) => `arguments.${restToAgent[name] ?? name}`)
    .replace(/^params\b/, 'arguments')
}

/** Waits for the job to end, giving up early when the client goes away. */
async function waitForJob (jobs: JobService, caller: AccountCaller, jobId: string, windowMs: number, signal: AbortSignal,
  onProgress?: (records: number, stage: string) => void): Promise<JobStatusRecord | null> {
  if (windowMs <= 0 || signal.aborted) return null
  let stop = () => {}
  const aborted = new Promise<null>((resolve) => {
    stop = () => resolve(null)
    signal.addEventListener('abort', stop, { once: true })
  })
  try {
    return await Promise.race([jobs.waitFor(caller, jobId, windowMs, onProgress), aborted])
  } finally {
    signal.removeEventListener('abort', stop)
  }
}

/** At most this many files are linked in one result (a frames job can store hundreds; the rows page bounds it anyway). */
const MAX_RESOURCE_LINKS = 100

const pollHint = (jobId: string) =>
  `Call get_job_status {"job_id": "${jobId}", "wait_seconds": 25} until status is done, then get_job_results {"job_id": "${jobId}"}.`

export class AgentToolCalls {
  private readonly findToolArgs = new ArgsParser<{ task: string, limit: number }>(FindToolArgs)
  private readonly statusArgs = new ArgsParser<{ job_id: string }>(JobStatusArgs)
  private readonly resultsArgs = new ArgsParser<{ job_id: string, offset: number, limit: number, max_result_bytes: number }>(JobResultsArgs)

  private readonly createMonitorArgs = new ArgsParser<MonitorInput & { params: Args }>(CreateMonitorArgs)
  private readonly monitorIdArgs = new ArgsParser<{ monitor_id: string }>(MonitorIdArgs)
  private readonly updateMonitorArgs = new ArgsParser<Partial<MonitorInput> & { monitor_id: string }>(UpdateMonitorArgs)
  private readonly runMonitorArgs = new ArgsParser<{ monitor_id: string, wait_seconds: number, max_result_bytes: number }>(RunMonitorArgs)
  private readonly changesArgs = new ArgsParser<{ monitor_id: string, run?: string, limit: number }>(MonitorChangesArgs)

  constructor (private readonly deps: { catalog: AgentCatalog, registry: ToolRegistry, jobs: JobService, monitors: MonitorService }) {}

  async call (tool: AdvertisedTool, rawArgs: unknown, ctx: CallContext): Promise<CallToolResult | TaskStarted> {
    try {
      if (rawArgs !== undefined && (rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs))) throw badRequest('arguments must be an object.')
      const args: Args = { ...(rawArgs as Args | undefined) }
      if (tool.job) return await this.runJobTool(tool.job, args, ctx)
      switch (tool.helper) {
        case 'find_tool': return this.findTool(args)
        case 'get_job_status': return await this.jobStatus(args, ctx)
        case 'get_job_results': return await this.jobResults(args, ctx)
        case undefined: break
        default: return await this.monitorTool(tool.helper, args, ctx)
      }
      throw new Error(`advertised tool ${tool.name} has no handler`)
    } catch (err) {
      if (isAppError(err)) {
        if (err.statusCode === 400 && tool.job) return failure(`Bad arguments: ${inAgentTerms(err.detail, tool.job)}`)
        if (err.statusCode === 400) return failure(`Bad arguments: ${err.detail}`)
        if (err.statusCode === 429) return failure(`${err.detail} Retry after ${err.headers['retry-after'] ?? '?'} s.`)
        if (err.statusCode < 500) return failure(err.detail)
      }
      ctx.log.error({ err, tool: tool.name }, 'agent tool call failed')
      return failure('The server failed to handle this call; retry shortly.')
    }
  }

  /**
   * A catalogue tool this server knows but does not run: REST's 410 detail
   * (not enabled, or retired with its replacement) as an isError result. Nothing is charged.
   */
  notEnabled (name: string, restKey: string): CallToolResult {
    let detail = `The tool '${restKey}' is not enabled on this server.`
    try {
      this.deps.registry.catalog.check(restKey)
    } catch (err) {
      if (isAppError(err)) detail = err.detail
    }
    return failure(`${name}: ${detail} Nothing was charged. Call tools/list for the tools this server runs, or find_tool with the job in plain English.`)
  }

  private async runJobTool (agent: AgentTool, args: Args, ctx: CallContext): Promise<CallToolResult | TaskStarted> {
    const { registry, jobs } = this.deps
    const waitSeconds = takeWaitSeconds(args, WAIT_SECONDS_DEFAULT)
    const maxBytes = takeMaxResultBytes(args)
    const params = registry.agentArgsToParams(agent, args)
    const started = await withTraceContext(ctx.trace, () => jobs.start({ caller: ctx.caller, tool: agent.restKey, params }))
    if (ctx.asTask) return { taskStarted: await jobs.status(ctx.caller, started.job_id) }
    return this.waitAndAnswer(agent.name, started.job_id, waitSeconds, maxBytes, ctx)
  }

  /** A started job's answer: waited for up to `waitSeconds` (progress notified), then its rows, or its id to poll. */
  private async waitAndAnswer (name: string, jobId: string, waitSeconds: number, maxBytes: number, ctx: CallContext): Promise<CallToolResult> {
    const { jobs } = this.deps
    // Progress must only grow (MCP), so rows pushed so far is the measure and the stage is the message.
    let reported = -1
    const report = (records: number, stage: string) => {
      if (!ctx.progress || records <= reported) return
      reported = records
      ctx.progress(records, stage).catch(() => {})
    }
    report(0, 'queued')
    const final = await waitForJob(jobs, ctx.caller, jobId, waitSeconds * 1000, ctx.signal, report)
    if (!final) {
      const status = await jobs.status(ctx.caller, jobId)
      const next = `The job is still running after ${waitSeconds} s. ${pollHint(jobId)}`
      return {
        content: [text(`${name} started job ${jobId}: ${status.records} rows so far (${status.stage}). ${next}`)],
        structuredContent: this.envelope(status, [], next),
      }
    }
    return this.endedJobResult(name, final, ctx, maxBytes)
  }

  /** A completed task's result (tasks/get): the ended job's answer under the agent name of its tool. */
  taskResult (final: JobStatusRecord, ctx: Pick<CallContext, 'caller' | 'origin'>): Promise<CallToolResult> {
    const tool = this.deps.catalog.jobTools().find(t => t.restKey === final.tool)
    return this.endedJobResult(tool?.name ?? final.tool, final, ctx)
  }

  /**
   * What a job tool call answers for a job that has ended: its first rows
   * (within the row cap and `maxBytes`), a link to the rest, or the error.
   * A task's result (tasks/get) is this same answer.
   */
  async endedJobResult (name: string, final: JobStatusRecord, ctx: Pick<CallContext, 'caller' | 'origin'>, maxBytes = MAX_RESULT_BYTES_DEFAULT): Promise<CallToolResult> {
    if (final.status === 'cancelled') {
      const next = final.records > 0 ? `Rows it produced before the cancel: get_job_results {"job_id": "${final.job_id}"}.` : 'It produced no rows.'
      return failure(`Job ${final.job_id} (${name}) was cancelled; the call was refunded. ${next}`, this.envelope(final, [], next))
    }
    if (final.status === 'error') {
      const next = final.has_results && final.records > 0 ? `Rows it produced before failing: get_job_results {"job_id": "${final.job_id}"}.` : 'Fix the cause named in error, or try another tool (find_tool).'
      const refund = final.refunded ? ' The call was refunded.' : ''
      return failure(`Job ${final.job_id} (${name}) ended in error: ${final.error ?? 'unknown error'}.${refund} ${next}`, this.envelope(final, [], next))
    }
    const page = await this.deps.jobs.results(ctx.caller, final.job_id, 0, INLINE_ROWS)
    const rows = rowsWithin(page.results, maxBytes)
    const hasMore = final.records > rows.length
    const cut = rows.length < page.results.length ? ` (${maxBytes} bytes of rows at most: max_result_bytes)` : ''
    const next = hasMore
      ? `Showing ${rows.length} of ${final.records} rows${cut}: get_job_results {"job_id": "${final.job_id}", "offset": ${rows.length}} for the rest, or the resource link.`
      : 'All rows are included.'
    const summary = `${name} finished job ${final.job_id}: ${final.records} row${final.records === 1 ? '' : 's'}.` +
      (final.warning ? ` Warning: ${final.warning}` : '') + ` ${next}` +
      // What the tool found beside the rows (a web search's related searches and answer box …).
      (final.summary ? ` Job summary: ${JSON.stringify(final.summary)}` : '')
    const rest: ResourceLink[] = hasMore
      ? [{ type: 'resource_link', uri: `${ctx.origin ?? ''}${final.results_url}?offset=${rows.length}`, name: `rows ${rows.length}–${final.records} of job ${final.job_id}`, mimeType: 'application/json', description: 'The remaining rows, a page at a time (REST, same key; offset and limit up to 1000).' }]
      : []
    return {
      content: [text(summary), ...await this.rowsContent(ctx, final.job_id, rows), ...rest],
      structuredContent: this.envelope(final, rows, next),
    }
  }

  /**
   * The rows as one JSON text item, then the job's files that these rows name
   * (a row carries a file's download path) as MCP resource_link items: the
   * agent sees them as files to fetch (with the same key), not as strings
   * inside the JSON. Files no row of the page names are left out, so each page
   * links its own files. The rows are serialised once, for both.
   */
  private async rowsContent (ctx: Pick<CallContext, 'caller' | 'origin'>, jobId: string, rows: Array<Record<string, unknown>>): Promise<Array<ReturnType<typeof text> | ResourceLink>> {
    const rowText = JSON.stringify(rows)
    if (!rowText.includes(`/api/tool-run/${jobId}/artifacts/`)) return [text(rowText)]
    const { files } = await this.deps.jobs.artifacts(ctx.caller, jobId)
    const links: ResourceLink[] = []
    for (const file of files) {
      if (links.length === MAX_RESOURCE_LINKS) break
      const path = artifactUrl(jobId, file.id)
      if (rowText.includes(path)) links.push({ type: 'resource_link', uri: `${ctx.origin ?? ''}${path}`, name: file.name, mimeType: file.contentType, size: file.size })
    }
    return [text(rowText), ...links]
  }

  private envelope (status: JobStatusRecord, rows: Array<Record<string, unknown>>, next: string): Record<string, unknown> {
    return {
      job_id: status.job_id,
      tool: status.tool,
      status: status.status,
      stage: status.stage,
      records: status.records,
      count: rows.length,
      has_more: status.records > rows.length && status.status !== 'running',
      results: rows,
      error: status.error,
      warning: status.warning,
      blocked: status.blocked,
      refunded: status.refunded,
      summary: status.summary,
      next,
    }
  }

  /**
   * The monitor tools: MonitorService's operations with the caller the
   * endpoint resolved, so a scoped token reaches only its tools' monitors and
   * every refusal is REST's {detail}.
   */
  private async monitorTool (name: MonitorToolName, args: Args, ctx: CallContext): Promise<CallToolResult> {
    const { monitors, catalog, registry } = this.deps
    const caller = ctx.caller
    const answer = (line: string, value: object): CallToolResult => ({ content: [text(`${line}\n${JSON.stringify(value)}`)], structuredContent: { ...value } })
    switch (name) {
      case 'create_monitor': {
        const { tool, params, schedule, webhook, name: title } = this.createMonitorArgs.parse(args)
        // An agent tool name takes that tool's arguments (its renames and fixed params); a REST key, REST params.
        const agent = catalog.get(tool)?.job
        const restKey = agent?.restKey ?? catalog.unavailableKey(tool) ?? tool
        const created = await monitors.create(caller, { tool: restKey, params: agent ? registry.agentArgsToParams(agent, params) : params, schedule, webhook, name: title })
        return answer(`Monitor ${created.monitor_id} created (${restKey}); its first run is at ${created.next_run_at ?? 'its next tick'}. ` +
          `After a run, get_monitor_changes {"monitor_id": "${created.monitor_id}"} says what changed.`, created)
      }
      case 'list_monitors': {
        this.monitorIdArgsNone(args)
        const list = await monitors.list(caller)
        return answer(`${list.count} monitor${list.count === 1 ? '' : 's'}.`, list)
      }
      case 'get_monitor': {
        const detail = await monitors.get(caller, this.monitorIdArgs.parse(args).monitor_id)
        return answer(`Monitor ${detail.monitor_id} (${detail.tool}): ${detail.status}, next run ${detail.next_run_at ?? 'none'}; ${detail.runs.length} recent runs.`, detail)
      }
      case 'update_monitor': {
        const { monitor_id: id, ...patch } = this.updateMonitorArgs.parse(args)
        const updated = await monitors.update(caller, id, patch)
        return answer(`Monitor ${id} updated; next run ${updated.next_run_at ?? 'none (paused)'}.`, updated)
      }
      case 'pause_monitor': {
        const paused = await monitors.pause(caller, this.monitorIdArgs.parse(args).monitor_id)
        return answer(`Monitor ${paused.monitor_id} paused; resume_monitor starts it again.`, paused)
      }
      case 'resume_monitor': {
        const resumed = await monitors.resume(caller, this.monitorIdArgs.parse(args).monitor_id)
        return answer(`Monitor ${resumed.monitor_id} resumed; next run ${resumed.next_run_at ?? 'none'}.`, resumed)
      }
      case 'delete_monitor': {
        const deleted = await monitors.remove(caller, this.monitorIdArgs.parse(args).monitor_id)
        return answer(`Monitor ${deleted.monitor_id} deleted.`, deleted)
      }
      case 'run_monitor_now': {
        const { monitor_id: id, wait_seconds: waitSeconds, max_result_bytes: maxBytes } = this.runMonitorArgs.parse(args)
        const started = await monitors.runNow(caller, id)
        const result = await this.waitAndAnswer(name, started.job_id, waitSeconds, maxBytes, ctx)
        const next = `When it is done, get_monitor_changes {"monitor_id": "${id}", "run": "${started.job_id}"} says what changed.`
        return { ...result, content: [...(result.content ?? []), text(next)], structuredContent: { ...(result.structuredContent as Record<string, unknown>), monitor_id: id } }
      }
      case 'get_monitor_changes': {
        const { monitor_id: id, run, limit } = this.changesArgs.parse(args)
        const changes = await monitors.changes(caller, id, run, limit)
        const counts = changes.changes as { added?: number, removed?: number, changed?: number } | null
        const line = counts
          ? `Run ${changes.run} of monitor ${id} (${changes.status}): ${counts.added ?? 0} added, ${counts.removed ?? 0} removed, ${counts.changed ?? 0} changed; at most ${limit} of each shown.`
          : `Run ${changes.run} of monitor ${id} (${changes.status}) has no comparison${changes.status === 'running' ? ' yet: it is still running' : ''}.`
        return answer(line, changes)
      }
    }
  }

  /** list_monitors takes no argument. */
  private monitorIdArgsNone (args: Args): void {
    const extra = Object.keys(args)
    if (extra.length) throw badRequest(`arguments.${extra[0]} is not an argument of list_monitors (it takes none).`)
  }

  private findTool (args: Args): CallToolResult {
    const { task, limit } = this.findToolArgs.parse(args)
    const matches = this.deps.catalog.finder.rank(task, limit)
    const tools = matches.map(({ tool, score }) => {
      const example = tool.examples[0]
      return { name: tool.name, title: tool.title, rest_key: tool.restKey, score, description: tool.description, example_task: example?.task ?? '', example_arguments: example?.args ?? {} }
    })
    const lines = tools.map((t, i) => `${i + 1}. ${t.name} (${t.title}): ${t.description}\n   example arguments: ${JSON.stringify(t.example_arguments)}`)
    const all = this.deps.catalog.jobTools().map(t => t.name).join(', ')
    const body = tools.length
      ? `Best tools for "${task}":\n${lines.join('\n')}`
      : `No tool matched "${task}". The tools on this server: ${all}.`
    return { content: [text(body)], structuredContent: { task, tools } }
  }

  private async jobStatus (args: Args, ctx: CallContext): Promise<CallToolResult> {
    const waitSeconds = takeWaitSeconds(args, 0)
    const { job_id: jobId } = this.statusArgs.parse(args)
    // The caller, not its account: a scoped token sees only its tools' jobs (JobService.find).
    const waited = await waitForJob(this.deps.jobs, ctx.caller, jobId, waitSeconds * 1000, ctx.signal)
    const status = waited ?? await this.deps.jobs.status(ctx.caller, jobId)
    const next = status.status === 'running'
      ? `Still running (${status.stage}); call get_job_status again, with wait_seconds to wait.`
      : status.status === 'done'
        ? `Done: read the rows with get_job_results {"job_id": "${jobId}"}.`
        : status.status === 'cancelled'
          ? `Cancelled (refunded); the rows written before the cancel are kept: get_job_results {"job_id": "${jobId}"}.`
          : `Ended in error: ${status.error ?? 'unknown error'}${status.refunded ? ' (refunded)' : ''}.`
    return { content: [text(`Job ${jobId} (${status.tool}): ${status.status}, ${status.records} rows. ${next}`)], structuredContent: { ...status } }
  }

  private async jobResults (args: Args, ctx: CallContext): Promise<CallToolResult> {
    const { job_id: jobId, offset, limit, max_result_bytes: maxBytes } = this.resultsArgs.parse(args)
    // A running job's 409 names a REST URL; the agent needs the tool to call instead.
    const status = await this.deps.jobs.status(ctx.caller, jobId)
    if (status.status === 'running') return failure(`Job ${jobId} is still running (${status.records} rows so far, ${status.stage}). ${pollHint(jobId)}`)
    const page = await this.deps.jobs.results(ctx.caller, jobId, offset, limit)
    // At least one row, so paging always moves on, even past a row larger than the budget.
    const rows = page.results.length ? [page.results[0]!, ...rowsWithin(page.results.slice(1), maxBytes - Buffer.byteLength(JSON.stringify(page.results[0])))] : []
    const end = page.offset + rows.length
    const more = end < page.total ? ` More rows: get_job_results {"job_id": "${jobId}", "offset": ${end}}.` : ''
    return {
      content: [text(`Job ${jobId} (${page.tool}, ${page.status}): rows ${page.offset}–${end} of ${page.total}.${more}`), ...await this.rowsContent(ctx, jobId, rows)],
      structuredContent: { ...page, count: rows.length, results: rows },
    }
  }
}
