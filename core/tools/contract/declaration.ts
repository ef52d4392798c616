// What a plugin declares: ToolDeclaration and its parts (agent tools,
// endpoints, prompts, aliases, upload), and defineTool. The kernel turns one
// declaration into a REST key, agent tools, jobs, a manifest entry and an
// OpenAPI schema.
import type { Static, TObject, TSchema } from 'typebox'
import type { ToolContext, ToolStateKit, UpstreamConfig } from './context.ts'
import type { ListInput } from './list-input.ts'
import type { RunInput } from './schema-helpers.ts'
import type { ProgramProfile } from './programs.ts'

/**
 * A tool that takes an uploaded file instead of one of its URL params
 * (`POST /api/tool-run` as multipart/form-data: fields `tool`, `params` as
 * JSON text, and one file). With a file, the kernel sets `param` to
 * `upload://<file name>` (so the param's schema must accept that string; a
 * plain string or `format: 'uri'` does) and refuses a call that gives both.
 */
export interface UploadDeclaration {
  /** The input param the file stands in for (e.g. `video_url`). */
  param: string
  /** Accepted media types; `type/*` matches a whole family (e.g. `video/*`). */
  contentTypes: string[]
}


// ---------------------------------------------------------------- declaration

export interface ToolExample<Args = Record<string, unknown>> {
  /** A plain-English task this example answers (feeds find_tool). */
  task: string
  args: Args
}

/** One agent-facing tool. A plugin may serve several over one REST key (websearch). */
export interface AgentToolDeclaration<AgentInput extends TSchema = TSchema> {
  name: string
  title: string
  /** Written for an agent: what it returns, when to use it, an example. */
  description: string
  /** Agent arguments. Default: the REST input with `renames` applied. */
  input?: AgentInput
  /** Fixed REST params this agent tool implies (e.g. { scrape_results: true }). */
  fixed?: Record<string, unknown>
  examples: ToolExample[]
  /**
   * Words and phrases people use when they want this agent tool and that its
   * title and description do not already say (synonyms, jargon, names of the
   * sources it reads): find_tool indexes them. Added to the declaration's own
   * `keywords`, which all of its agent tools share.
   */
  keywords?: string[]
  /**
   * find_tool's cues: short phrases that choose this agent tool over its near
   * neighbours ("read each result", "already have the urls"). A task that says
   * all the words of one (in any order) raises this tool's score. Added to the
   * declaration's own `cues`. See core/tools/README.md.
   */
  cues?: string[]
  /**
   * find_tool's not-for phrases: what a task says when a near neighbour fits
   * instead (another ad library's name, for an ad-library tool). A task that says all the words
   * of one lowers this tool's score. Added to the declaration's own `notFor`.
   */
  notFor?: string[]
}


/** One outbound proxy's health (PROXY_URLS), as a tool endpoint's status record shows it: never its credentials. */
export interface ProxyHealth {
  /** scheme://host:port, without user or password. */
  proxy: string
  /** No failure since its last success. */
  ok: boolean
  consecutive_failures: number
  /** Skipped (while another is available) until its cooldown ends. */
  cooling_down: boolean
  cooldown_remaining_s: number
  /** Requests and connections this process chose it for; the failures (with REDIS_URL, the cluster's). */
  requests: number
  failures: number
  last_error: string | null
}
export interface ToolEndpoint<State = unknown> {
  method: 'GET'
  path: string
  summary: string
  /** Who may call it (the route's access class, enforced by the kernel): `none` no key needed; `key` any valid key (guest included). */
  auth: 'none' | 'key'
  /** The answer's schema (OpenAPI documents it; every route declares its answers). */
  response: TSchema
  /**
   * The state group it is served from (ToolStateKit.sharedGroup): several tools
   * may declare the same endpoint with the same group, and the first enabled one
   * serves it, so it is there whichever of them the operator enables.
   */
  group?: string
  /** `proxies`: the outbound proxies' health in this process (PROXY_URLS: scheme://host:port, failures, cooldown), for a status record. */
  handle (args: { state: State, query: Record<string, string>, upstream: UpstreamConfig, proxyConfigured: boolean, proxies: ProxyHealth[] }): unknown | Promise<unknown>
}

