// Each account's budget for uploads it holds at once (the tier's
// max_pending_uploads_mb): the files of its unfinished jobs (queued or
// running; their size is in jobs.upload) plus the uploads of its requests
// still arriving. A start's file takes a hold on the budget before its first
// byte is written, as large as the file may become (the request's
// Content-Length, else all that is left up to max_file_mb), and the writer
// stops at the hold; once whole the hold shrinks to the file's size, and it
// goes when the file becomes its job's (the job row counts it from then) or
// is discarded. Holds live in the shared state under a lock of the account,
// so with REDIS_URL every API process sees the others' (with Redis
// unreachable, this process's memory: the shared state's own fallback).
import { randomUUID } from 'node:crypto'
import type { Clock } from '../clock.ts'
import type { AppConfig } from '../config.ts'
import type { Logger } from 'pino'
import type { Db } from '../db/database.ts'
import { AppError, unavailable } from '../errors.ts'
import { MB, tierLimits, type TierName } from '../quotas/tiers.ts'
import { LockBusyError, type SharedStateService } from '../shared-state/shared-state.ts'
import type { StoredUpload, UploadHold } from './job-workspace.ts'

/** Holds are changed a few at a time (ms); a holder that died frees the lock after ttlMs. */
const BUDGET_LOCK = { ttlMs: 15_000, waitMs: 10_000 }
/** Retry-After of a start refused by a full budget: about one poll of a short job (when one ends is unknown). */
const UPLOAD_BUDGET_RETRY_SECONDS = 10

/** One hold: its bytes and when it lapses (the process holding it died before letting go). */
type Holds = Record<string, { bytes: number, until: number }>

export interface UploadCaller { account: { id: string }, tier: TierName }

/** Megabytes for a detail: whole, or with one decimal below 10. */
const mb = (bytes: number): string => {
  const value = Math.max(0, bytes) / MB
  return value >= 10 || Number.isInteger(value) ? String(Math.floor(value)) : value.toFixed(1)
}

export class UploadBudget {
  /**
   * A hold lapses after holdTtlMs, so the holds of a process that died free
   * the budget again; longer than a request may last (REQUEST_TIMEOUT_MS).
   */
  private readonly holdTtlMs: number

  constructor (private readonly deps: { db: Db, sharedState: SharedStateService, clock: Clock, logger: Logger, config: Pick<AppConfig, 'requestTimeoutMs'> }) {
    // A hold outlives no request: a request lasts at most REQUEST_TIMEOUT_MS, a start's admission a few seconds more.
    this.holdTtlMs = deps.config.requestTimeoutMs + 60_000
  }

  private key (accountId: string): string { return `upload-budget:${accountId}` }

  /** Bytes of uploads the account's unfinished jobs hold (portable: the sizes are read from jobs.upload). */
  async heldByJobs (accountId: string): Promise<number> {
    const jobs = await this.deps.db.job.findMany({ where: { accountId, status: 'running', upload: { not: null } }, select: { upload: true } })
    let bytes = 0
    for (const job of jobs) bytes += (JSON.parse(job.upload!) as StoredUpload).size
    return bytes
  }

  private async arriving (accountId: string, now: number): Promise<Holds> {
    const holds = await this.deps.sharedState.getJson<Holds>(this.key(accountId)) ?? {}
    for (const [id, hold] of Object.entries(holds)) if (hold.until <= now) delete holds[id]
    return holds
  }

  private static sum (holds: Holds): number {
    let bytes = 0
    for (const hold of Object.values(holds)) bytes += hold.bytes
    return bytes
  }

  /** What is left of the account's budget now (negative when a lower tier now holds more than it allows). */
  async left (caller: UploadCaller): Promise<number> {
    const now = this.deps.clock().getTime()
    const [jobs, holds] = await Promise.all([this.heldByJobs(caller.account.id), this.arriving(caller.account.id, now)])
    return tierLimits(caller.tier).max_pending_uploads_mb * MB - jobs - UploadBudget.sum(holds)
  }

