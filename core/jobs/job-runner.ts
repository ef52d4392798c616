// Runs one job: claims it, builds the tool context (the one place a
// ToolContext is made, for the job's run and every nested run), and hands the
// run to the supervisor (run-supervisor.ts: signal, timeout, outcome through
// JobEnding) with a row recorder (row-recorder.ts: rows, cap, heartbeat).
// Holds this process's running jobs, reachable from outside only through the
// RunningJobs port (running-jobs.ts).
import { dirname } from 'node:path'
import type { Logger } from 'pino'
import type { AppConfig } from '../config.ts'
import type { Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import type { QuotaService } from '../quotas/quota-service.ts'
import { MB, storedTier, tierLimits } from '../quotas/tiers.ts'
import type { SecretScrubber } from '../secrets/secret-scrubber.ts'
import type { ToolRegistry, LoadedTool } from '../tools/registry.ts'
import { ToolBlockedError, ToolConfigError, type NestedRow, type ToolContext, type UploadedFile } from '../tools/contract.ts'
import { upstreamConfig } from '../tools/upstream-config.ts'
import type { JobEnding } from './job-ending.ts'
import type { JobEvents } from './job-events.ts'
import type { JobRow, LiveOverlay } from './job-view.ts'
import type { NetFactory } from '../net/net-factory.ts'
import { RowRecorder, type RunSink } from './row-recorder.ts'
import { newLiveRun, raceAbort, stopRun, superviseRun, type LiveRun, type StopReason } from './run-supervisor.ts'
import type { RunningJobs } from './running-jobs.ts'
import type { ExtractionPool } from '../workers/extraction-pool.ts'
import { createExtraction } from '../workers/extraction.ts'
import type { ExecService } from '../exec/process-runner.ts'
import type { RunFileBudget } from '../exec/sandbox.ts'
import type { ArtifactService } from '../artifacts/artifact-service.ts'
import type { JobWorkspace, StoredUpload } from '../artifacts/job-workspace.ts'
import type { Metrics } from '../metrics/metrics.ts'
import { inSpan } from '../telemetry/tracing.ts'
import { observedCrawlers, observedHttpClient } from './observed-network.ts'

/**
 * What `execute` did with a job, for the queue that offered it: `ended` (it ran,
 * or was found ended after the claim), `requeued` (a shutdown handed it back, or
 * this runner is shutting down: offer it again elsewhere), `not-claimed` (another
 * worker has it, or it ended before: nothing to do), `at-cap` (its account has
 * its running cap's worth claimed: offer it again later).
 */
export type RunResult = 'ended' | 'requeued' | 'not-claimed' | 'at-cap'

/** The job row fields a run reads. */
type RunJob = JobRow & { maxRecords: number, retentionHours: number, tier: string, upload: string | null }

/** Where a run stands: its signal and logger, how deep it is nested, and the rows a nested run it starts may return by default. */
interface RunScope { signal: AbortSignal, log: Logger, depth: number, maxRows: number }

/** A tool may run a tool that runs a tool; deeper than that is a loop. */
const MAX_NESTING = 2

export class JobRunner implements RunningJobs {
  private readonly live = new Map<string, LiveRun>()
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
    metrics: Metrics
  }) {}

  /** Asks a job running here to stop; false when it is not running in this process. */
  private stop (jobId: string, reason: StopReason): boolean {
    const live = this.live.get(jobId)
    if (!live) return false
    stopRun(live, reason)
    return true
  }

  progressOf (jobId: string): LiveOverlay | undefined {
    const live = this.live.get(jobId)
    return live && { stage: live.stage, records: live.records }
  }

  async cancel (jobId: string): Promise<boolean> {
    const live = this.live.get(jobId)
    if (!live || !this.stop(jobId, 'cancelled')) return false
    await live.done
    return true
  }

  isRunningHere (jobId: string): boolean {
    return this.live.has(jobId)
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
    const { live, letGo } = newLiveRun()
    this.live.set(jobId, live)
    const { metrics } = this.deps
    const labels = { tool: job.tool }
    metrics.jobsStarted.inc(labels)
    metrics.queueWait.observe(labels, Math.max(0, now.getTime() - job.createdAt.getTime()) / 1000)
    metrics.jobsRunning.inc(labels)
    let result: RunResult = 'ended'
    try {
      // The run's span: a child of the start's request (its trace context came with the offer, core/jobs/README.md).
      await inSpan('job run', { 'job.id': jobId, 'job.tool': job.tool }, async () => {
        if (!tool) await this.deps.ending.endJob(job, { status: 'error', error: `The tool '${job.tool}' is no longer enabled on this server.`, refund: true })
        else result = await this.runTool(job, tool, live)
      })
    } catch (err) {
      logger.error({ err, jobId }, 'job bookkeeping failed')
    } finally {
      metrics.jobsRunning.dec(labels)
      this.live.delete(jobId)
      this.deps.artifacts.endRun(jobId)
      letGo()
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
    const { net, config, metrics } = this.deps
    const { signal, log, depth, maxRows } = scope
    // The tool's proxy choice (tools.config.json `proxy`): one chooser for all of the run's ways out, so PROXY_ROTATION=job holds for them all.
    const proxies = tool.config.proxy === 'none' ? null : net.proxies.chooser()
    // Counted under the job's tool, whichever tool (nested or not) makes the request.
    const http = observedHttpClient(net.http(signal, proxies), job.tool, metrics, signal)
    const extract = createExtraction(this.deps.extraction, signal, metrics)
    const ctx: ToolContext = {
      input: Object.freeze(input),
      job: { id: job.id, accountId: job.accountId, tool: tool.declaration.key },
      signal,
      log,
      http,
      crawler: observedCrawlers(net.crawlers(signal, { extract, logger: log, proxies }), job.tool, metrics, signal),
      network: net.policy(),
      extract,
      dns: net.dns(signal),
      // Local inputs only from the job's own folder (its upload's and scratch's parent); stderr without the server's paths.
      exec: this.deps.exec.forJob(signal, log, { localRoots: [dirname(dirname(this.deps.workspace.uploadPath(job.id)))], withoutServerPaths: text => this.deps.secrets.withoutServerPaths(text), files: this.execFiles(job), programs: (tool.declaration.programs ?? []).map(program => program.name), proxies }),
      settings: tool.settings,
      upstream: upstreamConfig(tool, config),
      state: tool.state,
      // runNested checks each row against the nested tool's row schema, which is the type NestedRow names.
      tools: { run: (key, nestedInput, options) => this.runNested(job, tool, key, nestedInput, { signal, log, depth: depth + 1, maxRows: options?.maxRows ?? maxRows }) as Promise<Array<NestedRow<typeof key>>> },
      remaining: sink.remaining,
      push: sink.push,
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

  /** Runs the plugin with a row recorder as its sink, under the supervisor, which ends the job (or hands it back). */
  private async runTool (job: RunJob & { input: string, columns: string | null }, tool: LoadedTool, live: LiveRun): Promise<RunResult> {
    const { config, logger } = this.deps
    const log = logger.child({ jobId: job.id, tool: job.tool })
    const signal = live.controller.signal
    const recorder = new RowRecorder(this.deps, job, tool.rowCheck, live, signal, reason => stopRun(live, reason))
    const { ctx, close } = this.toolContext(job, tool, JSON.parse(job.input), { signal, log, depth: 0, maxRows: job.maxRecords }, recorder.sink())
    return superviseRun(this.deps.ending, {
      job,
      live,
      recorder,
      run: () => tool.declaration.run(ctx),
      close,
      timeoutSeconds: tool.declaration.timeoutSeconds ?? config.jobTimeoutSeconds,
      heartbeatMs: config.jobHeartbeatMs,
      log,
    })
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
