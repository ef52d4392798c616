// The one fake ToolContext kit: every plugin test under test/plugins/ that
// calls a plugin's run(ctx) without the kernel builds its context here.
//
//   const run = toolContext(websearch, { query: 'x' }, { urls: { serper: base } })
//   await websearch.run(run.ctx)
//   run.rows, run.stages, run.warnings, run.summaries, run.http.requests
//
// What the kernel does, done the same way: settings are the plugin's schema
// defaults under `settings` (readToolSettings: a bad one throws ConfigError as
// the boot would), state is `createState(settings, { shared })` (memory), pushed rows are checked
// against the row schema and cut at the per-run ceiling, `blocked` throws
// ToolBlockedError, credentials missing throw MissingCredentialError naming the
// variable. What reaches out is real but local, and injectable:
// - `http`: a client over global fetch that refuses anything but loopback (and
//   records each request), so a test can never reach the internet;
// - `dns`: the kernel's own guarded resolver (core/net/dns-resolver.ts), refusing
//   the system's resolvers: point a plugin at a local DNS server through its
//   `dns_servers` setting;
// - `extract`: the same `call`/`ready` as the worker pool, run in this thread
//   (a parser's error becomes ExtractionError, as from the pool);
// - `network`: the kernel's policy, recording every address checked;
// - `crawler`, `tools.run`: refuse unless given.
import pino from 'pino'
import { Value } from 'typebox/value'
import {
  ExtractionError, MissingCredentialError, ToolBlockedError,
  type ArtifactFile, type ArtifactRef, type CrawlerFactory, type ProcessRunner, type UploadedFile, type DnsOptions, type DnsResolver, type Extraction, type GuardedRequestInit,
  type HttpClient, type NetworkPolicy, type TSchema, type ToolContext, type ToolDeclaration,
} from '../../core/tools/contract.ts'
import { createNetworkPolicy } from '../../core/net/network-policy.ts'
import { createDnsResolver } from '../../core/net/dns-resolver.ts'
import { readToolSettings } from '../../core/tools/tool-settings.ts'
import { MemorySharedState } from '../../core/shared-state/memory-shared-state.ts'
import { groupSharedState } from '../../core/shared-state/shared-state.ts'

/** The declaration's createState, as the kernel calls it once per app, over a fresh memory shared state. */
function fakeState (tool: DeclarationLike, settings: unknown): unknown {
  const memory = new MemorySharedState()
  return tool.createState?.(settings as never, { shared: memory.forTool(tool.key), sharedGroup: group => groupSharedState(memory, group) })
}

function assertLoopback (url: string | URL): void {
  const host = new URL(url).hostname
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') throw new Error(`test network guard: refused ${url}`)
}

/** ctx.http for tests: global fetch to loopback only, every request recorded as "METHOD url". */
export function loopbackHttp (): HttpClient & { requests: string[] } {
  const requests: string[] = []
  const client = {
    requests,
    async fetch (url: string | URL, init: GuardedRequestInit = {}): Promise<Response> {
      assertLoopback(url)
      requests.push(`${init.method ?? 'GET'} ${url}`)
      const { timeoutMs, maxRedirects, maxBytes, signal, ...rest } = init
      void maxRedirects; void maxBytes
      const timeout = AbortSignal.timeout(timeoutMs ?? 5000)
      return fetch(url, { ...rest, signal: signal ? AbortSignal.any([signal, timeout]) : timeout })
    },
    async text (url: string | URL, init?: GuardedRequestInit) {
      const res = await client.fetch(url, init)
      // Every redirect hop is checked the same way the kernel's guard would.
      assertLoopback(res.url || url)
      return { status: res.status, url: res.url, headers: res.headers, body: await res.text() }
    },
    async json<T = unknown> (url: string | URL, init?: GuardedRequestInit) {
      const res = await client.text(url, init)
      return { ...res, body: JSON.parse(res.body) as T }
    },
  }
  return client
}

