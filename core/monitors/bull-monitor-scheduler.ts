// The cluster's scheduler (REDIS_URL): one BullMQ job scheduler per running
// monitor (`upsertJobScheduler`, keyed by the monitor's id) on the queue
// `monitor-ticks`; a tick is a BullMQ job that one worker of the cluster takes
// (processes that run jobs: workers and RUN_JOBS=1 API processes). Its handler
// fires the monitor's tick through MonitorService.fire, which records the tick
// once, so a redelivered tick job is still one run. At start, a running process
// puts back every running monitor's scheduler (a Redis that restarted empty)
// and fires, once and said missed, the monitors whose next_run_at passed while
// the cluster was down. This module loads only with REDIS_URL (bullmq stays out
// of a single-process server).
import { Queue, Worker, type Job } from 'bullmq'
import { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Clock } from '../clock.ts'
import { bullConnection, keepErrorListener, lateErrors, quietErrors } from '../jobs/bull-queue.ts'
import type { MonitorService } from './monitor-service.ts'
import type { ScheduleListener } from './monitor-runs.ts'
import type { MonitorScheduler } from './monitor-scheduler.ts'
import { everyMs, type Schedule } from './schedule.ts'

const QUEUE_NAME = 'monitor-ticks'
const CLOSE_WAIT_MS = 3000

interface TickData { monitorId: string }

export interface BullMonitorSchedulerOptions {
  redisUrl: string
  keyPrefix: string
  runJobs: boolean
  monitors: MonitorService
  clock: Clock
  logger: Logger
}

export class BullMonitorScheduler implements MonitorScheduler, ScheduleListener {
  private readonly connection: Redis
  private readonly queue: Queue<TickData>
  private worker: Worker<TickData> | null = null
  private workerConnection: Redis | null = null

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
    for (const monitor of await monitors.active()) {
      if (monitor.nextRunAt && monitor.nextRunAt.getTime() < clock().getTime()) {
        await monitors.fireDue({ id: monitor.id, schedule: JSON.stringify(monitor.schedule), nextRunAt: monitor.nextRunAt }, clock())
          .catch(err => logger.error({ err, monitorId: monitor.id }, 'a missed monitor tick failed'))
      }
      await this.scheduled({ id: monitor.id, schedule: monitor.schedule, nextRunAt: monitor.nextRunAt ?? clock() })
    }
    this.workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null })
    this.workerConnection.on('error', quietErrors(logger, 'redis connection'))
    const worker = new Worker<TickData>(QUEUE_NAME, job => this.tick(job), { connection: this.workerConnection, prefix: keyPrefix, concurrency: 4, autorun: false })
    this.worker = worker
    worker.on('error', quietErrors(logger, 'monitor tick worker'))
    worker.on('failed', (job, err) => logger.error({ err, monitorId: job?.data.monitorId }, 'a monitor tick failed'))
    keepErrorListener(bullConnection(worker, 'connection'), lateErrors(logger))
    keepErrorListener(bullConnection(worker, 'blockingConnection'), lateErrors(logger))
    worker.waitUntilReady().then(() => worker.run()).catch((err: Error) => {
      if (this.worker) logger.error({ err }, 'the monitor tick worker stopped')
    })
  }

  /** One tick: the time BullMQ planned it for (its `prevMillis`), or now when it comes late. */
  private async tick (job: Job<TickData>): Promise<void> {
    const { monitors, clock } = this.options
    const planned = job.opts.prevMillis ?? 0
    const now = clock()
    const at = new Date(Math.max(now.getTime(), planned))
    // Deleted or paused since the tick was planned: nothing to run.
    const schedule = await monitors.scheduleOf(job.data.monitorId)
    if (schedule) await monitors.fireDue({ id: job.data.monitorId, schedule: JSON.stringify(schedule), nextRunAt: null }, at)
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

  async stop (): Promise<void> {
    const worker = this.worker
    this.worker = null
    const closing = Promise.allSettled([worker?.close(true), this.queue.close()])
    const timer = new Promise(resolve => setTimeout(resolve, CLOSE_WAIT_MS).unref())
    await Promise.race([closing, timer])
    for (const connection of [this.connection, this.workerConnection]) connection?.disconnect()
  }
}
