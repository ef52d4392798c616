// What happens to a monitor when one of its runs ends, apart from starting
// runs: JobEnding calls `runEnded` (through the container's monitorRunEnded),
// and MonitorService counts a refused tick here. It takes no JobService, so the
// job's ending reaches monitors without a cycle (jobs → ending → monitor runs).
import type { Logger } from 'pino'
import type { Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import type { HotReads } from '../db/hot-reads.ts'
import type { ToolRegistry } from '../tools/registry.ts'
import { iterateRows } from '../jobs/result-rows.ts'
import type { Schedule } from './schedule.ts'
import { compareRun } from './run-comparison.ts'

/** Failed runs in a row after which a monitor pauses itself. */
export const MAX_FAILURES_IN_A_ROW = 5

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

export class MonitorRuns {
  constructor (private readonly deps: { db: Db, hotReads: HotReads, clock: Clock, registry: ToolRegistry, logger: Logger, scheduleNotices: ScheduleNotices }) {}

  /**
   * JobEnding's hook for a monitor's run (before its final event and webhook):
   * a done run is compared with the baseline and becomes it; a failed one
   * counts towards the pause. Returns the change counts stored on the job.
   */
  async runEnded (job: { id: string, monitorId: string, status: string, error: string | null }): Promise<string | null> {
    const { db, registry } = this.deps
    const monitor = await db.monitor.findUnique({ where: { id: job.monitorId } })
    if (!monitor) return null
    if (job.status !== 'done') {
      await this.countFailure(monitor.id, job.error ?? 'the run failed')
      return null
    }
    const declaration = registry.get(monitor.tool)?.declaration
    if (!declaration?.rowKey?.length) return null
    const counts = await compareRun({
      db,
      monitorId: monitor.id,
      runId: job.id,
      baselineRunId: monitor.baselineRunId,
      rowKey: declaration.rowKey,
      watch: declaration.watch ?? [],
      rows: iterateRows(this.deps.hotReads, job.id),
    })
    const text = JSON.stringify(counts)
    await db.job.update({ where: { id: job.id }, data: { monitorChanges: text } })
    await db.monitor.update({ where: { id: monitor.id }, data: { baselineRunId: job.id, failures: 0 } })
    await db.monitorItem.deleteMany({ where: { monitorId: monitor.id, runId: { not: job.id } } })
    return text
  }

  async countFailure (monitorId: string, reason: string): Promise<void> {
    const updated = await this.deps.db.monitor.update({ where: { id: monitorId }, data: { failures: { increment: 1 } } }).catch(() => null)
    if (updated && updated.failures >= MAX_FAILURES_IN_A_ROW && !updated.pausedAt) {
      await this.pause(monitorId, `Paused after ${updated.failures} failed runs in a row; the last: ${reason}`)
      this.deps.logger.info({ monitorId, failures: updated.failures }, 'monitor paused after repeated failures')
    }
  }

  async pause (id: string, reason: string) {
    const now = this.deps.clock()
    const updated = await this.deps.db.monitor.update({ where: { id }, data: { pausedAt: now, pausedReason: reason, nextRunAt: null, updatedAt: now } })
    await this.deps.scheduleNotices.unscheduled(id)
    return updated
  }
}
