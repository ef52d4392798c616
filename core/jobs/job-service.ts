// Starting, reading and cancelling jobs. Every refusal happens before the
// charge (key, scope, params, idempotency, job caps), so a refused request
// costs nothing. Every read takes the caller: which jobs it sees is decided
// once, in find and list (core/auth/guards.ts, jobVisibility).
import { randomUUID } from 'node:crypto'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Clock } from '../clock.ts'
import { sha256Hex } from '../crypto.ts'
import type { Db } from '../db/database.ts'
import type { HotReads } from '../db/hot-reads.ts'
import { insertRows, isUniqueViolation } from '../db/insert-rows.ts'
import { join } from '@prisma/client/runtime/client'
import { AppError, badRequest, conflict, notFound, tooManyRequests, unavailable } from '../errors.ts'
import { jobVisibility, maySeeJob, requireToolAllowed, type AccountCaller } from '../auth/guards.ts'
import type { Charge, JobCounts, QuotaService } from '../quotas/quota-service.ts'
import { tierLimits, type TierLimits, type TierName } from '../quotas/tiers.ts'
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
/** A batch's admissions asked for all at once: each tried once, none waited for (see admitAll). */
const ADMISSION_TRY = { ttlMs: ADMISSION_LOCK.ttlMs, waitMs: 0 }
/**
 * A batch start of many accounts gives the event loop a turn after this much
 * work, not after each account: a turn lets the rest of the process
 * (requests, the job runner) run what it has waiting, tens of ms in a busy
 * process, and a turn per account added seconds to a 500-start batch.
 */
const TURN_AFTER_MS = 25
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
  /** What a refusal of the params calls them: `params` (the default), or `body` for an alias whose body is the params. */
  paramsAt?: 'params' | 'body'
}

export interface StartResponse {
  job_id: string
  status: 'running'
  tool: string
  status_url: string
  results_url: string
  poll_seconds: number
}

/** What one start of a batch came to: started, replayed, or its refusal (as `start` would have thrown it). */
export type StartOutcome = (StartResponse & { replayed: boolean }) | AppError

/** A start that passed the checks needing no database, with what they made. */
interface PreparedStart {
  /** Its place in the batch. */
  index: number
  req: StartRequest
  accountId: string
  upload: IncomingUpload | null
  input: Record<string, unknown>
  limits: TierLimits
  /** The request's digest, when it has an idempotency key. */
  bodyHash: string | null
  pollSeconds: number
  jobId: string
  resultsPath: 'tool-run' | 'jobs'
  /** Its place in its account's line once admitted (the queue's priority). */
  place: number
}

const NO_JOBS: JobCounts = { running: 0, queued: 0 }

/** The columns a start writes (the others keep their defaults). */
const JOB_COLUMNS = ['id', 'account_id', 'tool', 'status', 'stage', 'input', 'webhook', 'token_id', 'retention_hours', 'max_records', 'tier', 'upload', 'results_path', 'monitor_id', 'created_at']

