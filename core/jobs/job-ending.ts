// The one way a job ends. Every ending (the run returned or failed, a cancel,
// a timeout, the dead-worker reaper) goes through endJob: one conditional
// update (`where status = 'running'`), so of two endings racing only the first
// lands and only it refunds, announces and calls the webhook. The other way a
// running job leaves its worker, the shutdown hand-back, is `requeue`, under
// the same condition. See core/jobs/README.md (Outcomes).
import type { Logger } from 'pino'
import { HOUR_MS, type Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import type { QuotaService } from '../quotas/quota-service.ts'
import type { SecretScrubber } from '../secrets/secret-scrubber.ts'
import type { JobEvents } from './job-events.ts'
import { jobStatusRecord } from './job-view.ts'
import type { WebhookDeliveries } from '../webhooks/webhook-deliveries.ts'
import type { ArtifactService } from '../artifacts/artifact-service.ts'
import type { JobWorkspace } from '../artifacts/job-workspace.ts'
import type { JobOutcome, Metrics } from '../metrics/metrics.ts'

/**
 * How a job ends: done; cancelled by its caller (refunded, its rows kept); or
 * error, with whether the call is given back and whether the source refused.
 */
export type JobEnd =
  | { status: 'done' }
  | { status: 'cancelled' }
  | { status: 'error', error: string, refund: boolean, blocked?: boolean, ending?: 'interrupted' }

/** The fields of the job row an ending needs. */
export interface EndingJob {
  id: string
  accountId: string
  tool: string
  createdAt: Date
  retentionHours: number
  /** When its run began (null: still queued); the ending's duration is counted from it. */
  startedAt?: Date | null
  /** The monitor this job is a run of (core/monitors), if any. */
  monitorId?: string | null
}

/** What the run leaves beside its outcome, written in the same update (absent: left as stored). */
export interface RunResidue {
  records?: number
  warning?: string | null
  summary?: string | null
  columns?: string | null
}

/** A monitor's run as its ending sees it. */
export interface MonitorRun { id: string, monitorId: string }

/** The ended job as a monitor's run announces it (a row of jobs, read back after the outcome). */
export interface EndedRun { id: string, accountId: string, webhook: string | null, status: string, records: number, monitorChanges: string | null, finishedAt: Date | null }

/**
 * What a monitor's run does as it ends (core/monitors), in four steps around
 * the outcome's write, so that whoever sees the outcome (a poll, the final
 * event, the webhook) sees the monitor's side of it too.
 */
export interface MonitorRunEnding {
  /**
   * Before the outcome, for a done run: compares its rows with the baseline and
   * writes its changes and items under the run's id, leaving the monitor as it
   * is. The change counts (JSON, stored on the job), or null when there is
   * nothing to compare (the tool declares no identity; the monitor is gone).
   */
  compare (run: MonitorRun): Promise<string | null>
  /**
   * In the outcome's transaction: a compared run becomes the baseline; a failed
   * one counts toward the pause. True when this paused the monitor.
   */
  settle (tx: Db, run: MonitorRun, outcome: { status: string, error: string | null, compared: boolean }): Promise<boolean>
  /**
   * After: the older baseline's items go and the scheduler hears of a pause;
   * when another ending won the race (`landed` false), the run's comparison is dropped.
   */
  settled (run: MonitorRun, result: { landed: boolean, compared: boolean, paused: boolean }): Promise<void>
  /**
   * After the run's own webhook, before its final event, for an ending that
   * landed: a done run whose comparison found changes stores its
   * `monitor.changed` delivery, so whoever hears the end can list it too.
   */
  announce (run: MonitorRun, job: EndedRun): Promise<void>
}

/** `DELETE /api/tool-run/<id>`, whichever process or state the job was in. */
export const CANCELLED: JobEnd = { status: 'cancelled' }

/** A cancelled job's `error` text: what clients that predate the `cancelled` status matched. */
const CANCELLED_ERROR = 'cancelled'

/** The reaper's ending: the worker stopped heartbeating (it crashed or its process was killed). */
export const INTERRUPTED: JobEnd = { status: 'error', error: 'The job was interrupted (the server stopped while it ran); the call was refunded. Start it again.', refund: true, ending: 'interrupted' }

/** How the metrics name an ending (core/metrics/README.md): a cancel and the reaper's by name, else what the outcome says. */
function jobOutcome (end: JobEnd): JobOutcome {
  if (end.status === 'done' || end.status === 'cancelled') return end.status
  if (end.ending) return end.ending
  if (end.blocked) return 'blocked'
  return end.refund ? 'refunded' : 'error'
}

export const timedOut = (seconds: number): JobEnd => ({ status: 'error', error: `The job did not finish within ${seconds} s and was stopped.`, refund: true })

export class JobEnding {
  constructor (private readonly deps: { db: Db, clock: Clock, quotas: QuotaService, secrets: SecretScrubber, events: JobEvents, webhooks: WebhookDeliveries, logger: Logger, artifacts: ArtifactService, workspace: JobWorkspace, monitorRunEnded?: MonitorRunEnding, metrics: Pick<Metrics, 'jobsEnded' | 'jobDuration'> }) {}

  /**
   * Ends a running job: outcome, expiry (retention counts from the end),
   * refund, the final event (WebSocket, MCP and sync waits) and the webhook.
   * False when the job had already ended: then nothing else happens.
   * `uncountedRecords`: stored rows the account's records_today has not been
   * given (a dead worker's unflushed ones, counted by the reaper).
   */
  async endJob (job: EndingJob, end: JobEnd, residue: RunResidue = {}, uncountedRecords = 0): Promise<boolean> {
    const { db, clock, quotas, secrets, events, webhooks } = this.deps
    const now = clock()
    const failed = end.status === 'error'
    const cancelled = end.status === 'cancelled'
    const blocked = failed && Boolean(end.blocked)
    // Scratch and upload go at every ending, before the outcome is visible (a
    // client that sees the end finds them gone), and even for an ending that
    // loses the race: this process may hold the files of a run another ended.
    await this.deps.workspace.remove(job.id).catch(err => this.deps.logger.warn({ err, jobId: job.id }, 'removing the job\'s working files failed'))
    const refund = cancelled || (failed && end.refund)
    const monitorRun = job.monitorId && this.deps.monitorRunEnded ? { id: job.id, monitorId: job.monitorId } : null
    const monitorChanges = monitorRun && end.status === 'done' ? await this.compareMonitorRun(monitorRun) : null
    const error = failed ? secrets.scrubJobText(end.error) : cancelled ? CANCELLED_ERROR : null
    const writeOutcome = (client: Pick<Db, 'job'>) => client.job.updateMany({
      where: { id: job.id, status: 'running' },
      data: {
        ...residue,
        status: end.status,
        stage: cancelled ? 'cancelled' : failed ? (blocked ? 'blocked' : 'error') : 'done',
        // The error text is what the status record, the WebSocket, the agent and the webhook show.
        error,
        blocked,
        refunded: refund,
        finishedAt: now,
        expiresAt: new Date(now.getTime() + job.retentionHours * HOUR_MS),
        heartbeatAt: null,
        ...(monitorChanges !== null ? { monitorChanges } : {}),
      },
    })
    // The outcome, the refund, the reaper's count and a monitor's baseline or
    // failure count are one transaction: a process stopped between them would
    // leave an ended job never refunded, its rows never counted or its monitor
    // behind. If any of them fails, none is written, endJob throws, and the
    // job stays running: the reaper ends it later.
    let paused = false
    const count = refund || uncountedRecords > 0 || monitorRun
      ? await db.$transaction(async (tx) => {
        const { count } = await writeOutcome(tx)
        if (count === 0) return 0
        const statements = [
          ...(refund ? quotas.refundStatements(quotas.chargeAt(job.accountId, job.createdAt), tx) : []),
          ...quotas.addRecordsStatements(job.accountId, uncountedRecords, tx),
        ]
        for (const statement of statements) await statement
        if (monitorRun) paused = await this.deps.monitorRunEnded!.settle(tx as Db, monitorRun, { status: end.status, error, compared: monitorChanges !== null })
        return count
      })
      : (await writeOutcome(db)).count
    if (monitorRun) {
      await this.deps.monitorRunEnded!.settled(monitorRun, { landed: count > 0, compared: monitorChanges !== null, paused })
        .catch(err => this.deps.logger.warn({ err, jobId: job.id }, 'tidying the monitor\'s run failed'))
    }
    if (count === 0) {
      // A cancel from another process ended the job while this run was writing: the rows it
      // wrote before it stopped are kept, so its counters land on the cancelled job too.
      if (residue.records !== undefined) {
        await db.job.updateMany({ where: { id: job.id, status: 'cancelled' }, data: residue })
          .catch(err => this.deps.logger.warn({ err, jobId: job.id }, 'recording a cancelled run\'s counters failed'))
      }
      return false
    }
    this.countEnd(job, end, now)
    // The outcome is written: a failure below must not keep waiters waiting, so each step stands alone.
    const final = await db.job.findUnique({ where: { id: job.id } }).catch(err => { this.deps.logger.error({ err, jobId: job.id }, 'reading the ended job failed'); return null })
    if (!final) return true
    const record = jobStatusRecord(final)
    // The delivery is stored before the final event, so whoever hears the end can already list it.
    await webhooks.jobEnded(final, record).catch(err => this.deps.logger.error({ err, jobId: job.id }, 'recording the job\'s webhook delivery failed'))
    if (monitorRun) {
      await this.deps.monitorRunEnded!.announce(monitorRun, final)
        .catch(err => this.deps.logger.error({ err, jobId: job.id }, 'recording the monitor\'s change delivery failed'))
    }
    events.emit(job.id, { type: final.status === 'done' ? 'done' : 'error', job: record })
    return true
  }

  /** A comparison that fails leaves the run done without changes (and the baseline where it was): the failure is logged. */
  private async compareMonitorRun (run: MonitorRun): Promise<string | null> {
    return await this.deps.monitorRunEnded!.compare(run)
      .catch(err => { this.deps.logger.error({ err, jobId: run.id }, 'comparing the monitor\'s run failed'); return null })
  }

  /** jobs_ended_total, and job_duration_seconds when the job's run had started (the claim's time, read back). */
  private countEnd (job: EndingJob, end: JobEnd, now: Date): void {
    const labels = { tool: job.tool, outcome: jobOutcome(end) }
    this.deps.metrics.jobsEnded.inc(labels)
    const { startedAt } = job
    if (startedAt) this.deps.metrics.jobDuration.observe(labels, Math.max(0, now.getTime() - startedAt.getTime()) / 1000)
  }

  /**
   * Shutdown: a job this process was running goes back to the queue, its rows
   * dropped, to run again from the start at the next boot. Nothing is refunded
   * or announced: the job has not ended. A job that ended meanwhile (a cancel
   * from another process) keeps its outcome and its rows. Its files go with
   * its rows (the rerun writes them again) and its scratch goes; its upload
   * stays for the rerun.
   */
  async requeue (jobId: string): Promise<boolean> {
    const { db, artifacts, workspace } = this.deps
    await workspace.removeScratch(jobId).catch(err => this.deps.logger.warn({ err, jobId }, 'removing the job\'s scratch files failed'))
    const [, , { count }] = await db.$transaction([
      db.resultRow.deleteMany({ where: { jobId, job: { status: 'running' } } }),
      db.artifact.deleteMany({ where: { jobId, job: { status: 'running' } } }),
      db.job.updateMany({ where: { id: jobId, status: 'running' }, data: { startedAt: null, heartbeatAt: null, stage: 'queued', records: 0, columns: null, warning: null, summary: null } }),
    ])
    if (count > 0) await artifacts.store.deleteJob(jobId).catch(err => this.deps.logger.warn({ err, jobId }, 'removing the job\'s files failed'))
    return count > 0
  }
}
