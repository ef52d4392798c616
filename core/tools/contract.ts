// The plugin contract: the one module a tool plugin imports from the kernel.
// A plugin *declares* itself with defineTool(); the kernel turns the
// declaration into a REST key, agent tool(s), jobs, a manifest entry and an
// OpenAPI schema. See core/tools/README.md.
import { Type, type Static, type TObject, type TOptional, type TProperties, type TSchema, type TSchemaOptions } from 'typebox'
import type { Logger } from 'pino'
import type { HttpCrawler, HttpCrawlerOptions, HttpCrawlingContext } from 'crawlee'

export { Type } from 'typebox'
export type { Static, TSchema } from 'typebox'
export type { Logger } from 'pino'
/** Bounded parallelism (the kernel's own): `new Semaphore(n).run(task)`. */
export { Semaphore } from '../semaphore.ts'

// ---------------------------------------------------------------- network

export interface GuardedRequestInit extends Omit<RequestInit, 'signal'> {
  /** Whole-request timeout in ms (default 20 s). */
  timeoutMs?: number
  /** Redirects followed, each one re-checked by the guard (default 5). */
  maxRedirects?: number
  /** Abort reading a body larger than this many bytes (default 10 MB). */
  maxBytes?: number
  signal?: AbortSignal
}

/**
 * The guarded HTTP client. It refuses loopback, private, link-local and cloud
 * metadata targets after DNS resolution and on every redirect (unless
 * ALLOW_PRIVATE_TARGETS=1), applies the configured proxy and user agent, and
 * ties every request to the job's abort signal.
 */
export interface HttpClient {
  fetch (url: string | URL, init?: GuardedRequestInit): Promise<Response>
  /** fetch, then the body as text, with the final URL after redirects. */
  text (url: string | URL, init?: GuardedRequestInit): Promise<{ status: number, url: string, headers: Headers, body: string }>
  /** fetch, then the body parsed as JSON (throws UpstreamError on a non-JSON body). */
  json<T = unknown> (url: string | URL, init?: GuardedRequestInit): Promise<{ status: number, url: string, headers: Headers, body: T }>
}

/**
 * Crawlee crawlers with in-memory storage and the same guard, proxy, user agent
 * and body cap. The crawler is crawlee's HttpCrawler: the handler gets the page's
 * raw `body` and parses nothing on the API thread; read the page with
 * `ctx.extract` (the worker pool). `enqueueLinks()` reads the links in the pool;
 * `parseWithCheerio()` and `waitForSelector()` are refused.
 */
export interface CrawlerFactory {
  http (options: HttpCrawlerOptions<HttpCrawlingContext>): HttpCrawler<HttpCrawlingContext>
}

/** For tools that open raw sockets (SMTP, DNS): the same policy the HTTP client applies. */
export interface NetworkPolicy {
  readonly allowPrivateTargets: boolean
  /** Throws BlockedTargetError for loopback, private, link-local or metadata addresses unless allowed. */
  assertAllowedAddress (address: string, label?: string): void
}

// ---------------------------------------------------------------- media programs

/** The programs ctx.exec runs; each binary comes from a setting (YTDLP_PATH, FFMPEG_PATH, FFPROBE_PATH). */
export type MediaProgram = 'yt-dlp' | 'ffmpeg' | 'ffprobe'

export interface ExecOptions {
  /** Longest the run may take (default EXEC_TIMEOUT_MS); past it the process group is killed and the run throws UpstreamError. */
  timeoutMs?: number
  /** Captured stdout is cut here (default 8 MB; the rest is read and dropped, `stdoutTruncated` says so). */
  maxStdoutBytes?: number
  /** Captured stderr keeps its last this many bytes (default 64 KB). */
  maxStderrBytes?: number
  /**
   * true: the process reaches the network only through the kernel's egress
   * proxy (same policy as ctx.http). false (default): it gets no proxy, and
   * yt-dlp a proxy that refuses everything.
   */
  network?: boolean
  /** Lowers EXEC_NETWORK_MAX_BYTES (bytes through the egress proxy, both ways) for this run. */
  maxNetworkBytes?: number
  /** Working directory, e.g. a job scratch dir (default: a private empty directory). */
  cwd?: string
  /** Stream stdout there instead of capturing it (ffmpeg writing to pipe:1). */
  stdout?: NodeJS.WritableStream
}

