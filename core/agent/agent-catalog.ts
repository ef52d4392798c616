// The tools the agent endpoint advertises, built once per app from the
// registry: every enabled agent tool (its REST input schema with agent names,
// plus `wait_seconds`; its row schema wrapped in the job envelope) and the
// helper tools. tools/list, the manifest and the guide all read this, so they
// cannot disagree.
import { Type, type TSchema } from 'typebox'
import { ConfigError } from '../config.ts'
import { offeredPrompts, type WorkflowPrompt } from './prompts.ts'
import type { AgentTool, ToolRegistry } from '../tools/registry.ts'
import {
  CreateMonitorArgs, FindToolArgs, FindToolResult, JobEnvelope, JobResultsArgs, JobResultsResult, JobStatusArgs, JobStatusSchema,
  MaxResultBytes, MonitorChangesArgs, MonitorIdArgs, RunMonitorArgs, UpdateMonitorArgs, WAIT_SECONDS_DEFAULT, WaitSeconds, type ToolAnnotations,
} from './schemas.ts'
import { MonitorChangesSchema, MonitorDeleted, MonitorDetail, MonitorList, MonitorView } from '../monitors/schemas.ts'
import { phraseWords, ToolFinder } from './tool-finder.ts'

export type JsonSchema = Record<string, unknown> & { type?: unknown, properties?: Record<string, JsonSchema>, required?: string[] }

type HelperName = 'find_tool' | 'get_job_status' | 'get_job_results' | MonitorToolName

/** The monitor tools: /api/monitors' operations (core/monitors), as the caller, with its checks and scope. */
export type MonitorToolName = 'create_monitor' | 'list_monitors' | 'get_monitor' | 'update_monitor' | 'pause_monitor' | 'resume_monitor' |
  'delete_monitor' | 'run_monitor_now' | 'get_monitor_changes'


/** Arguments the agent endpoint adds to every job tool: a tool's own input may not use these names. */
const RESERVED_ARGUMENTS = ['wait_seconds', 'max_result_bytes']

export interface AdvertisedTool {
  name: string
  title: string
  description: string
  /** REST tool key; null for the helper tools. */
  restKey: string | null
  /** Agent argument → REST param, where the names differ (agent `limit` = REST `max_results`). */
  renames: Record<string, string>
  /** REST params this agent tool sets itself (e.g. a search tool's search-and-scrape variant sets scrape_results: true). */
  fixedParams: Record<string, unknown>
  inputSchema: JsonSchema
  outputSchema: JsonSchema
  /**
   * Derived, never written per tool: a job tool reads its sources and changes
   * nothing there (readOnly), reaches outside this server unless its
   * declaration says `openWorld: false`, and is not idempotent (each call is a
   * new job and a quota charge). The helpers are read-only, idempotent and closed.
   */
  annotations: ToolAnnotations
  /** The registry's agent tool behind a job tool. */
  job?: AgentTool
  helper?: HelperName
}

/** A plain JSON copy: what goes on the wire, and safe from later mutation. */
const plainSchema = (schema: TSchema): JsonSchema => JSON.parse(JSON.stringify(schema)) as JsonSchema

/**
 * Properties with a default are not required of the agent: the kernel fills
 * defaults before it validates (TypeBox lists them as required all the same).
 */
function agentInputSchema (schema: JsonSchema): JsonSchema {
  const properties = schema.properties ?? {}
  const required = (schema.required ?? []).filter(k => properties[k]?.default === undefined)
  const { required: _dropped, ...rest } = schema
  return { ...rest, ...(required.length ? { required } : {}) }
}

/** A job tool's input as the agent sees it: agent names, plus wait_seconds and max_result_bytes. */
function jobInputSchema (tool: AgentTool): JsonSchema {
  const schema = plainSchema(tool.inputSchema)
  const properties = schema.properties ?? {}
  return agentInputSchema({
    ...schema,
    properties: { ...properties, wait_seconds: plainSchema(WaitSeconds(WAIT_SECONDS_DEFAULT)), max_result_bytes: plainSchema(MaxResultBytes) },
  })
}

