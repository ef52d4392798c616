// The cluster's scheduler (REDIS_URL): one BullMQ job scheduler per running
// monitor (`upsertJobScheduler`, keyed by the monitor's id) on the queue
// `monitor-ticks`; a tick is a BullMQ job that one worker of the cluster takes
// (processes that run jobs: workers and RUN_JOBS=1 API processes). The ticks a
// process takes are fired together, up to TICK_BATCH at once, through
// MonitorService.fireDueBatch (one read of the monitors, one insert of the
// ticks, one batch start of the runs): each tick is recorded once, so a
// redelivered tick job is still one run. At start, a running process fires,
// once and said missed, the monitors whose next_run_at passed while the
// cluster was down (the database scheduler's batches), then puts back every
// running monitor's scheduler (a Redis that restarted empty), many upserts in
// flight at once. This module loads only with REDIS_URL (bullmq stays out of a
// single-process server).
import { Queue, Worker, type Job } from 'bullmq'
import { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Clock } from '../clock.ts'
import { bullConnection, keepErrorListener, lateErrors, quietErrors } from '../jobs/bull-queue.ts'
import type { DueMonitor, MonitorService } from './monitor-service.ts'
import type { ScheduleListener } from './monitor-runs.ts'
import { fireEveryDue, type MonitorScheduler } from './monitor-scheduler.ts'
import { everyMs, type Schedule } from './schedule.ts'

const QUEUE_NAME = 'monitor-ticks'
const CLOSE_WAIT_MS = 3000
/** Ticks fired together at most (one fireDueBatch), and the tick jobs a process holds at once. */
const TICK_BATCH = 500
/** How long the first tick of a batch waits for more before the batch is fired (a tick alone is fired this much later). */
const GATHER_MS = 50
/** Job schedulers put back at once at start: each upsert is one script call, sent without waiting for the replies before it. */
const UPSERTS_IN_FLIGHT = 100

interface TickData { monitorId: string }

/** A tick job taken, waiting for its batch; its job completes (or fails) when the batch has fired it. */
interface TakenTick { monitorId: string, planned: number, done: () => void, failed: (err: unknown) => void }

export interface BullMonitorSchedulerOptions {
  redisUrl: string
  keyPrefix: string
  runJobs: boolean
  monitors: MonitorService
  clock: Clock
  logger: Logger
  /** How long a batch gathers ticks (GATHER_MS; the tests of batching wait longer). */
  gatherMs?: number
}

export class BullMonitorScheduler implements MonitorScheduler, ScheduleListener {
  private readonly connection: Redis
  private readonly queue: Queue<TickData>
  private worker: Worker<TickData> | null = null
  private workerConnection: Redis | null = null
  private taken: TakenTick[] = []
  private gathering: NodeJS.Timeout | null = null
  /** The batch being fired; the ticks taken meanwhile are the next batch, fired when it ends. */
  private firing: Promise<void> | null = null
  private stopped = false