/**
 * A view the tool adds to the dashboard (/app): a nav link `title` to
 * `#<name>`, drawn by `module`, browser code in the plugin's `dashboard/`
 * folder (its own tsconfig.json) whose default export is the view function;
 * it imports only the dashboard's view kit (core/tools/README.md, Dashboard views).
 * Several tools may declare the same view (same name and module): it is drawn
 * once, so it is there whichever of them the operator enables.
 */
export interface DashboardView {
  /** Its hash (`#media`): lowercase letters, digits and '-'. */
  name: string
  /** The nav link and the page title. */
  title: string
  /** `new URL('./dashboard/view.ts', import.meta.url)`. */
  module: URL
}

/** Where an older setting name now lives (ToolDeclaration.renamedSettings). */
export interface RenamedSetting {
  to: string
  /** The old setting was in seconds, the new one in milliseconds. */
  fromSeconds?: boolean
}

/** The settings type of a declaration with no `settings` schema: an empty object. */
export type NoSettings = TObject<{}>

export interface ToolDeclaration<Input extends TSchema = TSchema, Row extends TSchema = TSchema, Settings extends TSchema = NoSettings, State = unknown> {
  /** REST tool key (tool-run `tool`). */
  key: string
  title: string
  description: string
  /** REST params schema; also the source of every agent schema. */
  input: Input
  /** One result row. */
  row: Row
  /**
   * What names one row across runs, for monitors (core/monitors): the row fields
   * whose values together identify it (a place id, a store and product id, a
   * result URL, a video id…); a dotted path reaches into an object field. Two
   * runs' rows are matched by it. Every shipped plugin declares it; a tool
   * without it cannot be monitored.
   */
  rowKey?: string[]
  /**
   * The row fields a monitor reports changes of (price, rating, title, view
   * count…), before and after; dotted paths as in `rowKey`. A matched row whose
   * watched fields are equal is unchanged.
   */
  watch?: string[]
  /** Agent name → REST name (agent `limit` = REST `max_results`). */
  renames?: Record<string, string>
  /** Integer params clamped to the tier's per-run ceiling (default: max_results, max_pages). */
  perRunFields?: string[]
  /** Agent tools served by this key (default: one, named `agentName`). */
  agentName: string
  agentTools?: AgentToolDeclaration[]
  examples: ToolExample<Static<Input>>[]
  /**
   * find_tool's search words for this tool: synonyms and phrases users say
   * ("burner address", "paid search", "price list"), one word or phrase per
   * entry. With `agentTools`, these are shared by every agent tool and each
   * agent tool adds its own. See core/tools/README.md.
   */
  keywords?: string[]
  /** find_tool's cues shared by every agent tool of the declaration (see AgentToolDeclaration.cues). */
  cues?: string[]
  /** find_tool's not-for phrases shared by every agent tool of the declaration (see AgentToolDeclaration.notFor). */
  notFor?: string[]
  /**
   * Whether runs reach anything outside this server (web pages, search engines,
   * DNS, mail servers): default true. false for a tool that works only on what
   * it is given (an uploaded file, the params). The agent endpoint's
   * openWorldHint says it.
   */
  openWorld?: boolean
  /** Suggested polling interval in seconds (default 2). */
  pollSeconds?: number
  /** Longest a run may take before the kernel aborts it (default: JOB_TIMEOUT_SECONDS). */
  timeoutSeconds?: number
  /**
   * The operator's settings (tools.config.json `settings`), as a TypeBox object
   * schema whose `default`s are the documented defaults. The kernel fills the
   * defaults in and validates at boot: a bad or unknown setting stops the boot
   * naming the tool and the setting. Runs read the result as `ctx.settings`.
   * Without it, the tool takes no settings (giving any stops the boot).
   */
  settings?: Settings
  /**
   * Older names of settings, still accepted in tools.config.json: the value moves
   * to the new name (converted from seconds to milliseconds with `fromSeconds`)
   * before validation, and the boot logs a warning naming the new one.
   */
  renamedSettings?: Record<string, RenamedSetting>
  /**
   * Keys of the tools this one runs through `ctx.tools.run`. Boot refuses a
   * config that enables this tool without all of them, naming both; the kernel
   * refuses a nested run of a key not listed here.
   */
  uses?: string[]
  /**
   * State kept across jobs (e.g. engine health), made once per app (with the
   * validated settings) and handed to run as ctx.state. What must hold across
   * processes goes through `kit.shared` (SharedState), never a connection of its own.
   * Its return type is `ctx.state`'s and the endpoints' `state`.
   */
  createState? (settings: Readonly<Static<Settings>>, kit: ToolStateKit): State
  /** Extra read endpoints the tool serves from its state (e.g. GET /api/search/status). */
  endpoints?: Array<ToolEndpoint<State>>
  /**
   * The programs the tool runs through ctx.exec (ProgramProfile: its binary,
   * version, argument guard). The kernel registers those of the enabled tools
   * and runs nothing else; a job runs only its own tool's.
   */
  programs?: readonly ProgramProfile[]
  /** Views the tool adds to the dashboard (see DashboardView). */
  dashboardViews?: DashboardView[]
  /** MCP workflow prompts this tool owns (see WorkflowPrompt). */
  prompts?: WorkflowPrompt[]
  /** Extra REST paths that start this tool's job from their own body shape (see ToolAlias). */
  aliases?: ToolAlias[]
  /**
   * The input's list param (one value or a list), its cap and what a failing
   * item does (ItemFailurePolicy): the run reads it with `listItems(ctx, list)`
   * and runs it with `eachItem(ctx, list, items, each)`, which apply it. An
   * input with alternative lists (microblog's query, username or url; a call
   * gives one) declares each, every one with its own noun, cap and policy.
   */
  list?: ListInput<Static<Row>> | ReadonlyArray<ListInput<Static<Row>>>
  /** Takes an uploaded file on multipart tool-run (see UploadDeclaration); without it a file is refused (400). */
  upload?: UploadDeclaration
  run (ctx: ToolContext<RunInput<Input>, Static<Row>, Static<Settings>, State>): Promise<void>
}

