// Runs one job: claims it, builds the tool context, runs the plugin under its
// abort signal (cancel, timeout, per-run cap, shutdown), stores rows as they
// arrive, and records exactly one outcome, refunding when the caller was not
// at fault. See core/jobs/README.md for the outcome table.
import { setMaxListeners } from 'node:events'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { AppConfig } from '../config.ts'
import { HOUR_MS, type Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import type { QuotaService } from '../quotas/quota-service.ts'
import { withoutUrlQueries, type SecretScrubber } from '../secrets/secret-scrubber.ts'
import type { ToolRegistry, LoadedTool } from '../tools/registry.ts'
import { BlockedTargetError, InputError, MissingCredentialError, ToolConfigError, ToolBlockedError, UpstreamError, type ArtifactRef, type ToolContext, type UpstreamConfig } from '../tools/contract.ts'
import type { JobEvents } from './job-events.ts'
import { jobStatusRecord, type JobRow, type LiveOverlay } from './job-view.ts'
import type { NetFactory } from './net-factory.ts'
import type { WebhookSender } from './webhooks.ts'
import type { ExtractionPool } from '../extract/extraction-pool.ts'
import { createExtraction } from '../extract/extraction.ts'

type Outcome =
  | { kind: 'done' }
  | { kind: 'error', error: string, refund: boolean, blocked?: boolean }
  | { kind: 'requeue' }

/** Why a run's signal fired: each ends the job differently. */
type StopReason = 'cancelled' | 'timeout' | 'cap' | 'shutdown'

class StopSignal extends Error {
  constructor (readonly reason: StopReason) { super(reason); this.name = 'StopSignal' }
}

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
    webhooks: WebhookSender
    extraction: ExtractionPool
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

  async execute (jobId: string): Promise<void> {
    if (this.shuttingDown) return
    const { db, clock, registry, logger } = this.deps
    const now = clock()
    // Claim: only a job still waiting can be taken, so two workers never run one job.
    const claimed = await db.job.updateMany({ where: { id: jobId, status: 'running', startedAt: null }, data: { startedAt: now, heartbeatAt: now, stage: 'starting' } })
    if (claimed.count === 0) return
    const job = await db.job.findUniqueOrThrow({ where: { id: jobId } })
    const tool = registry.get(job.tool)
    let resolveDone!: () => void
    const controller = new AbortController()
    // Every in-flight request, SMTP session and crawler of the job listens on this
    // one signal; Node's default of 10 listeners would warn on any busy job.
    setMaxListeners(0, controller.signal)
    const live: LiveJob = { controller, stopReason: null, stage: 'starting', records: 0, done: new Promise(resolve => { resolveDone = resolve }) }
    this.live.set(jobId, live)
    try {
      const outcome = tool ? await this.runTool(job, tool, live) : { kind: 'error' as const, error: `The tool '${job.tool}' is no longer enabled on this server.`, refund: true }
      await this.finish(job, live, outcome)
    } catch (err) {
      logger.error({ err, jobId }, 'job bookkeeping failed')
    } finally {
      this.live.delete(jobId)
      resolveDone()
    }
  }

  /**
   * Another tool's run inside this job: its input validated and defaulted like a
   * REST call, its rows checked and collected (not stored), its stage texts
   * prefixed into ours. Nesting is bounded so tools cannot call each other forever.
   */
  private async runNested (job: JobRow & { maxRecords: number }, key: string, rawInput: Record<string, unknown>, maxRows: number, signal: AbortSignal, log: Logger, depth: number, caller: string): Promise<Array<Record<string, unknown>>> {
    if (depth >= 2) throw new Error('tools may nest at most two deep')
    // Boot checked that every tool in `uses` is enabled; a key outside it is the plugin's bug.
    const tool = this.deps.registry.get(key)
    if (!tool || !(this.deps.registry.get(caller)?.declaration.uses ?? []).includes(key)) throw new Error(`the tool '${caller}' runs '${key}', which its declaration does not list in uses`)
    const input = this.deps.registry.prepareInput(tool, rawInput, job.maxRecords)
    const rows: Array<Record<string, unknown>> = []
    const live = this.live.get(job.id)
    const http = this.deps.net.http(signal)
    const ctx: ToolContext = {
      input: Object.freeze(input),
      settings: tool.settings,
      job: { id: job.id, accountId: job.accountId, tool: key },
      remaining: () => Math.max(0, maxRows - rows.length),
      signal,
      log: log.child({ nested: key }),
      http,
      crawler: this.deps.net.crawlers(signal),
      network: this.deps.net.policy(),
      extract: createExtraction(this.deps.extraction, signal),
      upstream: upstreamConfig(tool, this.deps.config),
      state: tool.state,
      tools: { run: (k, i, o) => this.runNested(job, k, i, o?.maxRows ?? maxRows, signal, log, depth + 1, key) },
      push: async (batch: Record<string, unknown>[]) => {
        for (const row of batch) if (!tool.rowCheck.Check(row)) throw new Error(`nested tool '${key}' produced a row outside its schema`)
        const kept = batch.slice(0, Math.max(0, maxRows - rows.length))
        rows.push(...kept)
        return kept.length
      },
      stage: (text: string) => { if (live) live.stage = this.deps.secrets.scrub(`${key}: ${String(text).slice(0, 400)}`) },
      warn: () => {},
      summary: () => {},
      blocked: (reason: string): never => { throw new ToolBlockedError(reason) },
      artifact: (name: string, contentType: string, data: Buffer) => this.storeArtifact(job.id, name, contentType, data),
    }
    try {
      await raceAbort(tool.declaration.run(ctx as never), signal)
    } finally {
      await http.close().catch(() => {})
    }
    return rows
  }

  private async runTool (job: JobRow & { input: string, maxRecords: number, columns: string | null }, tool: LoadedTool, live: LiveJob, depth = 0): Promise<Outcome> {
    const { db, quotas, clock, config, logger, events, net, secrets } = this.deps
    const log = logger.child({ jobId: job.id, tool: job.tool })
    const timeoutSeconds = tool.declaration.timeoutSeconds ?? Number(config.env.JOB_TIMEOUT_SECONDS ?? 900)
    const timer = setTimeout(() => this.stop(job.id, 'timeout'), timeoutSeconds * 1000)
    const heartbeatMs = Number(config.env.JOB_HEARTBEAT_MS ?? 5000)
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
    const flush = async () => {
      const records = unflushedRecords
      unflushedRecords = 0
      await db.job.update({ where: { id: job.id }, data: { stage: live.stage, records: live.records, heartbeatAt: clock(), columns: JSON.stringify(columns) } })
      if (records > 0) await quotas.addRecords(job.accountId, records)
    }
    const heartbeat = setInterval(() => { flush().catch(err => log.warn({ err }, 'heartbeat failed')) }, heartbeatMs)

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

    const upstream = upstreamConfig(tool, config)
    const signal = live.controller.signal
    const policy = net.policy()
    const http = net.http(signal)
    const ctx: ToolContext = {
      input: Object.freeze(JSON.parse(job.input)),
      settings: tool.settings,
      job: { id: job.id, accountId: job.accountId, tool: job.tool },
      remaining: () => Math.max(0, job.maxRecords - live.records),
      signal,
      log,
      http,
      crawler: net.crawlers(signal),
      network: policy,
      extract: createExtraction(this.deps.extraction, signal),
      upstream,
      state: tool.state,
      tools: { run: (key, input, options) => this.runNested(job, key, input, options?.maxRows ?? job.maxRecords, signal, log, depth, job.tool) },
      push: push as ToolContext['push'],
      // Stage, warning and summary texts leave the server (status, WebSocket, MCP
      // progress, webhooks) and plugins build them from upstream errors: scrubbed here, once.
      stage: (text: string) => { live.stage = secrets.scrub(String(text).slice(0, 500)); emitProgress() },
      // Several warnings read as one text, in the order they came.
      warn: (text: string) => { const t = secrets.scrub(String(text).slice(0, 1000)); if (!warning?.includes(t)) warning = warning ? `${warning} ${t}` : t },
      summary: (data: Record<string, unknown>) => { summary = { ...summary, ...secrets.scrubValue(data) } },
      blocked: (reason: string): never => { throw new ToolBlockedError(reason) },
      artifact: (name: string, contentType: string, data: Buffer) => this.storeArtifact(job.id, name, contentType, data),
    }

    live.stage = 'running'
    emitProgress(true)
    let outcome: Outcome
    try {
      await raceAbort(tool.declaration.run(ctx), signal)
      await pushChain
      outcome = { kind: 'done' }
    } catch (err) {
      await pushChain.catch(() => {})
      outcome = classify(err, live.stopReason, timeoutSeconds)
      if (outcome.kind === 'error' && !(err instanceof StopSignal) && !isExpected(err)) log.error({ err }, 'tool run failed')
    } finally {
      clearTimeout(timer)
      clearInterval(heartbeat)
      await http.close().catch(() => {})
    }
    await flush().catch(err => log.warn({ err }, 'final flush failed'))
    if (outcome.kind === 'done' && live.records === 0 && !warning) warning = 'The run finished without results.'
    await db.job.update({ where: { id: job.id }, data: { warning, summary: Object.keys(summary).length ? JSON.stringify(summary) : null, columns: JSON.stringify(columns) } })
    return outcome
  }

  private async finish (job: JobRow & { retentionHours: number }, live: LiveJob, outcome: Outcome): Promise<void> {
    const { db, clock, quotas, events, webhooks } = this.deps
    const now = clock()
    if (outcome.kind === 'requeue') {
      // Shutdown: the rows so far are dropped and the job waits for the next start.
      await db.$transaction([
        db.resultRow.deleteMany({ where: { jobId: job.id } }),
        db.job.update({ where: { id: job.id }, data: { startedAt: null, heartbeatAt: null, stage: 'queued', records: 0, columns: null, warning: null } }),
      ])
      return
    }
    const refund = outcome.kind === 'error' && outcome.refund
    // The error text is what the status record, the WebSocket, the agent and the webhook show.
    const error = outcome.kind === 'error' ? this.deps.secrets.scrub(outcome.error) : null
    // Conditional: a cancel that reached the database first wins, and nothing is refunded twice.
    const { count } = await db.job.updateMany({
      where: { id: job.id, status: 'running' },
      data: {
        status: outcome.kind,
        stage: outcome.kind === 'done' ? 'done' : (outcome.blocked ? 'blocked' : 'error'),
        error,
        blocked: outcome.kind === 'error' && Boolean(outcome.blocked),
        refunded: refund,
        records: live.records,
        finishedAt: now,
        expiresAt: new Date(now.getTime() + job.retentionHours * HOUR_MS),
        heartbeatAt: null,
      },
    })
    if (count === 0) return
    if (refund) await quotas.refund(quotas.chargeAt(job.accountId, job.createdAt))
    const final = await db.job.findUniqueOrThrow({ where: { id: job.id } })
    const record = jobStatusRecord(final)
    events.emit(job.id, { type: final.status === 'done' ? 'done' : 'error', job: record })
    webhooks.deliver(final, record)
  }

  private async storeArtifact (jobId: string, name: string, contentType: string, data: Buffer): Promise<ArtifactRef> {
    const id = randomUUID()
    const safeName = name.replace(/[^\w.-]+/g, '_').slice(0, 120) || 'file'
    const dir = join(this.deps.config.dataDir, 'artifacts', jobId)
    await mkdir(dir, { recursive: true })
    const path = join(dir, `${id}-${safeName}`)
    await writeFile(path, data)
    await this.deps.db.jobArtifact.create({ data: { id, jobId, name: safeName, path, contentType, size: data.length, createdAt: this.deps.clock() } })
    return { id, name: safeName, url: `/api/tool-run/${jobId}/artifacts/${id}`, size: data.length, content_type: contentType }
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

const isExpected = (err: unknown) =>
  err instanceof ToolBlockedError || err instanceof UpstreamError || err instanceof MissingCredentialError || err instanceof ToolConfigError || err instanceof InputError || err instanceof BlockedTargetError

function classify (err: unknown, stopReason: StopReason | null, timeoutSeconds: number): Outcome {
  switch (stopReason) {
    case 'cap': return { kind: 'done' }
    case 'cancelled': return { kind: 'error', error: 'cancelled', refund: true }
    case 'timeout': return { kind: 'error', error: `The job did not finish within ${timeoutSeconds} s and was stopped.`, refund: true }
    case 'shutdown': return { kind: 'requeue' }
  }
  // What a caller reads of an upstream's failure names the host, never the request's parameters.
  if (err instanceof ToolBlockedError) return { kind: 'error', error: `The source refused the request: ${withoutUrlQueries(err.message)}`, refund: true, blocked: true }
  if (err instanceof MissingCredentialError) return { kind: 'error', error: err.message, refund: true }
  if (err instanceof ToolConfigError) return { kind: 'error', error: err.message, refund: true }
  if (err instanceof UpstreamError) return { kind: 'error', error: `The upstream failed: ${withoutUrlQueries(err.message)}`, refund: true }
  if (err instanceof InputError) return { kind: 'error', error: err.message, refund: false }
  if (err instanceof BlockedTargetError) return { kind: 'error', error: err.message, refund: false }
  return { kind: 'error', error: 'The tool failed unexpectedly; the call was refunded. Retry, or report it if it persists.', refund: true }
}
