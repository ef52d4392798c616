// Starting, reading and cancelling jobs. Every refusal happens before the
// charge (key, scope, params, idempotency, job caps), so a refused request
// costs nothing. Every read takes the caller: which jobs it sees is decided
// once, in find and list (core/auth/guards.ts, jobVisibility).
import { randomUUID } from 'node:crypto'
import type { Clock } from '../clock.ts'
import { sha256Hex } from '../crypto.ts'
import type { Db } from '../db/database.ts'
import type { HotReads } from '../db/hot-reads.ts'
import { badRequest, conflict, notFound, tooManyRequests, unavailable } from '../errors.ts'
import { jobVisibility, maySeeJob, requireToolAllowed, type AccountCaller } from '../auth/guards.ts'
import type { QuotaService } from '../quotas/quota-service.ts'
import { tierLimits } from '../quotas/tiers.ts'
import type { ToolRegistry } from '../tools/registry.ts'
import type { JobOffers } from './job-queue.ts'
import type { RunningJobs } from './running-jobs.ts'
import { iterateRows, readRowPage, type ResultRow } from './result-rows.ts'
import type { JobEvents } from './job-events.ts'
import { CANCELLED, type JobEnding } from './job-ending.ts'
import { JOB_STATUS_SQL, inputSummary, storedJobStatus, resultsUrl, withLiveOverlay, statusUrl, type JobStatusRecord } from './job-view.ts'
import type { WebhookSpec } from '../webhooks/webhook-deliveries.ts'
import { checkWebhookUrl } from '../webhooks/account-webhooks.ts'
import type { ArtifactService } from '../artifacts/artifact-service.ts'
import type { IncomingUpload, JobWorkspace, StoredUpload } from '../artifacts/job-workspace.ts'
import { assertUploadType, uploadDeclaration } from './multipart-start.ts'
import { LockBusyError, type LockRelease, type SharedStateService } from '../shared-state/shared-state.ts'
import type { Metrics } from '../metrics/metrics.ts'

const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000
/**
 * The admission lock: an admission takes a few queries (ms); a holder that died
 * frees it after ttlMs; a start that waited waitMs for it answers 503, retry.
 */
const ADMISSION_LOCK = { ttlMs: 15_000, waitMs: 10_000 }
/** Retry-After of a start refused by the job caps: about one poll of a short job (when a slot frees is unknown). */
const JOB_CAP_RETRY_SECONDS = 10

export interface StartRequest {
  caller: AccountCaller
  tool: string
  params: unknown
  idempotencyKey?: string
  webhook?: WebhookSpec
  /** Map-scrape jobs answer on /api/jobs/<id> as well. */
  resultsPath?: 'tool-run' | 'jobs'
  /** A multipart start's file, already on disk under the tier cap: the job's, or discarded when the start is refused. */
  upload?: IncomingUpload | null
  /** The monitor this job is a run of (core/monitors). */
  monitorId?: string
}

export interface StartResponse {
  job_id: string
  status: 'running'
  tool: string
  status_url: string
  results_url: string
  poll_seconds: number
}

export class JobService {
  /**
   * Starts of one account in this process pass the cap check, the charge and
   * the insert one at a time, so a burst cannot slip past the caps together.
   */
  private readonly admissions = new Map<string, Promise<void>>()

  constructor (private readonly deps: { db: Db, hotReads: HotReads, clock: Clock, quotas: QuotaService, registry: ToolRegistry, runner: RunningJobs, events: JobEvents, queue: JobOffers, ending: JobEnding, artifacts: ArtifactService, workspace: JobWorkspace, sharedState: SharedStateService, metrics: Pick<Metrics, 'refusals'> }) {}

  private validateWebhook (webhook: WebhookSpec | undefined): void {
    if (webhook) checkWebhookUrl(webhook.url, 'webhook.url')
  }

  async start (req: StartRequest): Promise<StartResponse & { replayed: boolean }> {
    const upload = req.upload ?? null
    if (!upload) return this.admitStart(req, null)
    let adopted = false
    try {
      const started = await this.admitStart(req, upload, () => { adopted = true })
      return started
    } finally {
      // Refused, replayed or failed: the file has no job to belong to.
      if (!adopted) await this.deps.workspace.discard(upload)
    }
  }

  /** With an upload: the tool must take one, of this type, in place of its `param`, which the caller must not give too. */
  private uploadParams (toolKey: string, params: unknown, upload: IncomingUpload): Record<string, unknown> {
    const declared = uploadDeclaration(this.deps.registry, toolKey)
    assertUploadType(toolKey, declared, upload.contentType)
    const given = (params ?? {}) as Record<string, unknown>
    if (given[declared.param] !== undefined) throw badRequest(`Give either ${declared.param} or a file, not both.`)
    return { ...given, [declared.param]: `upload://${upload.name}` }
  }