/** ctx.extract in this thread: the pool's contract (call a module's export, ready loads modules) without workers. */
export function inlineExtraction (): Extraction & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    async call<T> (module: URL, name: string, args: unknown[]): Promise<T> {
      calls.push(`${module.pathname.split('/').slice(-2).join('/')}#${name}`)
      const fn = (await import(module.href) as Record<string, unknown>)[name]
      if (typeof fn !== 'function') throw new TypeError(`${module.href} has no exported function ${name}`)
      try {
        // Arguments and results cross a thread boundary in the pool: clone them here too.
        return structuredClone(await (fn as (...a: unknown[]) => unknown)(...structuredClone(args))) as T
      } catch (err) {
        throw new ExtractionError(`parsing failed: ${(err as Error).message}`, 'failed')
      }
    },
    async ready (modules: URL[] = []) { await Promise.all(modules.map(module => import(module.href))) },
  }
}

/**
 * ctx.dns for tests: the kernel's own resolver, but only once pointed at servers
 * (`using({ servers })`, e.g. from a tool's dns_servers setting): the system's
 * resolvers would reach the internet, so a lookup without servers is refused.
 */
export function localOnlyDns (signal: AbortSignal, options: DnsOptions = {}): DnsResolver {
  const real = createDnsResolver(signal, options)
  const servers = options.servers ?? []
  const refuse = (name: string) => Promise.reject(new Error(`test DNS guard: refused a lookup of ${name} through the system's resolvers; point the tool at a local DNS server (its dns_servers setting) or pass dns`))
  const guarded = (lookup: (name: string) => Promise<any>) => (name: string) => (servers.length > 0 ? lookup(name) : refuse(name))
  return {
    mx: guarded(real.mx),
    txt: guarded(real.txt),
    a: guarded(real.a),
    aaaa: guarded(real.aaaa),
    using: more => localOnlyDns(signal, { ...options, ...more }),
  }
}

/** The kernel's network policy, recording every address a plugin asks about. */
export function testNetworkPolicy (allowPrivateTargets: boolean): NetworkPolicy & { checked: string[] } {
  const policy = createNetworkPolicy({ allowPrivateTargets })
  const checked: string[] = []
  return {
    allowPrivateTargets,
    checked,
    assertAllowedAddress (address: string, label?: string) {
      checked.push(address)
      policy.assertAllowedAddress(address, label)
    },
  }
}

export interface ToolContextOptions {
  /** tools.config.json `settings`; the declaration's schema fills the defaults in (a bad one throws ConfigError). */
  settings?: Record<string, unknown>
  /** ctx.state (default: the declaration's createState(settings), as the kernel makes it once per app). */
  state?: unknown
  /** tools.config.json `upstream` base URLs. */
  urls?: Record<string, string>
  /** Credential values by name (`serper: 'key'`) and the variables they come from (`serper: 'SERPER_API_KEY'`). */
  credentials?: Record<string, string>
  credentialNames?: Record<string, string>
  /** Rows this run may push (the tier's per-run ceiling; default 10,000). */
  cap?: number
  /** Check pushed rows against the declaration's row schema, as the kernel does (default true). */
  checkRows?: boolean
  signal?: AbortSignal
  allowPrivateTargets?: boolean
  http?: HttpClient
  dns?: DnsResolver
  extract?: Extraction
  crawler?: CrawlerFactory
  /** ctx.tools.run for a composite tool (default: refuses). */
  runTool?: ToolContext['tools']['run']
  /** ctx.exec (default: refuses; media plugins pass a runner or test through the kernel). */
  exec?: ProcessRunner
  /** ctx.scratchDir's directory (default: refuses). */
  scratchDir?: string
  /** ctx.upload (default null). */
  upload?: UploadedFile | null
}

export interface FakeToolRun<Row, Input, Settings> {
  ctx: ToolContext<Input, Row, Settings>
  rows: Row[]
  /** Each push call's rows, in order: shows rows arriving as they finish. */
  pushes: Row[][]
  stages: string[]
  warnings: string[]
  summaries: Array<Record<string, unknown>>
  /** Each stored file with its bytes. */
  artifacts: Array<ArtifactRef & { data: Buffer }>
  network: ReturnType<typeof testNetworkPolicy>
  /** ctx.http when it is the kit's loopback client (else the one given). */
  http: HttpClient & { requests?: string[] }
}