export interface ExecResult {
  /** The exit code; 128 + the signal number when a signal ended it. */
  exitCode: number
  stdout: string
  /** The tail, with the server's internal paths replaced. */
  stderr: string
  stdoutTruncated: boolean
}

/**
 * The guarded process runner (core/exec/README.md): argument arrays only, never
 * a shell; a minimal environment; the job's signal and a time limit kill the
 * whole process group. ffmpeg and ffprobe inputs are an http(s) URL (with
 * `network: true`) or a file of the job's folder (its upload, its scratch),
 * opened as media only; anything else is an InputError before the run starts.
 * A non-zero exit is returned, not thrown: map yt-dlp's
 * failures with `ytdlpFailure(result.stderr)`. Throws ToolConfigError naming the
 * variable when the binary is missing, BlockedTargetError when the run failed
 * after the egress proxy refused one of its targets, UpstreamError past the
 * time or network limit, and the signal's reason when the job stops. The
 * kernel's limits on the input's own cost are not refunded: InputError past
 * the CPU time or address space of a run, FileTooLargeError past the tier's
 * file caps (one file; the job's scratch with its stored files).
 */
export interface ProcessRunner {
  run (program: MediaProgram, args: string[], options?: ExecOptions): Promise<ExecResult>
  /** Whether the program's binary is installed (its setting names an executable file). */
  available (program: MediaProgram): boolean
}

// ---------------------------------------------------------------- outcomes

/**
 * An error that ends a job in a known way. The kernel reads these fields, never
 * the class name or the text, to write the job's outcome; a plugin may read them
 * too (a failure that needs the operator will repeat for every item of a run).
 */
export abstract class JobOutcomeError extends Error {
  /** The call is given back: the caller was not at fault. */
  abstract readonly refund: boolean
  /** The source refused: the job reads `blocked: true`. */
  readonly blocked: boolean = false
  /** Every call fails the same way until the operator changes the server (a credential, a setting, a tool to enable). */
  readonly needsOperator: boolean = false
  /** The text quotes an upstream's request: the kernel cuts its URLs to origin + path, since queries carry keys and the caller's search. */
  readonly quotesUpstream: boolean = false
  /** What the job's `error` reads (scrubbed of credentials by the kernel). */
  get jobError (): string { return this.message }
}

/** Thrown by the guard: the target is private, loopback, link-local or metadata. Not refunded: the caller chose the target. */
export class BlockedTargetError extends JobOutcomeError {
  readonly refund = false
  constructor (readonly target: string, readonly reason: string) {
    super(`Refused to connect to ${target}: ${reason}. Set ALLOW_PRIVATE_TARGETS=1 to allow private targets.`)
    this.name = 'BlockedTargetError'
  }
}

/** The source refused (403/429, captcha, login or consent wall): job ends blocked, refunded. */
export class ToolBlockedError extends JobOutcomeError {
  readonly refund = true
  override readonly blocked = true
  override readonly quotesUpstream = true
  constructor (reason: string) { super(reason); this.name = 'ToolBlockedError' }
  override get jobError (): string { return `The source refused the request: ${this.message}` }
}

/** The upstream failed (5xx, bad answer, unreachable): job ends in error, refunded. */
export class UpstreamError extends JobOutcomeError {
  readonly refund = true
  override readonly quotesUpstream = true
  constructor (message: string, readonly status?: number) { super(message); this.name = 'UpstreamError' }
  override get jobError (): string { return `The upstream failed: ${this.message}` }
}

/** A credential the tool needs is not configured: job ends in error naming the variable, refunded. */
export class MissingCredentialError extends JobOutcomeError {
  readonly refund = true
  override readonly needsOperator = true
  constructor (readonly variable: string, what: string) {
    super(`${what} needs the environment variable ${variable}, which is not set on this server.`)
    this.name = 'MissingCredentialError'
  }
}

/**
 * The operator's tools.config.json is wrong for this tool in a way the boot
 * checks cannot say (the `settings` schema and `uses` are checked at boot), or
 * a tool it runs is not enabled: job ends in error naming it, refunded.
 */
