// Runs one job: claims it, builds the tool context, runs the plugin under its
// abort signal (cancel, timeout, per-run cap, shutdown), stores rows as they
// arrive, and hands the outcome to JobEnding.endJob, the one way a job ends.
// See core/jobs/README.md for the outcome table.
import { setMaxListeners } from 'node:events'
import { dirname } from 'node:path'
import type { Logger } from 'pino'
import type { AppConfig } from '../config.ts'
import type { Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import type { QuotaService } from '../quotas/quota-service.ts'
import { MB, storedTier, tierLimits } from '../quotas/tiers.ts'
import { withoutUrlQueries, type SecretScrubber } from '../secrets/secret-scrubber.ts'
import type { ToolRegistry, LoadedTool } from '../tools/registry.ts'
import { JobOutcomeError, MissingCredentialError, ToolBlockedError, ToolConfigError, type ToolContext, type UploadedFile, type UpstreamConfig } from '../tools/contract.ts'
import { CANCELLED, timedOut, type JobEnd, type JobEnding } from './job-ending.ts'
import type { JobEvents } from './job-events.ts'
import type { JobRow, LiveOverlay } from './job-view.ts'
import type { NetFactory } from './net-factory.ts'
import type { ExtractionPool } from '../workers/extraction-pool.ts'
import { createExtraction } from '../workers/extraction.ts'
import type { ExecService } from '../exec/process-runner.ts'
import type { RunFileBudget } from '../exec/sandbox.ts'
import type { ArtifactService } from '../artifacts/artifact-service.ts'
import type { JobWorkspace, StoredUpload } from '../artifacts/job-workspace.ts'

/** How a run left: an ending, or (shutdown) back to the queue. */
type Outcome = JobEnd | { status: 'requeue' }

/**
 * What `execute` did with a job, for the queue that offered it: `ended` (it ran,
 * or was found ended after the claim), `requeued` (a shutdown handed it back, or
 * this runner is shutting down: offer it again elsewhere), `not-claimed` (another
 * worker has it, or it ended before: nothing to do), `at-cap` (its account has
 * its running cap's worth claimed: offer it again later).
 */
export type RunResult = 'ended' | 'requeued' | 'not-claimed' | 'at-cap'

/**
 * Why a run's signal fired: each ends the job differently. `ended`: the job
 * already ended outside this runner (a cancel or the reaper of another process
 * sharing the database), seen on the heartbeat.
 */
type StopReason = 'cancelled' | 'timeout' | 'cap' | 'shutdown' | 'ended'

class StopSignal extends Error {
  constructor (readonly reason: StopReason) { super(reason); this.name = 'StopSignal' }
}

/** The job row fields a run reads. */
type RunJob = JobRow & { maxRecords: number, retentionHours: number, tier: string, upload: string | null }

/** Where a run stands: its signal and logger, how deep it is nested, and the rows a nested run it starts may return by default. */
interface RunScope { signal: AbortSignal, log: Logger, depth: number, maxRows: number }

/** What differs between a job's own run and a nested one: where its rows and texts go. */
type RunSink = Pick<ToolContext, 'remaining' | 'push' | 'stage' | 'warn' | 'summary'>

/** A tool may run a tool that runs a tool; deeper than that is a loop. */
const MAX_NESTING = 2

export interface LiveJob extends LiveOverlay {
  controller: AbortController
  stopReason: StopReason | null
  done: Promise<void>
}

export class JobRunner {
  readonly live = new Map<string, LiveJob>()
  private shuttingDown = false

  constructor (private readonly deps: {
    db: Db
    registry: ToolRegistry
    quotas: QuotaService
    clock: Clock
    config: AppConfig
    logger: Logger
    secrets: SecretScrubber
    events: JobEvents
    net: NetFactory
    extraction: ExtractionPool
    exec: ExecService
    ending: JobEnding
    artifacts: ArtifactService
    workspace: JobWorkspace
  }) {}

  /** Asks a job running here to stop; false when it is not running in this process. */
  stop (jobId: string, reason: StopReason): boolean {
    const live = this.live.get(jobId)
    if (!live) return false
    live.stopReason ??= reason
    live.controller.abort(new StopSignal(reason))
    return true
  }

  /** Shutdown: running jobs go back to the queue (rows cleared) to be resumed at the next start. */
  async shutdown (): Promise<void> {
    this.shuttingDown = true
    for (const id of this.live.keys()) this.stop(id, 'shutdown')
    await Promise.allSettled([...this.live.values()].map(l => l.done))
  }

  /**
   * Claims and runs one job. `cap`: the distributed queue's fair-share rule
   * (core/jobs/README.md): the claim stands only while the account has no more
   * than `maxRunning` claimed jobs across every process sharing the database;
   * else it is undone and the job waits its turn (`at-cap`). The embedded queue
   * keeps that count itself and passes no cap.
   */
  async execute (jobId: string, cap?: { accountId: string, maxRunning: number }): Promise<RunResult> {
    if (this.shuttingDown) return 'requeued'
    const { db, quotas, clock, registry, logger } = this.deps
    // The account's claimed jobs in the whole cluster: the per-tier caps' own count (one
    // hot-reader statement, always a fresh read), not a Prisma query on every job's start.
    const claimedByAccount = cap && (async () => (await quotas.jobCounts(cap.accountId)).running)
    // A cheap look first: most jobs of an account at its cap never write.
    if (claimedByAccount && await claimedByAccount() >= cap.maxRunning) return 'at-cap'
    const now = clock()
    // Claim: only a job still waiting can be taken, so two workers never run one job.
    const claimed = await db.job.updateMany({ where: { id: jobId, status: 'running', startedAt: null }, data: { startedAt: now, heartbeatAt: now, stage: 'starting' } })
    if (claimed.count === 0) return 'not-claimed'
    // Counted after our own claim is written: of two claims racing past the cap,
    // the later count sees both, so at most the cap's number of claims stand.
    if (claimedByAccount && await claimedByAccount() > cap.maxRunning) {
      const undone = await db.job.updateMany({ where: { id: jobId, status: 'running', startedAt: now }, data: { startedAt: null, heartbeatAt: null, stage: 'queued' } })
      return undone.count > 0 ? 'at-cap' : 'not-claimed'
    }
    const job = await db.job.findUniqueOrThrow({ where: { id: jobId } })
    // Cancelled between the claim and this read: nothing to run.
    if (job.status !== 'running') return 'ended'
    const tool = registry.get(job.tool)
    let resolveDone!: () => void
    const controller = new AbortController()
    // Every in-flight request, SMTP session and crawler of the job listens on this
    // one signal; Node's default of 10 listeners would warn on any busy job.
    setMaxListeners(0, controller.signal)
    const live: LiveJob = { controller, stopReason: null, stage: 'starting', records: 0, done: new Promise(resolve => { resolveDone = resolve }) }
    this.live.set(jobId, live)
    let result: RunResult = 'ended'
    try {
      if (!tool) await this.deps.ending.endJob(job, { status: 'error', error: `The tool '${job.tool}' is no longer enabled on this server.`, refund: true })
      else result = await this.runTool(job, tool, live)
    } catch (err) {
      logger.error({ err, jobId }, 'job bookkeeping failed')
    } finally {
      this.live.delete(jobId)
      this.deps.artifacts.endRun(jobId)
      resolveDone()
    }
    return result
  }

  /**
   * The one place a ToolContext is built, for the job's own run and for every
   * nested `ctx.tools.run`: the guarded network, upstream config, state, nested
   * runs, `blocked` and artifacts are the same for both; only where rows and
   * texts go (`sink`) differs. `close` releases the run's HTTP client.
   */
  private toolContext (job: RunJob, tool: LoadedTool, input: Record<string, unknown>, scope: RunScope, sink: RunSink): { ctx: ToolContext, close: () => Promise<void> } {
    const { net, config } = this.deps
    const { signal, log, depth, maxRows } = scope
    const http = net.http(signal)
    const extract = createExtraction(this.deps.extraction, signal)
    const ctx: ToolContext = {
      input: Object.freeze(input),
      job: { id: job.id, accountId: job.accountId, tool: tool.declaration.key },
      signal,
      log,
      http,
      crawler: net.crawlers(signal, { extract, logger: log }),
      network: net.policy(),
      extract,
      dns: net.dns(signal),
      // Local inputs only from the job's own folder (its upload's and scratch's parent); stderr without the server's paths.
      exec: this.deps.exec.forJob(signal, log, { localRoots: [dirname(dirname(this.deps.workspace.uploadPath(job.id)))], withoutServerPaths: text => this.deps.secrets.withoutServerPaths(text), files: this.execFiles(job) }),
      settings: tool.settings,
      upstream: upstreamConfig(tool, config),
      state: tool.state,
      tools: { run: (key, nestedInput, options) => this.runNested(job, tool, key, nestedInput, { signal, log, depth: depth + 1, maxRows: options?.maxRows ?? maxRows }) },
      remaining: sink.remaining,
      push: sink.push as ToolContext['push'],
      stage: sink.stage,
      warn: sink.warn,
      summary: sink.summary,
      blocked: (reason: string): never => { throw new ToolBlockedError(reason) },
      // Files belong to the job whichever run writes them, and count against its caps together.
      artifact: (file) => this.deps.artifacts.save(job, file, signal),
      scratchDir: () => this.deps.workspace.scratchDir(job.id),
      // The upload stands in for a param of the job's own tool: a nested tool never sees it.
      upload: depth === 0 ? this.uploadOf(job) : null,
    }
    return { ctx, close: () => http.close().catch(() => {}) }
  }

  /**
   * Another tool's run inside this job: its input validated and defaulted like a
   * REST call, its rows checked and collected (not stored), its stage texts
   * prefixed into ours. Nesting is bounded so tools cannot call each other forever.
   */
  private async runNested (job: RunJob, caller: LoadedTool, key: string, rawInput: Record<string, unknown>, scope: RunScope): Promise<Array<Record<string, unknown>>> {
    if (scope.depth > MAX_NESTING) throw new Error(`tools may nest at most ${MAX_NESTING} deep`)
    const { registry, secrets } = this.deps
    // Boot refused a config that enables a tool without the tools in its `uses`;
    // a key outside `uses` is the plugin's bug, not the operator's.
    if (!(caller.declaration.uses ?? []).includes(key)) throw new Error(`the tool '${caller.declaration.key}' runs '${key}', which its declaration does not list in uses`)
    const tool = registry.get(key)
    // The operator's to fix, and the same for every call: callers read `needsOperator`, not this text.
    if (!tool) throw new ToolConfigError(`the tool '${key}' this tool relies on is not enabled on this server`)
    const input = registry.prepareInput(tool, rawInput, job.maxRecords)
    const rows: Array<Record<string, unknown>> = []
    const { maxRows } = scope
    const live = this.live.get(job.id)
    const { ctx, close } = this.toolContext(job, tool, input, { ...scope, log: scope.log.child({ nested: key }) }, {
      remaining: () => Math.max(0, maxRows - rows.length),
      push: async (batch) => {
        for (const row of batch) if (!tool.rowCheck.Check(row)) throw new Error(`nested tool '${key}' produced a row outside its schema`)
        const kept = batch.slice(0, Math.max(0, maxRows - rows.length))
        rows.push(...kept)
        return kept.length
      },
      // Shown as the job's stage, prefixed; warnings and summaries are the outer tool's to give.
      stage: (text) => { if (live) live.stage = secrets.scrubJobText(`${key}: ${String(text).slice(0, 400)}`) },
      warn: () => {},
      summary: () => {},
    })
    try {
      await raceAbort(tool.declaration.run(ctx as never), scope.signal)
    } finally {
      await close()
    }
    return rows
  }

  /** Runs the plugin and ends the job (or, at shutdown, hands it back to the queue). */
  private async runTool (job: RunJob & { input: string, columns: string | null }, tool: LoadedTool, live: LiveJob): Promise<RunResult> {
    const { db, quotas, clock, config, logger, events, secrets } = this.deps
    const log = logger.child({ jobId: job.id, tool: job.tool })
    const timeoutSeconds = tool.declaration.timeoutSeconds ?? config.jobTimeoutSeconds
    const timer = setTimeout(() => this.stop(job.id, 'timeout'), timeoutSeconds * 1000)
    const heartbeatMs = config.jobHeartbeatMs
    let warning: string | null = null
    let summary: Record<string, unknown> = {}
    const columns: string[] = job.columns ? JSON.parse(job.columns) : []
    let pushChain: Promise<unknown> = Promise.resolve()
    let lastEmit = 0

    const emitProgress = (force = false) => {
      const t = Date.now()
      if (!force && t - lastEmit < 100) return
      lastEmit = t
      events.emit(job.id, { type: 'progress', job_id: job.id, status: 'running', records: live.records, stage: live.stage })
    }
    // Rows are written as they come (a crash loses none); the job's counters, stage
    // and the account's records_today follow on the heartbeat and at the end, so a
    // push costs one insert. Readers in this process see the live figures.
    let unflushedRecords = 0
    const flushOnce = async () => {
      const records = unflushedRecords
      unflushedRecords = 0
      // One transaction for the job's count and the account's: a worker killed between
      // the two had left rows the reaper saw as counted (job.records) that records_today
      // never had. Conditional: a job ended elsewhere (a cancel or the reaper of another
      // process) keeps its outcome, and this run stops.
      let count: number
      try {
        [{ count }] = await db.$transaction([
          db.job.updateMany({ where: { id: job.id, status: 'running' }, data: { stage: live.stage, records: live.records, heartbeatAt: clock(), columns: JSON.stringify(columns) } }),
          ...quotas.addRecordsStatements(job.accountId, records),
        ])
      } catch (err) {
        unflushedRecords += records // counted at the next heartbeat or the end
        throw err
      }
      if (count === 0) this.stop(job.id, 'ended')
    }
    // One flush at a time: two at once (a slow database, heartbeats 50 ms apart) let the
    // second write the job's count while the first's share of records_today was failing.
    let flushChain: Promise<unknown> = Promise.resolve()
    let flushWaiting = false
    const flush = (): Promise<void> => {
      const next = flushChain.then(flushOnce)
      flushChain = next.catch(() => {})
      return next
    }
    const heartbeat = setInterval(() => {
      if (flushWaiting) return // the last heartbeat's flush has not run yet
      flushWaiting = true
      flush().catch(err => log.warn({ err }, 'heartbeat failed')).finally(() => { flushWaiting = false })
    }, heartbeatMs)

    const push = (rows: Record<string, unknown>[]): Promise<number> => {
      // Pushes are serialised so sequence numbers and the cap stay exact under concurrency.
      const next = pushChain.then(async () => {
        if (live.controller.signal.aborted) return 0
        for (const row of rows) {
          if (!tool.rowCheck.Check(row)) {
            const first = [...tool.rowCheck.Errors(row)][0]
            throw new Error(`plugin '${job.tool}' pushed a row that does not match its row schema at ${first?.instancePath || '/'}: ${first?.message}`)
          }
        }
        const room = job.maxRecords - live.records
        const kept = rows.slice(0, Math.max(0, room))
        if (kept.length > 0) {
          for (const row of kept) for (const k of Object.keys(row)) if (!columns.includes(k)) columns.push(k)
          const start = live.records
          // Rows are the caller's data, kept as they are, except this server's own credential values.
          await db.resultRow.createMany({ data: kept.map((row, i) => ({ jobId: job.id, seq: start + i, data: secrets.redactKnownValues(JSON.stringify(row)) })) })
          live.records += kept.length
          unflushedRecords += kept.length
          emitProgress(true)
        }
        if (live.records >= job.maxRecords) {
          if (rows.length > kept.length) warning ??= `Results stop at ${job.maxRecords} rows, the per-run ceiling of this plan.`
          this.stop(job.id, 'cap')
        }
        return kept.length
      })
      pushChain = next.catch(() => {})
      return next
    }

    const signal = live.controller.signal
    const { ctx, close } = this.toolContext(job, tool, JSON.parse(job.input), { signal, log, depth: 0, maxRows: job.maxRecords }, {
      remaining: () => Math.max(0, job.maxRecords - live.records),
      push,
      // Stage, warning and summary texts leave the server (status, WebSocket, MCP
      // progress, webhooks) and plugins build them from upstream errors: scrubbed here, once.
      stage: (text) => { live.stage = secrets.scrubJobText(String(text).slice(0, 500)); emitProgress() },
      // Several warnings read as one text, in the order they came.
      warn: (text) => { const t = secrets.scrubJobText(String(text).slice(0, 1000)); if (!warning?.includes(t)) warning = warning ? `${warning} ${t}` : t },
      summary: (data) => { summary = { ...summary, ...secrets.scrubJobValue(data) } },
    })

    live.stage = 'running'
    emitProgress(true)
    let outcome: Outcome
    try {
      await raceAbort(tool.declaration.run(ctx), signal)
      await pushChain
      outcome = { status: 'done' }
    } catch (err) {
      await pushChain.catch(() => {})
      outcome = classify(err, live.stopReason, timeoutSeconds)
      if (outcome.status === 'error' && !(err instanceof StopSignal) && !(err instanceof JobOutcomeError)) log.error({ err }, 'tool run failed')
    } finally {
      clearTimeout(timer)
      clearInterval(heartbeat)
      await close()
    }
    await flush().catch(err => log.warn({ err }, 'final flush failed'))
    if (outcome.status === 'requeue') {
      // Ended meanwhile (a cancel from another process): it keeps its outcome.
      return await this.deps.ending.requeue(job.id) ? 'requeued' : 'ended'
    }
    if (outcome.status === 'done' && live.records === 0 && !warning) warning = 'The run finished without results.'
    await this.deps.ending.endJob(job, outcome, {
      records: live.records,
      warning,
      summary: Object.keys(summary).length ? JSON.stringify(summary) : null,
      columns: JSON.stringify(columns),
    })
    return 'ended'
  }

  /** The tier's file caps over what the job's media programs write: one file, and the scratch with the stored files (core/exec/sandbox.ts). */
  private execFiles (job: RunJob): RunFileBudget {
    const tier = storedTier(job.tier)
    const limits = tierLimits(tier)
    return {
      maxFileBytes: limits.max_file_mb * MB,
      maxJobBytes: limits.max_job_files_mb * MB,
      scratchDir: () => this.deps.workspace.scratchDir(job.id),
      storedBytes: () => this.deps.artifacts.storedBytes(job.id),
      describe: { file: `the ${limits.max_file_mb} MB limit of one file of the ${tier} tier`, job: `the ${limits.max_job_files_mb} MB limit of the ${tier} tier` },
    }
  }

  private uploadOf (job: RunJob): UploadedFile | null {
    if (!job.upload) return null
    const stored = JSON.parse(job.upload) as StoredUpload
    return Object.freeze({ path: this.deps.workspace.uploadPath(job.id), name: stored.name, size: stored.size, contentType: stored.content_type })
  }
}

/** Upstream URLs and credentials (trimmed; blank = unset) of one tool: the one reading jobs and tool endpoints share. */
export function upstreamConfig (tool: LoadedTool, config: AppConfig): UpstreamConfig {
  const names = tool.config.credentials ?? {}
  const credential = (name: string) => {
    const variable = names[name]
    const value = variable ? config.env[variable] : undefined
    return value && value.trim() !== '' ? value.trim() : undefined
  }
  return {
    urls: tool.config.upstream ?? {},
    credentialNames: names,
    credential,
    requireCredential: (name: string, what?: string) => {
      const value = credential(name)
      if (value === undefined) throw new MissingCredentialError(names[name] ?? name.toUpperCase(), what ?? `The ${tool.declaration.title} tool`)
      return value
    },
  }
}

/** A plugin that ignores its signal still ends when the signal fires. */
function raceAbort<T> (work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

function classify (err: unknown, stopReason: StopReason | null, timeoutSeconds: number): Outcome {
  switch (stopReason) {
    case 'cap': return { status: 'done' }
    case 'cancelled': return CANCELLED
    case 'timeout': return timedOut(timeoutSeconds)
    case 'shutdown': return { status: 'requeue' }
    // Already ended elsewhere: endJob finds it ended and writes nothing.
    case 'ended': return CANCELLED
  }
  if (err instanceof JobOutcomeError) {
    // What a caller reads of an upstream's failure names the host, never the request's parameters.
    const error = err.quotesUpstream ? withoutUrlQueries(err.jobError) : err.jobError
    return { status: 'error', error, refund: err.refund, blocked: err.blocked }
  }
  return { status: 'error', error: 'The tool failed unexpectedly; the call was refunded. Retry, or report it if it persists.', refund: true }
}