  /** `upload://…` only ever names a file sent with the start: without one (JSON, the agent endpoint) it is refused. */
  private withoutUploadMarker (param: string | undefined, params: unknown): unknown {
    const value = param !== undefined && params !== null && typeof params === 'object' ? (params as Record<string, unknown>)[param] : undefined
    if (typeof value === 'string' && value.startsWith('upload://')) throw badRequest(`${param} names an uploaded file, but no file was sent: send it as multipart/form-data on POST /api/tool-run, or give a URL.`)
    return params
  }

  private async admitStart (req: StartRequest, upload: IncomingUpload | null, onAdopted?: () => void): Promise<StartResponse & { replayed: boolean }> {
    const { db, clock, quotas, registry } = this.deps
    const { caller } = req
    registry.catalog.check(req.tool)
    requireToolAllowed(caller, req.tool)
    const tool = registry.get(req.tool)!
    const limits = tierLimits(caller.tier)
    const params = upload ? this.uploadParams(req.tool, req.params, upload) : this.withoutUploadMarker(tool.declaration.upload?.param, req.params)
    const input = registry.prepareInput(tool, params, limits.max_records_per_run)
    this.validateWebhook(req.webhook)
    const pollSeconds = tool.declaration.pollSeconds ?? 2

    let bodyHash: string | undefined
    if (req.idempotencyKey !== undefined) {
      if (req.idempotencyKey.length === 0 || req.idempotencyKey.length > 200) throw badRequest('Idempotency-Key must be 1 to 200 characters.')
      // The file's digest is part of the request: the same key with another file is a conflict.
      bodyHash = sha256Hex(JSON.stringify({ tool: req.tool, params: req.params ?? null, webhook: req.webhook ?? null, ...(upload ? { upload: upload.sha256 } : {}) }))
    }

    const jobId = randomUUID()
    const resultsPath = req.resultsPath ?? 'tool-run'
    const release = await this.admit(caller.account.id)
    try {
      // A replay inside the admission: it is free and must not meet the caps of the job it replays.
      if (req.idempotencyKey !== undefined) {
        const replay = await this.replay(caller.account.id, req.idempotencyKey, bodyHash!, pollSeconds)
        if (replay) return replay
      }
      const ahead = await this.checkJobCaps(caller)
      const now = clock()
      const charge = await quotas.charge(caller.account.id, caller.tier, now)
      let created = false
      let recorded = false
      try {
        if (req.idempotencyKey !== undefined) {
          // The record goes in first: of two concurrent requests with one key (in two processes), one wins here.
          await db.idempotencyRecord.create({ data: { accountId: caller.account.id, key: req.idempotencyKey, bodyHash: bodyHash!, jobId, createdAt: now } })
          recorded = true
        }
        await db.job.create({
          data: {
            id: jobId,
            accountId: caller.account.id,
            tool: req.tool,
            status: 'running',
            stage: 'queued',
            input: JSON.stringify(input),
            webhook: req.webhook ? JSON.stringify(req.webhook) : null,
            tokenId: caller.principal.kind === 'scoped' ? caller.principal.tokenId : null,
            retentionHours: limits.retention_hours,
            maxRecords: limits.max_records_per_run,
            tier: caller.tier,
            upload: upload ? JSON.stringify({ name: upload.name, size: upload.size, content_type: upload.contentType } satisfies StoredUpload) : null,
            resultsPath,
            monitorId: req.monitorId ?? null,
            createdAt: now,
          },
        })
        created = true
        // Moved in once the job exists: the workspace sweeper keeps only running jobs' files.
        if (upload) { await this.deps.workspace.adopt(upload, jobId); onAdopted?.() }
      } catch (err) {
        if (created) await db.job.delete({ where: { id: jobId } }).catch(() => {})
        // A record left pointing at no job would refuse every retry of the key (409) for its whole window.
        if (recorded) await db.idempotencyRecord.deleteMany({ where: { accountId: caller.account.id, key: req.idempotencyKey!, jobId } }).catch(() => {})
        await quotas.refund(charge)
        if ((err as { code?: string }).code === 'P2002' && req.idempotencyKey !== undefined) {
          const replay = await this.replay(caller.account.id, req.idempotencyKey, bodyHash!, pollSeconds)
          if (replay) return replay
        }
        throw err
      }
      // The caps' count, taken inside the admission lock, is the new job's place in line: the offer needs no count of its own.
      this.deps.queue.enqueue({ id: jobId, accountId: caller.account.id, maxRunning: limits.max_running_jobs, place: ahead + 1 })
    } finally {
      await release()
    }
    const ref = { id: jobId, resultsPath }
    return { job_id: jobId, status: 'running', tool: req.tool, status_url: statusUrl(ref), results_url: resultsUrl(ref), poll_seconds: pollSeconds, replayed: false }
  }