/** A name among the agent endpoint's own arguments that the tool's input also uses. */
function reservedArgument (tool: AgentTool): string | undefined {
  const properties = (tool.inputSchema as { properties?: object }).properties ?? {}
  return RESERVED_ARGUMENTS.find(name => name in properties)
}

const HELPER_ANNOTATIONS: ToolAnnotations = { readOnlyHint: true, idempotentHint: true }

/**
 * The renames an agent tool actually has: those whose agent name is one of its
 * arguments (a tool with its own agent input may not use every declared rename).
 */
function renamesShown (tool: AgentTool): Record<string, string> {
  const properties = (tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {}
  return Object.fromEntries(Object.entries(tool.renames).filter(([agent, rest]) => agent !== rest && agent in properties))
}

/** A monitor run's answer: the job envelope of any row, and the monitor. */
const MonitorRunEnvelope = (() => {
  const envelope = plainSchema(JobEnvelope(Type.Record(Type.String(), Type.Unknown())))
  return { ...envelope, properties: { ...envelope.properties, monitor_id: { type: 'string' } }, required: [...(envelope.required ?? []), 'monitor_id'] }
})()

// The kernel names no tool: the example's tool is a placeholder find_tool fills.
const MONITOR_EXAMPLE = '{"tool": "<an agent tool name from find_tool>", "params": {"url": "https://shop.example"}, "schedule": {"cron": "0 8 * * 1-5", "tz": "Europe/Berlin"}}'

type Helper = Omit<AdvertisedTool, 'restKey' | 'renames' | 'fixedParams' | 'annotations'> & { helper: HelperName, annotations?: ToolAnnotations }

const HELPERS: Helper[] = [
  {
    name: 'find_tool',
    helper: 'find_tool',
    title: 'Find the right tool',
    description: 'Ranks this server\'s tools for a job described in plain English and returns the best few with example arguments. ' +
      'Call it first when you are unsure which tool fits. Free: it starts no job. Example: {"task": "find the contact e-mails of acme.com"}.',
    inputSchema: agentInputSchema(plainSchema(FindToolArgs)),
    outputSchema: plainSchema(FindToolResult),
  },
  {
    name: 'get_job_status',
    helper: 'get_job_status',
    title: 'Job status',
    description: 'The status record of a job you started (status running, done or error; rows so far; stage). ' +
      'Pass wait_seconds to wait for the job to end before answering. Free: reading status is not a call. Example: {"job_id": "…", "wait_seconds": 20}.',
    inputSchema: agentInputSchema(plainSchema(JobStatusArgs)),
    outputSchema: plainSchema(JobStatusSchema),
  },
  {
    name: 'get_job_results',
    helper: 'get_job_results',
    title: 'Job results',
    description: 'The rows of a finished job, a page at a time (offset, limit up to 1000). ' +
      'A job that is still running answers with an error telling you to poll get_job_status. Free. Example: {"job_id": "…", "offset": 100, "limit": 100}.',
    inputSchema: agentInputSchema(plainSchema(JobResultsArgs)),
    outputSchema: plainSchema(JobResultsResult),
  },
  {
    name: 'create_monitor',
    helper: 'create_monitor',
    title: 'Create a monitor',
    description: 'Saves a tool call with a schedule: the tool runs on its own at each tick (each run a job, charged as a call), and each run that ends done is compared with the last successful one: ' +
      'which rows were added, removed or changed (before and after of the watched fields, such as price or title). Read them with get_monitor_changes; a webhook gets the counts, and monitor.changed (the counts and the first changes) when a run changed rows. ' +
      `Your plan caps how many monitors you keep and how often they run. Creating one is free. Example: ${MONITOR_EXAMPLE}.`,
    inputSchema: agentInputSchema(plainSchema(CreateMonitorArgs)),
    outputSchema: plainSchema(MonitorView),
    annotations: { readOnlyHint: false },
  },
  {
    name: 'list_monitors',
    helper: 'list_monitors',
    title: 'Your monitors',
    description: 'Your monitors (those of this token\'s tools for a scoped token): tool, params, schedule, active or paused and why, next run, last run. Free. Example: {}.',
    inputSchema: agentInputSchema(plainSchema(Type.Object({}, { additionalProperties: false }))),
    outputSchema: plainSchema(MonitorList),
  },
  {
    name: 'get_monitor',
    helper: 'get_monitor',
    title: 'A monitor and its latest runs',
    description: 'One monitor with its latest runs, newest first: each run\'s job_id, status, rows and change counts, or why a tick was skipped (out of quota…). Free. Example: {"monitor_id": "…"}.',
    inputSchema: agentInputSchema(plainSchema(MonitorIdArgs)),
    outputSchema: plainSchema(MonitorDetail),
  },
  {
    name: 'update_monitor',
    helper: 'update_monitor',
    title: 'Change a monitor',
    description: 'Changes a monitor\'s params (REST names, as get_monitor shows them; replaced whole), schedule or name; its tool cannot change. Free. Example: {"monitor_id": "…", "schedule": {"every": "6h"}}.',
    inputSchema: agentInputSchema(plainSchema(UpdateMonitorArgs)),
    outputSchema: plainSchema(MonitorView),
    annotations: { readOnlyHint: false, idempotentHint: true },
  },
  {
    name: 'pause_monitor',
    helper: 'pause_monitor',
    title: 'Pause a monitor',
    description: 'Stops a monitor\'s scheduled runs until resume_monitor; its baseline is kept. Free. Example: {"monitor_id": "…"}.',
    inputSchema: agentInputSchema(plainSchema(MonitorIdArgs)),
    outputSchema: plainSchema(MonitorView),
    annotations: { readOnlyHint: false, idempotentHint: true },
  },
  {
    name: 'resume_monitor',
    helper: 'resume_monitor',
    title: 'Resume a monitor',
    description: 'Restarts a paused monitor (paused by you, or by itself after repeated failures) from its next tick. Free. Example: {"monitor_id": "…"}.',
    inputSchema: agentInputSchema(plainSchema(MonitorIdArgs)),
    outputSchema: plainSchema(MonitorView),
    annotations: { readOnlyHint: false, idempotentHint: true },
  },
  {
    name: 'delete_monitor',
    helper: 'delete_monitor',
    title: 'Delete a monitor',
    description: 'Deletes a monitor and its baseline; its past runs stay jobs until their retention ends. Example: {"monitor_id": "…"}.',
    inputSchema: agentInputSchema(plainSchema(MonitorIdArgs)),
    outputSchema: plainSchema(MonitorDeleted),
    annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: true },
  },
  {
    name: 'run_monitor_now',
    helper: 'run_monitor_now',
    title: 'Run a monitor now',
    description: 'Runs a monitor\'s tool call now, outside its schedule: a job like any tool call (one call charged), compared with the last successful run when it ends. ' +
      'Waits up to wait_seconds and answers the rows like the tool would; then get_monitor_changes {"monitor_id"} has what changed. Example: {"monitor_id": "…", "wait_seconds": 30}.',
    inputSchema: agentInputSchema(plainSchema(RunMonitorArgs)),
    outputSchema: MonitorRunEnvelope,
    annotations: { readOnlyHint: false, openWorldHint: true },
  },
  {
    name: 'get_monitor_changes',
    helper: 'get_monitor_changes',
    title: 'What a monitor\'s run changed',
    description: 'What one run of a monitor changed against the run before (default: its latest run): added rows ({key, after}), removed rows ({key, before}), ' +
      'changed rows ({key, fields: {field: {before, after}}}) and duplicates, at most limit of each, with the counts. Free. Example: {"monitor_id": "…", "limit": 20}.',
    inputSchema: agentInputSchema(plainSchema(MonitorChangesArgs)),
    outputSchema: plainSchema(MonitorChangesSchema),
  },
]