export class ToolConfigError extends JobOutcomeError {
  readonly refund = true
  override readonly needsOperator = true
  constructor (message: string) { super(`Server configuration error: ${message}`); this.name = 'ToolConfigError' }
}

/** The caller's input cannot be served (e.g. a URL that is not a video): job ends in error, not refunded. */
export class InputError extends JobOutcomeError {
  readonly refund = false
  constructor (message: string) { super(message); this.name = 'InputError' }
}

/**
 * A file passed its tier's cap (`max_file_mb` for one file, `max_job_files_mb`
 * for all of a job's files; an upload is refused with 413 before the job
 * starts instead). The write stopped and its partial file is gone; files
 * stored before it stay. Not refunded, like InputError: the caller chose what
 * to fetch. A tool may catch it, `warn` and go on with smaller files.
 */
export class FileTooLargeError extends JobOutcomeError {
  readonly refund = false
  constructor (message: string, readonly limitBytes: number) { super(message); this.name = 'FileTooLargeError' }
}

/**
 * One page (or answer) could not be parsed: the parser threw, ran past
 * EXTRACT_TASK_TIMEOUT_MS, nested too deeply, or its worker ran out of memory.
 * Catch it and make it that row's or that page's error; one that escapes a run
 * ends the job like an UpstreamError (refunded), since the page was the upstream's.
 */
export class ExtractionError extends UpstreamError {
  constructor (message: string, readonly reason: 'failed' | 'timeout' | 'too-deep' | 'out-of-memory' | 'crashed') {
    super(message)
    this.name = 'ExtractionError'
  }
}

/**
 * A response body past MAX_RESPONSE_BYTES (or the caller's lower `maxBytes`):
 * `ctx.http`'s read and a crawler's page fail with it. A tool that can ask for
 * less (a smaller page of a paged API) catches it and does; one that escapes a
 * run ends the job like an UpstreamError (refunded).
 */
export class ResponseTooLargeError extends UpstreamError {
  constructor (message: string, readonly limitBytes: number, status?: number) {
    super(message, status)
    this.name = 'ResponseTooLargeError'
  }
}

// ---------------------------------------------------------------- extraction

/**
 * CPU-heavy parsing, run in the app's worker pool (core/workers/README.md) so the
 * API thread only moves bytes. The kernel knows no parser: it runs a pure
 * function of a module by its file URL. The plugin library's page scanners
 * (its page-scanner.ts: Readability, e-mails, phones, socials) are such
 * modules; so is a plugin's own `extract.ts`. A call rejects with
 * ExtractionError when the page cannot be parsed (its error, not the job's) and
 * with the job's abort reason when the job stops.
 */
export interface Extraction {
  /**
   * A pure parser, pooled: `module` is its file URL
   * (`new URL('./extract.ts', import.meta.url)`), `name` the export, `args`
   * structured-cloneable arguments; the result must be cloneable too.
   */
  call<T = unknown> (module: URL, name: string, args: unknown[]): Promise<T>
  /**
   * Starts the pool's workers and loads `modules` in them. Await it before a
   * crawl whose request handler has its own time limit, so no page spends that
   * limit waiting for a worker to boot or a DOM library to load (seconds on a
   * busy host).
   */
  ready (modules?: URL[]): Promise<void>
}

// ---------------------------------------------------------------- dns

/** One MX record; a lower preference is tried first. */
export interface MxRecord { exchange: string, priority: number }

export interface DnsOptions {
  /** DNS servers, "ip" or "ip:port" ("[v6]:port"); empty: the system's resolvers. */
  servers?: readonly string[]
  /** Timeout of one query in ms (default 5000). */
  timeoutMs?: number
  /** Tries per query (default 2). */
  tries?: number
}

/**
 * The guarded DNS resolver (`ctx.dns`): plugins never import node:dns. Every
 * lookup is bound to the job's signal (a stopped job cancels its queries and
 * the lookup rejects with the job's abort reason), has a per-query timeout and
 * a whole-lookup deadline, and keeps at most 100 records (a TXT record's text
 * at most 4096 characters). An answer that is not a record rejects with
 * DnsLookupError, whose `code` is node's: ENOTFOUND (NXDOMAIN), ENODATA (no
 * record of the type), ETIMEOUT, ESERVFAIL, ECONNREFUSED, …
 */
