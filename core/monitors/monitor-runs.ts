// What happens to a monitor when one of its runs ends, apart from starting
// runs: JobEnding calls `compare`, `settle`, `settled` and `announce` around a
// run's outcome (through the container's monitorRunEnded),
// and MonitorService counts a refused tick here. It takes no JobService, so the
// job's ending reaches monitors without a cycle (jobs → ending → monitor runs).
import type { Logger } from 'pino'
import type { Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import type { HotReads } from '../db/hot-reads.ts'
import type { ToolRegistry } from '../tools/registry.ts'
import { iterateRowFields } from '../jobs/result-rows.ts'
import type { Schedule } from './schedule.ts'
import { compareRun } from './run-comparison.ts'
import type { EndedRun, MonitorRun, MonitorRunEnding } from '../jobs/job-ending.ts'
import type { MonitorChangeCounts } from '../jobs/job-view.ts'
import type { WebhookDeliveries } from '../webhooks/webhook-deliveries.ts'

/** Failed runs in a row after which a monitor pauses itself. */
export const MAX_FAILURES_IN_A_ROW = 5

/**
 * Changes of each kind a `monitor.changed` body lists; the rest are read from
 * its `changes_url`. A run can change every row it has (tens of thousands), and
 * a webhook body is read whole by its receiver, retried for a day, and stored
 * until its job goes.
 */
export const CHANGES_PER_KIND_IN_A_WEBHOOK = 20
const LISTED_KINDS = ['added', 'removed', 'changed'] as const

export interface ScheduleListener {
  scheduled (monitor: { id: string, schedule: Schedule, nextRunAt: Date }): Promise<void>
  unscheduled (monitorId: string): Promise<void>
}

/** Schedule changes, passed on to the scheduler that listens (the BullMQ one); nothing without one. */
export class ScheduleNotices implements ScheduleListener {
  private listener: ScheduleListener | null = null

  listen (listener: ScheduleListener): void { this.listener = listener }
  async scheduled (monitor: { id: string, schedule: Schedule, nextRunAt: Date }): Promise<void> { await this.listener?.scheduled(monitor) }
  async unscheduled (monitorId: string): Promise<void> { await this.listener?.unscheduled(monitorId) }
}

export class MonitorRuns implements MonitorRunEnding {
  constructor (private readonly deps: { db: Db, hotReads: HotReads, clock: Clock, registry: ToolRegistry, logger: Logger, scheduleNotices: ScheduleNotices, webhooks: WebhookDeliveries }) {}

  /** Before a done run's outcome is written (JobEnding): its comparison with the baseline, or null. */
  async compare (run: MonitorRun): Promise<string | null> {
    const { db, registry } = this.deps
    const monitor = await db.monitor.findUnique({ where: { id: run.monitorId } })
    const declaration = monitor && registry.get(monitor.tool)?.declaration
    if (!monitor || !declaration?.rowKey?.length) return null
    const watch = declaration.watch ?? []
    const counts = await compareRun({
      db,
      monitorId: monitor.id,
      runId: run.id,
      baselineRunId: monitor.baselineRunId,
      rowKey: declaration.rowKey,
      watch,
      fields: iterateRowFields(this.deps.hotReads, run.id, [...declaration.rowKey, ...watch]),
    })
    return JSON.stringify(counts)
  }

  /**
   * In the outcome's transaction: a compared run becomes the baseline; an
   * error counts toward the pause (a cancel is the owner's doing, not the
   * source's, and does not). True when this paused the monitor.
   */
  async settle (tx: Db, run: MonitorRun, outcome: { status: string, error: string | null, compared: boolean }): Promise<boolean> {
    if (outcome.status === 'done') {
      if (outcome.compared) await tx.monitor.updateMany({ where: { id: run.monitorId }, data: { baselineRunId: run.id, failures: 0 } })
      return false
    }
    if (outcome.status !== 'error') return false
    await tx.monitor.updateMany({ where: { id: run.monitorId }, data: { failures: { increment: 1 } } })
    const monitor = await tx.monitor.findUnique({ where: { id: run.monitorId } })
    if (!monitor || monitor.failures < MAX_FAILURES_IN_A_ROW || monitor.pausedAt) return false
    await tx.monitor.update({ where: { id: monitor.id }, data: this.pausing(`Paused after ${monitor.failures} failed runs in a row; the last: ${outcome.error ?? 'the run failed'}`) })
    this.deps.logger.info({ monitorId: monitor.id, failures: monitor.failures }, 'monitor paused after repeated failures')
    return true
  }

  /** After the outcome: the older baseline goes; or, when another ending won, this run's comparison goes. */
  async settled (run: MonitorRun, result: { landed: boolean, compared: boolean, paused: boolean }): Promise<void> {
    const { db } = this.deps
    if (result.paused) await this.deps.scheduleNotices.unscheduled(run.monitorId)
    if (!result.compared) return
    if (result.landed) {
      await db.monitorItem.deleteMany({ where: { monitorId: run.monitorId, runId: { not: run.id } } })
    } else {
      await db.monitorItem.deleteMany({ where: { monitorId: run.monitorId, runId: run.id } })
      await db.monitorChange.deleteMany({ where: { jobId: run.id } })
    }
  }

  /**
   * After the run's `job.done` is stored: `monitor.changed` when its comparison found rows added,
   * removed or changed (not a first run, which has no baseline; not a comparison that failed,
   * `changes: null`; not duplicates alone), to the run's target by the rule of its end (the
   * monitor's webhook as the run carries it, else the account's default), if it asks for `changed`.
   */
  async announce (run: MonitorRun, job: EndedRun): Promise<void> {
    if (job.status !== 'done' || !job.monitorChanges) return
    const counts = JSON.parse(job.monitorChanges) as MonitorChangeCounts
    if (counts.first_run || counts.added + counts.removed + counts.changed === 0) return
    await this.deps.webhooks.jobEvent(job, 'changed', 'monitor.changed', () => this.changedPayload(run, job, counts))
  }

  /** `{monitor, run, changes: <the counts, as on the run's record>, added, removed, changed: the first of each, truncated, changes_url}`. */
  private async changedPayload (run: MonitorRun, job: EndedRun, counts: MonitorChangeCounts): Promise<Record<string, unknown>> {
    const { db } = this.deps
    const monitor = await db.monitor.findUnique({ where: { id: run.monitorId }, select: { id: true, name: true, tool: true } })
    const lists = await Promise.all(LISTED_KINDS.map(async kind => counts[kind] === 0
      ? []
      : (await db.monitorChange.findMany({ where: { jobId: job.id, kind }, orderBy: { seq: 'asc' }, take: CHANGES_PER_KIND_IN_A_WEBHOOK, select: { data: true } }))
          .map(r => JSON.parse(r.data) as unknown)))
    return {
      monitor: { id: run.monitorId, name: monitor?.name ?? null, tool: monitor?.tool ?? null },
      run: { id: job.id, status: job.status, records: job.records, finished_at: job.finishedAt?.toISOString() ?? null },
      changes: counts,
      ...Object.fromEntries(LISTED_KINDS.map((kind, i) => [kind, lists[i]])),
      truncated: LISTED_KINDS.some((kind, i) => counts[kind] > lists[i]!.length),
      changes_url: `/api/monitors/${run.monitorId}/changes?run=${job.id}`,
    }
  }

  /** A tick refused before its run started (MonitorService): counts toward the pause like a failed run. */
  async countFailure (monitorId: string, reason: string): Promise<void> {
    const updated = await this.deps.db.monitor.update({ where: { id: monitorId }, data: { failures: { increment: 1 } } }).catch(() => null)
    if (updated && updated.failures >= MAX_FAILURES_IN_A_ROW && !updated.pausedAt) {
      await this.pause(monitorId, `Paused after ${updated.failures} failed runs in a row; the last: ${reason}`)
      this.deps.logger.info({ monitorId, failures: updated.failures }, 'monitor paused after repeated failures')
    }
  }

  private pausing (reason: string) {
    const now = this.deps.clock()
    return { pausedAt: now, pausedReason: reason, nextRunAt: null, updatedAt: now }
  }

  async pause (id: string, reason: string) {
    const updated = await this.deps.db.monitor.update({ where: { id }, data: this.pausing(reason) })
    await this.deps.scheduleNotices.unscheduled(id)
    return updated
  }
}
