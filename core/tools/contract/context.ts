// What a run gets: ToolContext and the guarded facilities it holds (network,
// media programs, parsing, DNS, shared state, files). Types only, so the
// kernel's implementations and the plugins both import them without a cycle.
import type { Logger } from 'pino'
import type { HttpCrawler, HttpCrawlerOptions, HttpCrawlingContext } from 'crawlee'
import type { Static, TSchema } from 'typebox'
import type { SharedState } from '../../shared-state/shared-state.ts'

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

/** A program ctx.exec runs: the name of a ProgramProfile the tool declares in `programs` (its binary comes from the setting the profile names). */
export type MediaProgram = string

export interface ExecOptions {
  /** Longest the run may take (default EXEC_TIMEOUT_MS); past it the process group is killed and the run throws UpstreamError. */
  timeoutMs?: number
  /** Captured stdout is cut here (default 8 MB; the rest is read and dropped, `stdoutTruncated` says so). */
  maxStdoutBytes?: number
  /** Captured stderr keeps its last this many bytes (default 64 KB). */
  maxStderrBytes?: number
  /**
   * true: the process reaches the network only through the kernel's egress
   * proxy (same policy as ctx.http). false (default): it gets no proxy, or
   * one that refuses everything when its profile says it has no offline switch.
   */
  network?: boolean
  /** Lowers EXEC_NETWORK_MAX_BYTES (bytes through the egress proxy, both ways) for this run. */
  maxNetworkBytes?: number
  /** Working directory, e.g. a job scratch dir (default: a private empty directory). */
  cwd?: string
  /** Stream stdout there instead of capturing it (a program writing its output to stdout). */
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
 * The guarded process runner (core/exec/README.md): the programs the tool
 * declares (`programs`) only; argument arrays only, never a shell; a minimal
 * environment; the job's signal and a time limit kill the whole process group.
 * The program's profile guards its arguments before the run starts: each
 * input an http(s) URL (with `network: true`) or a file of the job's folder
 * (its upload, its scratch); anything else is an InputError. A non-zero exit
 * is returned, not thrown: what it means is the tool's (its library reads
 * stderr). Throws ToolConfigError naming the
 * variable when the binary is missing, BlockedTargetError when the run failed
 * after the egress proxy refused one of its targets, UpstreamError past the
 * time or network limit, and the signal's reason when the job stops. The
 * kernel's limits on the input's own cost are not refunded: InputError past
 * the CPU time or address space of a run, FileTooLargeError past the tier's
 * file caps (one file; the job's scratch with its stored files).
 */
export interface ProcessRunner {
  run (program: MediaProgram, args: string[], options?: ExecOptions): Promise<ExecResult>
  /** Whether the tool declares the program and its binary is installed (its setting names an executable file). */
  available (program: MediaProgram): boolean
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

// ---------------------------------------------------------------- shared state

// SharedState (state a plugin keeps across jobs and processes) is defined
// beside its implementations (core/shared-state) and re-exported here: the
// port belongs to the state, the contract hands it to plugins.
export type { SharedState }

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

// ---------------------------------------------------------------- upstreams and files

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

/** What a run gets: its input and settings, the guarded facilities bound to its job, and the ways to report. */
/**
 * The tools other tools run through `ctx.tools.run`, by key: a plugin whose
 * tool another one runs adds its declaration here, beside its default export,
 * so the caller gets that tool's input and row types without importing it:
 *
 *   const feeds = defineTool({ key: 'feeds', ... })
 *   export default feeds
 *   declare module '../../core/tools/contract.ts' { interface NestedTools { feeds: typeof feeds } }
 */
export interface NestedTools {}

type NestedPart<K extends string, Part extends 'input' | 'row'> = K extends keyof NestedTools
  ? NestedTools[K] extends { [P in Part]: infer S extends TSchema } ? Static<S> : Record<string, unknown>
  : Record<string, unknown>
/** The params `ctx.tools.run(key, …)` takes: the nested tool's REST input (defaulted fields may be left out). */
export type NestedInput<K extends string> = NestedPart<K, 'input'>
/** A row `ctx.tools.run(key, …)` returns: the nested tool's row, validated by the kernel. */
export type NestedRow<K extends string> = NestedPart<K, 'row'>

/** Runs another tool inside a job (ToolContext.tools). */
export interface NestedToolRunner {
  run<K extends string> (key: K, input: NestedInput<K>, options?: { maxRows?: number }): Promise<Array<NestedRow<K>>>
}

export interface ToolContext<Input = Record<string, unknown>, Row = Record<string, unknown>, Settings = Record<string, unknown>, State = unknown> {
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
  /** The programs the tool declares (`programs`), guarded (see ProcessRunner), bound to this job's signal. */
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
   * there). Its rows are not stored; push what you build from them. Input and
   * rows are typed by the nested tool's declaration (NestedTools).
   */
  tools: NestedToolRunner
  /** The plugin's own state: what its declaration's `createState` returned, typed as such. */
  state: State
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