export interface DnsResolver {
  mx (domain: string): Promise<MxRecord[]>
  /** Each TXT record's strings joined. */
  txt (domain: string): Promise<string[]>
  a (host: string): Promise<string[]>
  aaaa (host: string): Promise<string[]>
  /** The same guard with other servers, timeout or tries (a tool's `dns_servers` setting). */
  using (options: DnsOptions): DnsResolver
}

/**
 * A DNS lookup answered no records: `code` says why (node's codes; `nxdomain`
 * and `noData` name the two that are answers, not failures). One that escapes
 * a run ends the job like an UpstreamError (refunded).
 */
export class DnsLookupError extends UpstreamError {
  constructor (readonly code: string, readonly domain: string, readonly rrtype: string) {
    super(`DNS ${rrtype} lookup for ${domain} failed (${code})`)
    this.name = 'DnsLookupError'
  }

  /** The name does not exist. */
  get nxdomain (): boolean { return this.code === 'ENOTFOUND' }
  /** The name exists but has no record of this type. */
  get noData (): boolean { return this.code === 'ENODATA' }
}

// ---------------------------------------------------------------- shared state

/**
 * State a plugin keeps across jobs *and processes* (engine health, cooldowns,
 * politeness spacing), handed to `createState(settings, { shared })`. With
 * REDIS_URL it lives in Redis, shared by every API and worker process; without,
 * in this process's memory (bounded). Keys are the plugin's own: the kernel
 * prefixes them with the tool key, so two plugins never meet. Values are JSON.
 * While Redis is unreachable each process falls back to its own memory (logged),
 * so a call never fails for want of Redis. See core/tools/README.md.
 */
export interface SharedState {
  /** Adds `by` (default 1) and returns the new value; `ttlMs`, when given, is set when the counter is created and it expires then. */
  increment (key: string, by?: number, ttlMs?: number): Promise<number>
  /** The value last set under `key`, or undefined (never set, expired or deleted). */
  getJson<T = unknown> (key: string): Promise<T | undefined>
  /** Sets `key` to a JSON value, for `ttlMs` when given (else until deleted). */
  setJson (key: string, value: unknown, ttlMs?: number): Promise<void>
  delete (key: string): Promise<void>
  /**
   * Politeness spacing (one request a second to Nominatim, from the whole
   * cluster): waits until it is this caller's turn at `key` and resolves with
   * `done`, to call when the request is over (in a finally). One turn at a time
   * per key; a turn starts at least `intervalMs` after the previous one was
   * done, so the upstream sees the gap even when a connection was slow to open.
   * A turn not done within `maxTurnMs` (default 60 s; a process died holding
   * it) counts as done then. Rejects with the signal's reason when it aborts.
   */
  waitTurn (key: string, intervalMs: number, options?: { signal?: AbortSignal, maxTurnMs?: number }): Promise<() => void>
}

/** What `createState` gets besides the settings. */
export interface ToolStateKit {
  /** The plugin's shared state (its keys prefixed with the tool key). */
  shared: SharedState
  /**
   * State several plugins share: every plugin naming the same group (lower-case
   * letters, digits and dashes) reads and writes the same keys, e.g. what the
   * media tools observe of each platform. Same semantics as `shared`.
   */
  sharedGroup (name: string): SharedState
}

// ---------------------------------------------------------------- context

export interface UpstreamConfig {
  /** Base URLs from tools.config.json (`upstream`), e.g. { nominatim: 'https://nominatim.openstreetmap.org' }. */
  urls: Readonly<Record<string, string>>
  /** Credential variable names from tools.config.json (`credentials`), e.g. { serper: 'SERPER_API_KEY' }. */
  credentialNames: Readonly<Record<string, string>>
  /** The value of a credential, or undefined when its variable is unset. */
  credential (name: string): string | undefined
  /** The value of a credential, or throws MissingCredentialError naming the variable. */
  requireCredential (name: string, what?: string): string
}