// ---------------------------------------------------------------- workflow prompts

export interface WorkflowPromptArgument { name: string, description: string, required: boolean }

/**
 * A ready workflow offered by MCP prompts/list and prompts/get, owned by the
 * plugin whose tool leads it. It is listed only when every agent tool in
 * `tools` is enabled on this server, so a prompt never promises a tool the
 * server cannot run.
 */
export interface WorkflowPrompt {
  name: string
  title: string
  description: string
  arguments: WorkflowPromptArgument[]
  /** Agent tool names the workflow chains (its own and other plugins'). */
  tools: string[]
  /** The prompts/get text; required arguments are present and non-blank. */
  render (args: Record<string, string>): string
}

// ---------------------------------------------------------------- alias endpoints

/**
 * A REST path that starts this tool's job from a body of its own shape
 * (e.g. POST /api/scrape for maps). The kernel mounts it with the same key
 * classes, quota, caps, idempotency and errors as POST /api/tool-run; the
 * plugin only maps the body to its params and, for a synchronous alias,
 * shapes the answer from the job's rows.
 */
export interface ToolAlias<Body extends TSchema = TSchema> {
  method: 'POST'
  path: string
  summary: string
  description?: string
  /** The request body; also its OpenAPI schema. */
  body: Body
  /** Accept `webhook: {url, events?, secret?}` beside the body's fields (the kernel adds it to the schema). */
  webhook?: boolean
  /** Body → the tool's params (default: the body as is). Throw InputError for a body the schema cannot refuse (answers 400). */
  params? (body: Static<Body>): Record<string, unknown>
  /** Where the started job's status_url/results_url point: /api/jobs/<id> or /api/tool-run/<id>/… (default). */
  jobLinks?: 'jobs' | 'tool-run'
  /**
   * Wait up to SYNC_WAIT_SECONDS for the job and answer 200 with `answer(rows, body)`
   * plus the job's outcome (`job_id, status, error, blocked, refunded`), done or
   * failed, so a client reads one shape; past the window 408 with the job id, the
   * job goes on. Without it the alias answers 202.
   */
  sync?: {
    /** The answer's schema (OpenAPI) without the outcome fields, which the kernel adds. */
    result: TSchema
    /** How many rows `answer` needs (default 1). */
    rows?: number
    /** The answer from the job's first rows (none when the job failed before any row). */
    answer (rows: Array<Record<string, unknown>>, body: Static<Body>): Record<string, unknown>
  }
}

/** A declaration, typed: `ctx.state` is what `createState` returns (undefined without one). */
export function defineTool<Input extends TSchema, Row extends TSchema, Settings extends TSchema = NoSettings, State = undefined> (declaration: ToolDeclaration<Input, Row, Settings, State>): ToolDeclaration<Input, Row, Settings, State> {
  return declaration
}