  /**
   * Before a byte of the body is read: a file of at least `atLeast` bytes
   * (from the request's Content-Length) that cannot fit what is left is
   * refused now (413 or 429, nothing read, nothing charged).
   */
  async checkDeclared (caller: UploadCaller, atLeast: number): Promise<void> {
    if (atLeast <= 0) return
    const left = await this.left(caller)
    if (atLeast > left) throw this.refusal(caller, left, { closeConnection: true })
  }

  /**
   * Holds up to `atMost` bytes of what is left for a file about to arrive:
   * the hold's bytes are the writer's cap. Refused (413, 429) when nothing is
   * left or the file (at least `atLeast` bytes) cannot fit.
   */
  async hold (caller: UploadCaller, size: { atLeast: number, atMost: number }): Promise<UploadHold> {
    const accountId = caller.account.id
    const id = randomUUID()
    const bytes = await this.change(accountId, async (holds, now) => {
      // Read inside the lock: a start adopting its file creates the job row before it lets go of its hold, so no reading misses the file.
      const left = tierLimits(caller.tier).max_pending_uploads_mb * MB - await this.heldByJobs(accountId) - UploadBudget.sum(holds)
      if (left <= 0 || size.atLeast > left) throw this.refusal(caller, left)
      const bytes = Math.min(size.atMost, left)
      holds[id] = { bytes, until: now + this.holdTtlMs }
      return bytes
    })
    let released = false
    // A change that fails (the lock busy, the shared state down) leaves the hold as it was, until it lapses: too much counted for a while, never too little.
    const quietly = (what: string, edit: (holds: Holds) => void) => this.change(accountId, async holds => edit(holds))
      .catch(err => this.deps.logger.warn({ err, accountId }, `${what} an upload's hold failed; it lapses on its own`))
    return {
      bytes,
      settle: async (size: number) => {
        if (released) return
        await quietly('settling', holds => { if (holds[id]) holds[id].bytes = Math.min(holds[id].bytes, size) })
      },
      release: async () => {
        if (released) return
        released = true
        await quietly('releasing', holds => { delete holds[id] })
      },
    }
  }

  /** The detail of a file that does not fit: 429 when nothing is left (others' uploads hold it all), else 413 with what is left. */
  refusal (caller: UploadCaller, left: number, options: { closeConnection?: boolean } = {}): AppError {
    const limits = tierLimits(caller.tier)
    const budget = `${limits.max_pending_uploads_mb} MB budget of the ${caller.tier} tier for uploads held at once (those of unfinished jobs and those arriving)`
    // A refusal before the body was read: the connection closes rather than reading a body that will not be kept.
    const headers: Record<string, string> = options.closeConnection ? { connection: 'close' } : {}
    if (left <= 0) {
      return new AppError(429, `This account's uploads already fill its ${budget}; start again when one of its jobs ends, or cancel one; nothing was charged.`,
        { headers: { 'retry-after': String(UPLOAD_BUDGET_RETRY_SECONDS), ...headers } })
    }
    return new AppError(413, `The file is larger than the ${mb(left)} MB left of this account's ${budget}; it frees as those jobs end or are cancelled; nothing was charged.`, { headers })
  }

  /** Reads, changes and writes the account's holds under its lock (lapsed ones dropped). */
  private async change<T> (accountId: string, edit: (holds: Holds, now: number) => Promise<T>): Promise<T> {
    const { sharedState: shared, clock } = this.deps
    const holdTtlMs = this.holdTtlMs
    let release: () => Promise<void>
    try {
      release = await shared.lock(this.key(accountId), BUDGET_LOCK)
    } catch (err) {
      if (err instanceof LockBusyError) throw unavailable('Another upload of this account is being counted; retry in a moment.', 1)
      throw err
    }
    try {
      const now = clock().getTime()
      const holds = await this.arriving(accountId, now)
      const result = await edit(holds, now)
      if (Object.keys(holds).length > 0) await shared.setJson(this.key(accountId), holds, holdTtlMs)
      else await shared.delete(this.key(accountId))
      return result
    } finally {
      await release()
    }
  }
}