export class AgentCatalog {
  readonly tools: AdvertisedTool[]
  private finderIndex: ToolFinder | undefined
  /** Workflow prompts whose tools are all served here. */
  readonly prompts: WorkflowPrompt[]
  private readonly byName: Map<string, AdvertisedTool>
  /** Agent names of catalogue tools this server does not run (disabled or retired) → REST key. */
  private readonly unavailable: Map<string, string>

  constructor (readonly registry: ToolRegistry) {
    const jobTools = registry.listAgentTools().map((tool): AdvertisedTool => {
      // The reserved name is checked at boot; the JSON schemas (a copy of every tool's
      // input and row schema) are made when first read: building them all was ≈ 40 ms
      // of a start, and most processes never list the agent tools.
      const reserved = reservedArgument(tool)
      if (reserved) throw new ConfigError(`agent tool "${tool.name}" has a parameter named ${reserved}, which the agent endpoint reserves`)
      // A cue of nothing but stopwords ("just the one") would meet every task.
      const hollow = [...tool.cues, ...tool.notFor].find(phrase => phraseWords(phrase).length === 0)
      if (hollow !== undefined) throw new ConfigError(`agent tool "${tool.name}" declares the find_tool phrase "${hollow}", which has no word find_tool ranks on (only stopwords or numbers)`)
      let inputSchema: JsonSchema | undefined
      let outputSchema: JsonSchema | undefined
      return {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        restKey: tool.restKey,
        renames: renamesShown(tool),
        fixedParams: { ...tool.fixed },
        annotations: { readOnlyHint: true, ...(tool.openWorld ? { openWorldHint: true as const } : {}) },
        get inputSchema () { return (inputSchema ??= jobInputSchema(tool)) },
        get outputSchema () { return (outputSchema ??= plainSchema(JobEnvelope(tool.outputSchema))) },
        job: tool,
      }
    })
    const helpers = HELPERS.map(h => ({ ...h, restKey: null, renames: {}, fixedParams: {}, annotations: h.annotations ?? HELPER_ANNOTATIONS }))
    for (const h of helpers) {
      if (jobTools.some(t => t.name === h.name)) throw new ConfigError(`agent tool name "${h.name}" is reserved by the agent endpoint`)
    }
    this.tools = [...jobTools, ...helpers]
    this.byName = new Map(this.tools.map(t => [t.name, t]))
    this.unavailable = registry.unavailableAgentNames()
    for (const h of helpers) {
      if (this.unavailable.has(h.name)) throw new ConfigError(`agent tool name "${h.name}" is reserved by the agent endpoint`)
    }
    this.prompts = offeredPrompts(registry, name => Boolean(this.byName.get(name)?.job))
  }