  /**
   * Waits for this account's earlier starts in this process, then takes the
   * account's admission lock of the shared state (with REDIS_URL, held across
   * every API process: the caps and the idempotency check see the starts of
   * the others); returns the release.
   */
  private async admit (accountId: string): Promise<() => Promise<void>> {
    const before = this.admissions.get(accountId)
    let release!: () => void
    const mine = new Promise<void>(resolve => { release = resolve })
    // The chain ends with the last start; its entry is dropped so idle accounts cost nothing.
    const chained = (before ?? Promise.resolve()).then(() => mine)
    this.admissions.set(accountId, chained)
    await before
    const releaseHere = () => {
      release()
      if (this.admissions.get(accountId) === chained) this.admissions.delete(accountId)
    }
    let releaseShared: LockRelease
    try {
      releaseShared = await this.deps.sharedState.lock(`admit:${accountId}`, ADMISSION_LOCK)
    } catch (err) {
      releaseHere()
      if (err instanceof LockBusyError) throw unavailable('Another start of this account is still being admitted; retry in a moment.', 1)
      throw err
    }
    return async () => {
      try { await releaseShared() } finally { releaseHere() }
    }
  }

  /**
   * Per-tier job caps: an account holds at most max_running_jobs running plus
   * max_queued_jobs queued; the scheduler keeps the running ones to their cap,
   * so a start past the sum is refused (429, nothing charged). Else returns
   * how many unfinished jobs the account has (the new job's place in line, less one).
   */
  private async checkJobCaps (caller: AccountCaller): Promise<number> {
    const limits = tierLimits(caller.tier)
    const { running, queued } = await this.deps.quotas.jobCounts(caller.account.id)
    if (running + queued < limits.max_running_jobs + limits.max_queued_jobs) return running + queued
    this.deps.metrics.refusals.inc({ reason: 'job-cap' })
    throw tooManyRequests(
      `Job cap reached: at most ${limits.max_queued_jobs} queued jobs on the ${caller.tier} plan, behind at most ${limits.max_running_jobs} running; ` +
      `this account has ${running} running and ${queued} waiting. Start again when one ends (GET /api/jobs lists them); nothing was charged.`,
      JOB_CAP_RETRY_SECONDS)
  }

  private async replay (accountId: string, key: string, bodyHash: string, pollSeconds: number): Promise<(StartResponse & { replayed: boolean }) | null> {
    const { db, clock } = this.deps
    const record = await db.idempotencyRecord.findUnique({ where: { accountId_key: { accountId, key } } })
    if (!record) return null
    if (clock().getTime() - record.createdAt.getTime() > IDEMPOTENCY_WINDOW_MS) {
      await db.idempotencyRecord.deleteMany({ where: { accountId, key, createdAt: record.createdAt } })
      return null
    }
    if (record.bodyHash !== bodyHash) throw conflict('This Idempotency-Key was already used with a different request body.')
    const job = await db.job.findUnique({ where: { id: record.jobId } })
    if (!job) throw conflict('This Idempotency-Key belongs to a job that no longer exists; use a new key.')
    return { job_id: job.id, status: 'running', tool: job.tool, status_url: statusUrl(job), results_url: resultsUrl(job), poll_seconds: pollSeconds, replayed: true }
  }

  /**
   * The caller's job, or 404: unknown, another account's, a tool outside a
   * scoped token's list (one answer for all three, so existence is not
   * revealed), or past retention.
   */
  async find (caller: AccountCaller, jobId: string) {
    return this.visible(caller, jobId, await this.deps.db.job.findUnique({ where: { id: jobId } }))
  }

  private visible<J extends { accountId: string, tool: string, expiresAt: Date | null }> (caller: AccountCaller, jobId: string, job: J | null | undefined): J {
    if (!job || !maySeeJob(caller, job)) throw notFound(`No job ${jobId} for this account.`)
    if (job.expiresAt && job.expiresAt.getTime() <= this.deps.clock().getTime()) throw notFound(`Job ${jobId} has passed its plan's retention window; its results are gone.`)
    return job
  }

  /**
   * The status record: the most frequent call a client makes (a poll every
   * few seconds per job), so its read is one prepared statement on the hot
   * reader (core/db/hot-reads.ts; kept in memory only until the next commit to
   * the database, so never stale) rather than a Prisma query, with the same
   * visibility and retention answers as `find`.
   */
  async status (caller: AccountCaller, jobId: string): Promise<JobStatusRecord> {
    const stored = await this.deps.hotReads.selectUnchanged(JOB_STATUS_SQL, [jobId], storedJobStatus)
    const job = this.visible(caller, jobId, stored?.job)
    const live = job.status === 'running' ? this.deps.runner.progressOf(jobId) : undefined
    return live ? withLiveOverlay(stored!.record, live) : stored!.record
  }