function groupBy<T, K> (items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>()
  for (const item of items) {
    const key = keyOf(item)
    const group = groups.get(key)
    if (group) group.push(item)
    else groups.set(key, [item])
  }
  return groups
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

  /** One start: the batch of one (`startMany`), its refusal thrown. */
  async start (req: StartRequest): Promise<StartResponse & { replayed: boolean }> {
    const [outcome] = await this.startMany([req])
    if (outcome instanceof AppError) throw outcome
    return outcome!
  }

  /**
   * Starts many jobs at once (a batch of monitor ticks; `start` is a batch of
   * one), each checked as a start alone is (tool, scope, params, webhook,
   * idempotency key; then, inside its account's admission, the replay, the
   * job caps, the charge), with the database's share done per account and per
   * batch rather than per job: one count of the account's unfinished jobs and
   * one charge for its n starts (`QuotaService.chargeUpTo`), one insert of the
   * batch's idempotency records and one of its jobs. An account that can take
   * only k of its n starts (caps or quota) starts its first k, in the batch's
   * order, and the others get the refusal the (k+1)th start alone would have
   * had. Returns each request's outcome in order: started, replayed, or its
   * refusal (never charged). A failure of the database fails the whole batch,
   * refunded.
   */
  async startMany (requests: readonly StartRequest[]): Promise<StartOutcome[]> {
    const adopted = new Set<IncomingUpload>()
    try {
      return await this.admitMany(requests, adopted)
    } finally {
      // Refused, replayed or failed: the file has no job to belong to.
      for (const req of requests) if (req.upload && !adopted.has(req.upload)) await this.deps.workspace.discard(req.upload)
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

  /** The checks that need no database (tool, scope, params, webhook, the key's length), in a start's order; throws the refusal. */
  private prepare (req: StartRequest, index: number): PreparedStart {
    const { registry } = this.deps
    const { caller } = req
    const upload = req.upload ?? null
    registry.catalog.check(req.tool)
    requireToolAllowed(caller, req.tool)
    const tool = registry.get(req.tool)!
    const limits = tierLimits(caller.tier)
    const params = upload ? this.uploadParams(req.tool, req.params, upload) : this.withoutUploadMarker(tool.declaration.upload?.param, req.params)
    const input = registry.prepareInput(tool, params, limits.max_records_per_run, req.paramsAt)
    this.validateWebhook(req.webhook)
    let bodyHash: string | null = null
    if (req.idempotencyKey !== undefined) {
      if (req.idempotencyKey.length === 0 || req.idempotencyKey.length > 200) throw badRequest('Idempotency-Key must be 1 to 200 characters.')
      // The file's digest is part of the request: the same key with another file is a conflict.
      bodyHash = sha256Hex(JSON.stringify({ tool: req.tool, params: req.params ?? null, webhook: req.webhook ?? null, ...(upload ? { upload: upload.sha256 } : {}) }))
    }
    return { index, req, accountId: caller.account.id, upload, input, limits, bodyHash, pollSeconds: tool.declaration.pollSeconds ?? 2, jobId: randomUUID(), resultsPath: req.resultsPath ?? 'tool-run', place: 0 }
  }

  /**
   * `startMany` less the uploads' discard. A key used twice in one batch (one
   * account's) is started after the rest, so it replays the first as two
   * starts one after the other would.
   */
  private async admitMany (requests: readonly StartRequest[], adopted: Set<IncomingUpload>): Promise<StartOutcome[]> {
    const outcomes: Array<StartOutcome | undefined> = new Array(requests.length)
    const prepared: PreparedStart[] = []
    const later: number[] = []
    const keys = new Set<string>()
    for (const [index, req] of requests.entries()) {
      try {
        const start = this.prepare(req, index)
        if (start.bodyHash !== null) {
          const key = `${start.accountId}\0${req.idempotencyKey!}`
          if (keys.has(key)) { later.push(index); continue }
          keys.add(key)
        }
        prepared.push(start)
      } catch (err) {
        if (!(err instanceof AppError)) throw err
        outcomes[index] = err
      }
    }
    const oneByOne = await this.admitPrepared(prepared, outcomes, adopted)
    for (const start of oneByOne) outcomes[start.index] = (await this.admitMany([start.req], adopted))[0]!
    if (later.length) {
      const again = await this.admitMany(later.map(i => requests[i]!), adopted)
      later.forEach((index, i) => { outcomes[index] = again[i]! })
    }
    return outcomes as StartOutcome[]
  }

  /**
   * The part of a batch inside its accounts' admissions: every account's
   * admission (taken in one order, so two batches never wait for each other in
   * a circle), the replays, each account's caps and charge, the inserts and
   * the offers. Fills `outcomes`; returns the starts to run again one at a time
   * (the batch's idempotency records met a record another process wrote
   * meanwhile: each alone finds whose it is), already refunded.
   */
  private async admitPrepared (prepared: readonly PreparedStart[], outcomes: Array<StartOutcome | undefined>, adopted: Set<IncomingUpload>): Promise<PreparedStart[]> {
    if (!prepared.length) return []
    const { clock, quotas } = this.deps
    const byAccount = groupBy(prepared, s => s.accountId)
    const releases: Array<() => Promise<void>> = []
    try {
      for (const [accountId, admission] of await this.admitAll([...byAccount.keys()].sort())) {
        if (admission instanceof AppError) {
          for (const start of byAccount.get(accountId)!) outcomes[start.index] = admission
          byAccount.delete(accountId)
        } else {
          releases.push(admission)
        }
      }
      // Replays inside the admission: they are free and must not meet the caps of the jobs they replay.
      await this.replays([...byAccount.values()].flat(), outcomes)
      const now = clock()
      const admitted: PreparedStart[] = []
      const charges: Array<{ charge: Charge, count: number }> = []
      let ranSince = performance.now()
      // Counted inside the admission: a batch of many accounts in one statement, a start alone on the hot reader.
      const counts = byAccount.size > 1 ? await quotas.jobCountsOf([...byAccount.keys()]) : new Map<string, JobCounts>()
      for (const [accountId, starts] of byAccount) {
        const waiting = starts.filter(s => outcomes[s.index] === undefined)
        if (!waiting.length) continue
        // The caps' count, taken inside the admission, is each new job's place in line: the offer needs no count of its own.
        const { running, queued: queuedBefore } = (byAccount.size > 1 ? counts.get(accountId) : await quotas.jobCounts(accountId)) ?? NO_JOBS
        let queued = queuedBefore
        // One account's starts of one batch have one tier, save a Pro window that ended in between.
        for (const run of groupBy(waiting, s => s.req.caller.tier).values()) {
          const { tier } = run[0]!.req.caller
          const { limits } = run[0]!
          const room = Math.max(0, limits.max_running_jobs + limits.max_queued_jobs - running - queued)
          const { charge, charged, refusal } = await quotas.chargeUpTo(accountId, tier, Math.min(run.length, room), now)
          if (charged) charges.push({ charge, count: charged })
          for (const [i, start] of run.entries()) {
            if (i < charged) {
              queued++
              admitted.push({ ...start, place: running + queued })
            } else {
              outcomes[start.index] = refusal ?? this.jobCapRefusal(tier, running, queued)
            }
          }
        }
        // SQLite's driver answers synchronously: a batch of many accounts gives the rest of the process a turn now and then.
        if (performance.now() - ranSince > TURN_AFTER_MS) { await nextTurn(); ranSince = performance.now() }
      }
      if (!admitted.length) return []
      try {
        await this.insertJobs(admitted, now, adopted)
      } catch (err) {
        for (const { charge, count } of charges) await quotas.refund(charge, count)
        // A record of one of the keys went in meanwhile (another process): alone, each start finds whose it is.
        if (isUniqueViolation(err) && admitted.some(s => s.bodyHash !== null)) {
          if (admitted.length > 1) return admitted
          await this.replays(admitted, outcomes)
          if (outcomes[admitted[0]!.index] !== undefined) return []
        }
        throw err
      }
      for (const start of admitted) {
        this.deps.queue.enqueue({ id: start.jobId, accountId: start.accountId, maxRunning: start.limits.max_running_jobs, place: start.place })
        const ref = { id: start.jobId, resultsPath: start.resultsPath }
        outcomes[start.index] = { job_id: start.jobId, status: 'running', tool: start.req.tool, status_url: statusUrl(ref), results_url: resultsUrl(ref), poll_seconds: start.pollSeconds, replayed: false }
      }
      return []
    } finally {
      await Promise.all(releases.map(release => release()))
    }
  }

  /**
   * The admissions of a batch's accounts (sorted). Several are asked for at
   * once, each tried once: with REDIS_URL one round of replies instead of a
   * round trip per account. If one is held (another process is admitting a
   * start of that account), those taken are let go and all are taken again one
   * after the other in this order, waiting as a start does, so two batches
   * never wait for each other in a circle. An account whose admission is
   * refused (busy past the wait) gets the refusal.
   */
  private async admitAll (accountIds: readonly string[]): Promise<Map<string, (() => Promise<void>) | AppError>> {
    if (accountIds.length > 1) {
      const tried = await Promise.allSettled(accountIds.map(id => this.admit(id, ADMISSION_TRY)))
      if (tried.every(t => t.status === 'fulfilled')) return new Map(accountIds.map((id, i) => [id, (tried[i] as PromiseFulfilledResult<() => Promise<void>>).value]))
      await Promise.all(tried.map(t => (t.status === 'fulfilled' ? t.value() : undefined)))
      const failure = tried.find(t => t.status === 'rejected' && !(t.reason instanceof AppError)) as PromiseRejectedResult | undefined
      if (failure) throw failure.reason
    }
    const admissions = new Map<string, (() => Promise<void>) | AppError>()
    try {
      for (const id of accountIds) {
        try {
          admissions.set(id, await this.admit(id, ADMISSION_LOCK))
        } catch (err) {
          if (!(err instanceof AppError)) throw err
          admissions.set(id, err)
        }
      }
    } catch (err) {
      await Promise.all([...admissions.values()].map(a => (a instanceof AppError ? undefined : a())))
      throw err
    }
    return admissions
  }

  /**
   * The admitted starts' rows: their idempotency records first (of two
   * concurrent requests with one key, in two processes, one wins there), then
   * their jobs, one multi-row INSERT each; then the uploads moved in (the
   * workspace sweeper keeps only running jobs' files). On a failure what was
   * written is removed: a record left pointing at no job would refuse every
   * retry of its key (409) for its whole window.
   */
  private async insertJobs (admitted: readonly PreparedStart[], now: Date, adopted: Set<IncomingUpload>): Promise<void> {
    const { db } = this.deps
    const keyed = admitted.filter(s => s.bodyHash !== null)
    let recorded = false
    let created = false
    try {
      if (keyed.length) {
        await insertRows(db, 'idempotency_records', ['account_id', '"key"', 'body_hash', 'job_id', 'created_at'], keyed.map(s => [s.accountId, s.req.idempotencyKey!, s.bodyHash, s.jobId, now]))
        recorded = true
      }
      await insertRows(db, 'jobs', JOB_COLUMNS, admitted.map(s => {
        const { req, limits, upload } = s
        return [
          s.jobId, s.accountId, req.tool, 'running', 'queued', JSON.stringify(s.input), req.webhook ? JSON.stringify(req.webhook) : null,
          req.caller.principal.kind === 'scoped' ? req.caller.principal.tokenId : null, limits.retention_hours, limits.max_records_per_run, req.caller.tier,
          upload ? JSON.stringify({ name: upload.name, size: upload.size, content_type: upload.contentType } satisfies StoredUpload) : null,
          s.resultsPath, req.monitorId ?? null, now,
        ]
      }))
      created = true
      for (const { upload, jobId } of admitted) {
        if (!upload) continue
        await this.deps.workspace.adopt(upload, jobId)
        adopted.add(upload)
      }
    } catch (err) {
      if (created) await db.job.deleteMany({ where: { id: { in: admitted.map(s => s.jobId) } } }).catch(() => {})
      if (recorded) await db.idempotencyRecord.deleteMany({ where: { jobId: { in: keyed.map(s => s.jobId) } } }).catch(() => {})
      throw err
    }
  }

  /**
   * Waits for this account's earlier starts in this process, then takes the
   * account's admission lock of the shared state (with REDIS_URL, held across
   * every API process: the caps and the idempotency check see the starts of
   * the others); returns the release.
   */
  private async admit (accountId: string, lock: { ttlMs: number, waitMs: number }): Promise<() => Promise<void>> {
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
      releaseShared = await this.deps.sharedState.lock(`admit:${accountId}`, lock)
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
   * so a start past the sum is refused (429, nothing charged).
   */
  private jobCapRefusal (tier: TierName, running: number, queued: number): AppError {
    const limits = tierLimits(tier)
    this.deps.metrics.refusals.inc({ reason: 'job-cap' })
    return tooManyRequests(
      `Job cap reached: at most ${limits.max_queued_jobs} queued jobs on the ${tier} plan, behind at most ${limits.max_running_jobs} running; ` +
      `this account has ${running} running and ${queued} waiting. Start again when one ends (GET /api/jobs lists them); nothing was charged.`,
      JOB_CAP_RETRY_SECONDS)
  }

  /**
   * The starts among `starts` whose idempotency key has a record: each one's
   * outcome is its replay (the record's job), or 409 when the key came with
   * another body or its job is gone; a record past its window is dropped and
   * the start goes on. One read of the records and one of their jobs.
   */
  private async replays (starts: readonly PreparedStart[], outcomes: Array<StartOutcome | undefined>): Promise<void> {
    const { db, clock } = this.deps
    const keyed = starts.filter(s => s.bodyHash !== null && outcomes[s.index] === undefined)
    if (!keyed.length) return
    const accounts = [...new Set(keyed.map(s => s.accountId))]
    const keys = [...new Set(keyed.map(s => s.req.idempotencyKey!))]
    const records = await db.$queryRaw<Array<{ account_id: string, key: string, body_hash: string, job_id: string, created_at: Date | string }>>`SELECT account_id, "key", body_hash, job_id, created_at FROM idempotency_records WHERE account_id IN (${join(accounts)}) AND "key" IN (${join(keys)})`
    const recordOf = new Map(records.map(r => [`${r.account_id}\0${r.key}`, r]))
    const pending: Array<[PreparedStart, string]> = []
    for (const start of keyed) {
      const key = start.req.idempotencyKey!
      const record = recordOf.get(`${start.accountId}\0${key}`)
      if (!record) continue
      const createdAt = new Date(record.created_at)
      if (clock().getTime() - createdAt.getTime() > IDEMPOTENCY_WINDOW_MS) {
        await db.idempotencyRecord.deleteMany({ where: { accountId: start.accountId, key, createdAt } })
        continue
      }
      if (record.body_hash !== start.bodyHash) outcomes[start.index] = conflict('This Idempotency-Key was already used with a different request body.')
      else pending.push([start, record.job_id])
    }
    if (!pending.length) return
    const jobs = await db.job.findMany({ where: { id: { in: pending.map(([, id]) => id) } }, select: { id: true, tool: true, resultsPath: true } })
    const jobOf = new Map(jobs.map(j => [j.id, j]))
    for (const [start, jobId] of pending) {
      const job = jobOf.get(jobId)
      outcomes[start.index] = job
        ? { job_id: job.id, status: 'running', tool: job.tool, status_url: statusUrl(job), results_url: resultsUrl(job), poll_seconds: start.pollSeconds, replayed: true }
        : conflict('This Idempotency-Key belongs to a job that no longer exists; use a new key.')
    }
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