/** A file for ctx.artifact: a stream (Node or web) or async iterable is written as it comes, never held whole. */
export interface ArtifactFile {
  /** Shown to the downloader; made safe by the kernel (no path separators or control characters, at most 200 characters). */
  name: string
  /** `type/subtype`; anything else is stored as application/octet-stream. */
  contentType: string
  body: NodeJS.ReadableStream | AsyncIterable<Uint8Array> | Buffer
}

/** A stored file. `url` is a path on this server (`/api/tool-run/<job>/artifacts/<id>`), like a job's status_url: put it in the row. */
export interface ArtifactRef { id: string, url: string, name: string, size: number, contentType: string }

/** The file uploaded with the job's start (multipart tool-run), on local disk, read-only to the tool. */
export interface UploadedFile { path: string, name: string, size: number, contentType: string }

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

export interface ToolContext<Input = Record<string, unknown>, Row = Record<string, unknown>, Settings = Record<string, unknown>> {
  /** Validated, defaulted and clamped by the kernel. */
  input: Readonly<Input>
  /**
   * The operator's settings (tools.config.json `settings`) with the declaration's
   * `settings` schema defaults filled in, validated at boot and frozen: the same
   * object for every job of the app.
   */
  settings: Readonly<Settings>
  job: { id: string, accountId: string, tool: string }
  /** Rows this run may still push before the per-run ceiling. */
  remaining (): number
  /** Cancel, timeout, shutdown: honour it. */
  signal: AbortSignal
  log: Logger
  http: HttpClient
  crawler: CrawlerFactory
  network: NetworkPolicy
  /** Parsing and scanning off the event loop (the app's worker pool), bound to this job's signal. */
  extract: Extraction
  /** yt-dlp, ffmpeg and ffprobe, guarded (see ProcessRunner), bound to this job's signal. */
  exec: ProcessRunner
  /** MX/TXT/A/AAAA lookups with time and size limits, bound to this job's signal. */
  dns: DnsResolver
  upstream: UpstreamConfig
  /** Validates, stores and counts rows; drops what passes the per-run cap. Returns how many were kept. */
  push (rows: Row[]): Promise<number>
  /** Human-readable progress shown by status, WebSocket and the agent endpoint. */
  stage (text: string): void
  /** Explains why an empty (or short) run was empty. */
  warn (text: string): void
  /** Job-level extras (related searches, answer box, engine used) kept beside the rows. */
  summary (data: Record<string, unknown>): void
  /** The source refused: ends the job blocked and refunded. */
  blocked (reason: string): never
  /**
   * Runs another tool inside this job (no extra charge, same signal and guard)
   * and returns its rows: maps' deep scan uses webemail, adleads uses maps,
   * fbads and gads. The key must be one the declaration lists in `uses` (boot
   * refuses a config that enables this tool without them, so it is always
   * there). Its rows are not stored; push what you build from them.
   */
  tools: { run (key: string, input: Record<string, unknown>, options?: { maxRows?: number }): Promise<Array<Record<string, unknown>>> }
  /** The plugin's own state (see ToolDeclaration.createState). */
  state: unknown
  /**
   * Stores a file the tool produced, streamed to the artifact store and kept
   * and deleted with the job's rows (core/artifacts/README.md). Past the tier's
   * per-file or per-job cap it throws FileTooLargeError (the partial file is
   * removed); on cancel or timeout it rejects with the job's abort reason.
   */
  artifact (file: ArtifactFile): Promise<ArtifactRef>
  /** A private directory for this job's temporary files (created on first call, 0700), removed when the job ends, however it ends. */
  scratchDir (): Promise<string>
  /** The file uploaded with this job's start (declaration `upload`), or null. Removed when the job ends. */
  upload: UploadedFile | null
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
   * instead ("facebook" for a Google ads tool). A task that says all the words
   * of one lowers this tool's score. Added to the declaration's own `notFor`.
   */
  notFor?: string[]
}

export interface ToolEndpoint {
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
  handle (args: { state: unknown, query: Record<string, string>, upstream: UpstreamConfig, proxyConfigured: boolean }): unknown | Promise<unknown>
}

