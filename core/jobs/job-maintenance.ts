// Background upkeep, on one timer: the retention sweeper (rows, artifacts and
// the job itself go once retention has passed), the stale-job reaper (a job
// whose worker stopped heartbeating ends as error, refunded), and at start the
// recovery of jobs that were queued when the server stopped.
import type { Logger } from 'pino'
import type { Clock } from '../clock.ts'
import type { AppConfig } from '../config.ts'
import type { Db } from '../db/database.ts'
import { effectiveTier, tierLimits } from '../quotas/tiers.ts'
import { INTERRUPTED, type JobEnding } from './job-ending.ts'
import type { JobOffers } from './job-queue.ts'
import type { RunningJobs } from './running-jobs.ts'
import type { ArtifactService } from '../artifacts/artifact-service.ts'
import type { JobWorkspace } from '../artifacts/job-workspace.ts'

/** An upload whose request died before its job existed is kept this long (a slow client's request is shorter). */
const INCOMING_UPLOAD_MAX_AGE_MS = 6 * 3_600_000

export class JobMaintenance {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> | null = null

  constructor (private readonly deps: {
    db: Db, clock: Clock, runner: RunningJobs, ending: JobEnding, queue: JobOffers, logger: Logger,
    artifacts: ArtifactService, workspace: JobWorkspace, config: Pick<AppConfig, 'jobHeartbeatMs' | 'jobSweepIntervalMs'>
  }) {}

  /** Re-queues jobs that never started, reaps dead ones, then sweeps on a timer. */
  async start (): Promise<void> {
    const recovered = await this.recoverQueued()
    if (recovered) this.deps.logger.info({ count: recovered }, 'resumed queued jobs')
    await this.tick()
    this.timer = setInterval(() => { void this.tick() }, this.deps.config.jobSweepIntervalMs)
    this.timer.unref()
  }

  async stop (): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.running
  }

  /** One pass of every task; overlapping passes are skipped. */
  tick (): Promise<void> {
    if (this.running) return this.running
    this.running = (async () => {
      try {
        // A queue keyed by job id takes the same offer twice as one: queued rows
        // are offered again on every pass, so an offer lost with a Redis that
        // restarted empty (or with the process that was adding it) comes back.
        if (this.deps.queue.dedupesById) await this.recoverQueued()
        await this.reapStale()
        await this.sweepExpired()
        await this.sweepWorkspace()
      } catch (err) {
        this.deps.logger.warn({ err }, 'job maintenance pass failed')
      } finally {
        this.running = null
      }
    })()
    return this.running
  }

  /**
   * Queued jobs go through the same fair-share scheduler as new starts, each
   * with its account's running cap of now and its place in its account's line
   * (the account's claimed jobs, then its waiting ones in order): one count
   * for every account, not one per job, since every pass of the distributed
   * mode calls this.
   */
  async recoverQueued (): Promise<number> {
    const { db, clock } = this.deps
    const now = clock()
    const queued = await db.job.findMany({
      where: { status: 'running', startedAt: null },
      orderBy: { createdAt: 'asc' },
      select: { id: true, accountId: true, account: { select: { tier: true, proExpiresAt: true } } },
    })
    if (!queued.length) return 0
    const claimed = await db.job.groupBy({ by: ['accountId'], where: { status: 'running', startedAt: { not: null } }, _count: { _all: true } })
    const places = new Map(claimed.map(c => [c.accountId, c._count._all]))
    for (const j of queued) {
      const place = (places.get(j.accountId) ?? 0) + 1
      places.set(j.accountId, place)
      this.deps.queue.enqueue({ id: j.id, accountId: j.accountId, maxRunning: tierLimits(effectiveTier(j.account, now)).max_running_jobs, place })
    }
    return queued.length
  }

  /** Jobs whose worker has not written a heartbeat for three intervals: that worker is gone. */
  async reapStale (): Promise<number> {
    const { db, clock, runner, ending } = this.deps
    const now = clock()
    const cutoff = new Date(now.getTime() - 3 * this.deps.config.jobHeartbeatMs)
    const stale = await db.job.findMany({
      where: { status: 'running', startedAt: { not: null }, OR: [{ heartbeatAt: null }, { heartbeatAt: { lt: cutoff } }] },
      select: { id: true, accountId: true, tool: true, createdAt: true, startedAt: true, retentionHours: true, records: true, monitorId: true },
    })
    let reaped = 0
    for (const job of stale) {
      if (runner.isRunningHere(job.id)) continue
      // The dead worker's last heartbeat may predate its last rows: count what was
      // stored, and give the account's records_today the rows it never flushed
      // (in the ending's own transaction: JobEnding.endJob).
      // One job's failure (the database busy) does not hold back the others: it is tried again at the next pass.
      try {
        const records = await db.resultRow.count({ where: { jobId: job.id } })
        if (await ending.endJob(job, INTERRUPTED, { records }, Math.max(0, records - job.records))) reaped++
      } catch (err) {
        this.deps.logger.warn({ err, jobId: job.id }, 'ending an interrupted job failed; the next pass tries again')
      }
    }
    if (reaped) this.deps.logger.warn({ count: reaped }, 'ended interrupted jobs')
    return reaped
  }

  async sweepExpired (): Promise<number> {
    const { db, clock } = this.deps
    const now = clock()
    let swept = 0
    for (;;) {
      const expired = await db.job.findMany({ where: { expiresAt: { lte: now } }, select: { id: true }, take: 100 })
      if (expired.length === 0) break
      for (const job of expired) {
        await this.deps.artifacts.deleteForJob(job.id)
        await this.deps.workspace.remove(job.id)
        await db.resultRow.deleteMany({ where: { jobId: job.id } })
        await db.webhookAttempt.deleteMany({ where: { delivery: { jobId: job.id } } })
        await db.webhookDelivery.deleteMany({ where: { jobId: job.id } })
        // deleteMany: another process sharing the database may have swept it first.
        await db.job.deleteMany({ where: { id: job.id } })
        swept++
      }
    }
    await db.idempotencyRecord.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - 24 * 3_600_000) } } })
    return swept
  }

  /** Working files an ending never removed (a crash) and uploads of requests that died before their job existed. */
  async sweepWorkspace (): Promise<number> {
    const { db, clock } = this.deps
    return this.deps.workspace.sweep(async (ids) => {
      const running = await db.job.findMany({ where: { id: { in: ids }, status: 'running' }, select: { id: true } })
      return new Set(running.map(j => j.id))
    }, INCOMING_UPLOAD_MAX_AGE_MS, clock().getTime())
  }
}