  constructor (private readonly options: BullMonitorSchedulerOptions) {
    const { redisUrl, keyPrefix, logger } = options
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null })
    this.connection.on('error', quietErrors(logger, 'redis connection'))
    this.queue = new Queue<TickData>(QUEUE_NAME, { connection: this.connection, prefix: keyPrefix })
    this.queue.on('error', quietErrors(logger, 'monitor tick queue'))
    keepErrorListener(bullConnection(this.queue, 'connection'), lateErrors(logger))
    options.monitors.listen(this)
  }

  async start (): Promise<void> {
    if (!this.options.runJobs) return
    const { monitors, clock, logger, redisUrl, keyPrefix } = this.options
    await fireEveryDue({ monitors, clock, logger }, () => this.stopped)
    // Read after the missed ticks: their monitors' next ticks are the new ones.
    const active = await monitors.active()
    for (let i = 0; i < active.length; i += UPSERTS_IN_FLIGHT) {
      await Promise.all(active.slice(i, i + UPSERTS_IN_FLIGHT).map(m => this.scheduled({ id: m.id, schedule: m.schedule, nextRunAt: m.nextRunAt ?? clock() })))
    }
    if (this.stopped) return
    this.workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null })
    this.workerConnection.on('error', quietErrors(logger, 'redis connection'))
    const worker = new Worker<TickData>(QUEUE_NAME, job => this.take(job), { connection: this.workerConnection, prefix: keyPrefix, concurrency: TICK_BATCH, autorun: false })
    this.worker = worker
    worker.on('error', quietErrors(logger, 'monitor tick worker'))
    worker.on('failed', (job, err) => logger.error({ err, monitorId: job?.data.monitorId }, 'a monitor tick failed'))
    keepErrorListener(bullConnection(worker, 'connection'), lateErrors(logger))
    keepErrorListener(bullConnection(worker, 'blockingConnection'), lateErrors(logger))
    worker.waitUntilReady().then(() => worker.run()).catch((err: Error) => {
      if (this.worker) logger.error({ err }, 'the monitor tick worker stopped')
    })
  }

  /** A tick job taken: it waits for its batch (TICK_BATCH ticks, or GATHER_MS after the batch's first, or the end of the batch being fired). */
  private take (job: Job<TickData>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.taken.push({ monitorId: job.data.monitorId, planned: job.opts.prevMillis ?? 0, done: resolve, failed: reject })
      if (this.firing) return
      if (this.taken.length >= TICK_BATCH) this.fireTaken()
      else this.gathering ??= setTimeout(() => this.fireTaken(), this.options.gatherMs ?? GATHER_MS)
    })
  }

  private fireTaken (): void {
    if (this.gathering) clearTimeout(this.gathering)
    this.gathering = null
    const batch = this.taken.splice(0, TICK_BATCH)
    if (!batch.length || this.stopped) return
    this.firing = this.fireBatch(batch).finally(() => {
      this.firing = null
      // Taken while the batch fired: they have waited already.
      if (this.taken.length) this.fireTaken()
    })
  }

  /**
   * A batch of taken ticks: one read of their running monitors (a monitor
   * deleted or paused since its tick was planned is not read: nothing runs),
   * then fireDueBatch for each instant the ticks fire at: now, or the time
   * BullMQ planned (its `prevMillis`) for a tick taken before it (usually one
   * instant), a monitor once per instant. A tick whose monitor's fire failed
   * fails its job (logged).
   */
  private async fireBatch (batch: readonly TakenTick[]): Promise<void> {
    const { monitors, clock } = this.options
    const failed = new Map<string, unknown>()
    try {
      const now = clock().getTime()
      const running = new Map((await monitors.running([...new Set(batch.map(t => t.monitorId))])).map(m => [m.id, m]))
      const byInstant = new Map<number, Map<string, DueMonitor>>()
      for (const tick of batch) {
        const monitor = running.get(tick.monitorId)
        if (!monitor) continue
        const at = Math.max(now, tick.planned)
        const group = byInstant.get(at) ?? new Map<string, DueMonitor>()
        byInstant.set(at, group)
        // A BullMQ tick is late by the clock alone (its tick is the one planned), as next_run_at does not say which it is.
        group.set(monitor.id, { ...monitor, nextRunAt: null })
      }
      for (const [at, group] of byInstant) {
        const { failures } = await monitors.fireDueBatch([...group.values()], new Date(at))
        for (const { monitorId, err } of failures) failed.set(monitorId, err)
      }
    } catch (err) {
      for (const tick of batch) failed.set(tick.monitorId, err)
    }
    for (const tick of batch) {
      if (failed.has(tick.monitorId)) tick.failed(failed.get(tick.monitorId))
      else tick.done()
    }
  }

  async scheduled (monitor: { id: string, schedule: Schedule, nextRunAt: Date }): Promise<void> {
    const repeat = 'cron' in monitor.schedule
      ? { pattern: monitor.schedule.cron, tz: monitor.schedule.tz }
      // Anchored at the next tick: BullMQ's later ticks are then the schedule's multiples of the interval.
      : { every: everyMs(monitor.schedule.every)!, startDate: monitor.nextRunAt }
    await this.queue.upsertJobScheduler(monitor.id, repeat, { name: 'tick', data: { monitorId: monitor.id }, opts: { removeOnComplete: true, removeOnFail: true } })
  }

  async unscheduled (monitorId: string): Promise<void> {
    await this.queue.removeJobScheduler(monitorId)
  }

  /**
   * Stops taking ticks; the batch being fired gets CLOSE_WAIT_MS. Ticks taken
   * and not yet fired stay active in Redis and are redelivered (BullMQ's
   * stalled check) to another process or this one's next start.
   */
  async stop (): Promise<void> {
    this.stopped = true
    if (this.gathering) clearTimeout(this.gathering)
    this.gathering = null
    const worker = this.worker
    this.worker = null
    const closing = Promise.allSettled([worker?.close(true), this.queue.close(), this.firing])
    const timer = new Promise(resolve => setTimeout(resolve, CLOSE_WAIT_MS).unref())
    await Promise.race([closing, timer])
    for (const connection of [this.connection, this.workerConnection]) connection?.disconnect()
  }
}