/** Where an older setting name now lives (ToolDeclaration.renamedSettings). */
export interface RenamedSetting {
  to: string
  /** The old setting was in seconds, the new one in milliseconds. */
  fromSeconds?: boolean
}

/** The settings type of a declaration with no `settings` schema: an empty object. */
export type NoSettings = TObject<{}>

export interface ToolDeclaration<Input extends TSchema = TSchema, Row extends TSchema = TSchema, Settings extends TSchema = NoSettings> {
  /** REST tool key (tool-run `tool`). */
  key: string
  title: string
  description: string
  /** REST params schema; also the source of every agent schema. */
  input: Input
  /** One result row. */
  row: Row
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
   */
  createState? (settings: Readonly<Static<Settings>>, kit: ToolStateKit): unknown
  /** Extra read endpoints the tool serves from its state (e.g. GET /api/search/status). */
  endpoints?: ToolEndpoint[]
  /** MCP workflow prompts this tool owns (see WorkflowPrompt). */
  prompts?: WorkflowPrompt[]
  /** Extra REST paths that start this tool's job from their own body shape (see ToolAlias). */
  aliases?: ToolAlias[]
  /** Takes an uploaded file on multipart tool-run (see UploadDeclaration); without it a file is refused (400). */
  upload?: UploadDeclaration
  run (ctx: ToolContext<RunInput<Input>, Static<Row>, Static<Settings>>): Promise<void>
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

// ---------------------------------------------------------------- schema helpers

/** A value that may be null: `Nullable(Type.String())` is `string | null`. */
export function Nullable<T extends TSchema> (schema: T, options: TSchemaOptions = {}) {
  return Type.Union([schema, Type.Null()], options)
}

/**
 * An input field the caller may leave out and a run always has: `value` is its
 * JSON Schema `default`, which the kernel fills in before the run, so
 * `ctx.input` types it as present (RunInput) and run code states no default of
 * its own. `Defaulted(Type.Integer({ minimum: 1 }), 50)`.
 */
export function Defaulted<T extends TSchema, const V extends Static<T>> (schema: T, value: V): TOptional<T & { default: V }> {
  return Type.Optional({ ...schema, default: value }) as unknown as TOptional<T & { default: V }>
}

type DefaultedKeys<Properties extends TProperties> = { [K in keyof Properties]: Properties[K] extends { default: unknown } ? K : never }[keyof Properties]

/**
 * What a run reads as `ctx.input`: the input schema's type with every
 * `Defaulted` field present, since the kernel applied the defaults before the run.
 */
export type RunInput<Input extends TSchema> = Input extends TObject<infer Properties extends TProperties>
  ? Static<Input> & Required<Pick<Static<Input>, DefaultedKeys<Properties> & keyof Static<Input>>>
  : Static<Input>

/**
 * A list input as the caller gave it: trimmed, blanks and repeats dropped, and
 * cut to the rows this run may still push (with a warning saying so).
 */
export function batchOf (ctx: Pick<ToolContext, 'remaining' | 'warn'>, values: Iterable<string>, noun: string): string[] {
  const items = [...new Set([...values].map(v => v.trim()).filter(v => v !== ''))]
  const room = Math.max(0, ctx.remaining())
  if (items.length > room) {
    ctx.warn(`Only the first ${room} of ${items.length} ${noun} were checked: the per-run row limit was reached.`)
    items.length = room
  }
  return items
}

export function defineTool<Input extends TSchema, Row extends TSchema, Settings extends TSchema = NoSettings> (declaration: ToolDeclaration<Input, Row, Settings>): ToolDeclaration<Input, Row, Settings> {
  return declaration
}

// ---------------------------------------------------------------- yt-dlp outcomes
// Pure and light (no library): what a failed yt-dlp run means for the job.
export { ytdlpFailure, ytdlpRefusal, type YtdlpRefusalKind } from '../exec/ytdlp-failures.ts'

// ---------------------------------------------------------------- shared helpers
// What plugins share beyond this contract (page scanners, sitemaps, domains,
// JSON readers, a semaphore) is the plugin library (the `lib` folder beside the plugins; see its
// README): plugin code the kernel never imports.