  /**
   * find_tool's index over every description, example and keyword, built with
   * the first find_tool call: most processes never answer one, and building it
   * is a noticeable part of the start.
   */
  get finder (): ToolFinder {
    this.finderIndex ??= new ToolFinder(this.jobTools().map(t => t.job!))
    return this.finderIndex
  }

  get (name: string): AdvertisedTool | undefined { return this.byName.get(name) }

  /** The REST key behind an agent name this server knows but does not run (disabled or retired). */
  unavailableKey (name: string): string | undefined { return this.unavailable.get(name) }

  jobTools (): AdvertisedTool[] { return this.tools.filter(t => t.job) }

  /**
   * GET /mcp/manifest.json's tool list: the tools/list schemas, plus how each
   * maps onto REST (its tool key, the renamed arguments, the params it fixes).
   */
  manifestTools (): Array<Record<string, unknown>> {
    return this.tools.map(t => ({
      name: t.name,
      rest_key: t.restKey,
      description: t.description,
      renames: t.renames,
      fixed_params: t.fixedParams,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
    }))
  }

  /** The MCP tools/list entries (also the manifest's tool list). */
  listed (): Array<{ name: string, title: string, description: string, inputSchema: JsonSchema, outputSchema: JsonSchema, annotations: ToolAnnotations }> {
    return this.tools.map(t => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations }))
  }
}