  /** The job when its rows can be read, else 409 naming the status call. */
  async readable (caller: AccountCaller, jobId: string) {
    const job = await this.find(caller, jobId)
    if (job.status === 'running') {
      throw conflict(`Job ${jobId} is still running: poll GET ${statusUrl(job)} until status is 'done', then read the results.`)
    }
    return job
  }

  /** A page of the job's rows, read the way exports read them (result-rows.ts). */
  async results (caller: AccountCaller, jobId: string, offset: number, limit: number) {
    const job = await this.readable(caller, jobId)
    const { rows } = await readRowPage(this.deps.hotReads, jobId, offset, limit)
    return { job_id: job.id, tool: job.tool, status: job.status, count: rows.length, total: job.records, offset, limit, results: rows }
  }

  /**
   * Every row of a job in order, for streamed exports: one page (50 rows) held
   * at a time, the next read only when the exporter asks (result-rows.ts).
   */
  iterateRows (jobId: string): AsyncGenerator<ResultRow> {
    return iterateRows(this.deps.hotReads, jobId)
  }

  async list (caller: AccountCaller, limit: number) {
    const now = this.deps.clock()
    const { accountId, tools } = jobVisibility(caller)
    const jobs = await this.deps.db.job.findMany({
      where: { accountId, ...(tools ? { tool: { in: [...tools] } } : {}), OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      orderBy: { createdAt: 'desc' },
      take: limit,
    })
    return {
      count: jobs.length,
      jobs: jobs.map(j => ({ job_id: j.id, tool: j.tool, status: j.status, input: inputSummary(j.input), records: j.records, stage: j.stage, created_at: j.createdAt.toISOString(), finished_at: j.finishedAt?.toISOString() ?? null, expires_at: j.expiresAt?.toISOString() ?? null, status_url: statusUrl(j), results_url: resultsUrl(j) })),
    }
  }

  /** Ends a running job as `error: 'cancelled'`, refunded. 409 when it already ended. */
  async cancel (caller: AccountCaller, jobId: string): Promise<JobStatusRecord> {
    const { runner, ending } = this.deps
    const job = await this.find(caller, jobId)
    if (job.status !== 'running') throw conflict(`Job ${jobId} already ended with status '${job.status}'.`)
    // Running here: the runner stops it and ends it with its rows and counters flushed.
    await runner.cancel(jobId)
    // Queued; running in another process (which sees the ending on its next
    // heartbeat and stops); or handed back to the queue by a shutdown meanwhile.
    // When the runner already ended it, this finds it ended and does nothing.
    await ending.endJob(job, CANCELLED)
    return this.status(caller, jobId)
  }

  /**
   * Waits until the job ends, up to `windowMs`; null when it is still running.
   * Events wake it at once (from any process with REDIS_URL); a slow poll
   * covers an event lost on the way (a Redis outage) or a job run by another
   * process without Redis.
   */
  async waitFor (caller: AccountCaller, jobId: string, windowMs: number, onProgress?: (records: number, stage: string) => void): Promise<JobStatusRecord | null> {
    const first = await this.status(caller, jobId)
    if (first.status !== 'running') return first
    return new Promise<JobStatusRecord | null>((resolve) => {
      let settled = false
      const finish = (value: JobStatusRecord | null) => {
        if (settled) return
        settled = true
        subscription.close()
        clearTimeout(timer)
        clearInterval(poll)
        resolve(value)
      }
      const check = () => { this.status(caller, jobId).then(s => { if (s.status !== 'running') finish(s) }, () => finish(null)) }
      const subscription = this.deps.events.subscribe(jobId, (event) => {
        if (event.type === 'progress') onProgress?.(event.records, event.stage)
        else finish(event.job)
      }, { onResume: check })
      // The job may have ended between the first read and the subscription: read again once it is live.
      subscription.ready.then(() => { if (!settled) check() }, () => {})
      const timer = setTimeout(() => finish(null), windowMs)
      const poll = setInterval(check, 1000)
    })
  }

  /** A job's files: the same 404 as every other read for a job the caller may not see. */
  async artifacts (caller: AccountCaller, jobId: string) {
    const job = await this.find(caller, jobId)
    return { job, files: await this.deps.artifacts.list(job.id) }
  }

  async artifact (caller: AccountCaller, jobId: string, artifactId: string) {
    const job = await this.find(caller, jobId)
    const artifact = await this.deps.artifacts.find(job.id, artifactId)
    if (!artifact) throw notFound(`No file ${artifactId} for job ${jobId}.`)
    return artifact
  }
}