type DeclarationLike = Pick<ToolDeclaration<TSchema, TSchema, TSchema>, 'key' | 'row'> & Partial<Pick<ToolDeclaration<TSchema, TSchema, TSchema>, 'settings' | 'createState' | 'input'>>

export function toolContext<Row = Record<string, unknown>, Input = any, Settings = any> (tool: DeclarationLike, given: Partial<Input>, options: ToolContextOptions = {}): FakeToolRun<Row, Input, Settings> {
  // The kernel fills the input schema's defaults in before a run (registry.prepareInput).
  const input = (tool.input && given !== null && typeof given === 'object' ? Value.Default(tool.input, structuredClone(given)) : given) as Input
  const cap = options.cap ?? 10_000
  const rows: Row[] = []
  const pushes: Row[][] = []
  const stages: string[] = []
  const warnings: string[] = []
  const summaries: Array<Record<string, unknown>> = []
  const artifacts: FakeToolRun<Row, Input, Settings>['artifacts'] = []
  const signal = options.signal ?? new AbortController().signal
  const settings = readToolSettings(tool as Parameters<typeof readToolSettings>[0], options.settings) as Settings
  const network = testNetworkPolicy(options.allowPrivateTargets ?? true)
  const http = options.http ?? loopbackHttp()
  const credentials = options.credentials ?? {}
  const credentialNames = options.credentialNames ?? {}
  const refuse = (what: string) => () => { throw new Error(`${what} is not set up in this test (pass it to toolContext)`) }
  const ctx: ToolContext<Input, Row, Settings> = {
    input,
    settings,
    job: { id: 'job-test', accountId: 'account-test', tool: tool.key },
    remaining: () => Math.max(0, cap - rows.length),
    signal,
    log: pino({ level: 'silent' }),
    http,
    // Whatever crawler kind the plugin asks for, refused unless one was given.
    crawler: options.crawler ?? new Proxy({}, { get: (_target, kind) => refuse(`ctx.crawler.${String(kind)}`) }) as CrawlerFactory,
    network,
    dns: options.dns ?? localOnlyDns(signal),
    extract: options.extract ?? inlineExtraction(),
    upstream: {
      urls: options.urls ?? {},
      credentialNames,
      credential: (name: string) => credentials[name],
      requireCredential (name: string, what = 'This tool') {
        const value = credentials[name]
        if (!value) throw new MissingCredentialError(credentialNames[name] ?? name, what)
        return value
      },
    },
    async push (batch: Row[]) {
      if (options.checkRows ?? true) {
        for (const row of batch) {
          if (!Value.Check(tool.row, row)) throw new Error(`row does not match the row schema: ${JSON.stringify([...Value.Errors(tool.row, row)].slice(0, 3))}`)
        }
      }
      const kept = batch.slice(0, Math.max(0, cap - rows.length))
      rows.push(...kept)
      pushes.push(kept)
      return kept.length
    },
    stage: (text: string) => { stages.push(text) },
    warn: (text: string) => { warnings.push(text) },
    summary: (data: Record<string, unknown>) => { summaries.push(data) },
    blocked: (reason: string): never => { throw new ToolBlockedError(reason) },
    tools: { run: options.runTool ?? (refuse('ctx.tools.run') as never) },
    state: 'state' in options ? options.state : fakeState(tool, settings),
    async artifact (file: ArtifactFile) {
      const chunks: Buffer[] = []
      if (Buffer.isBuffer(file.body)) chunks.push(file.body)
      else for await (const chunk of file.body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk))
      const data = Buffer.concat(chunks)
      const id = `artifact-${artifacts.length + 1}`
      const ref: ArtifactRef = { id, url: `/api/tool-run/job-test/artifacts/${id}`, name: file.name, size: data.length, contentType: file.contentType }
      artifacts.push({ ...ref, data })
      return ref
    },
    exec: options.exec ?? { run: refuse('ctx.exec') as never, available: () => false },
    scratchDir: async () => {
      if (options.scratchDir === undefined) throw new Error('ctx.scratchDir is not set up in this test (pass scratchDir to toolContext)')
      return options.scratchDir
    },
    upload: options.upload ?? null,
  }
  return { ctx, rows, pushes, stages, warnings, summaries, artifacts, network, http }
}
