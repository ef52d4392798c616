// The database-backed scheduler (no REDIS_URL): one timer in the one process
// sleeps until the earliest next_run_at of any running monitor (at most
// MAX_SLEEP_MS, so a clock change is noticed), then fires every monitor whose
// tick has come, a batch at a time. A tick is recorded once (MonitorService), so a pass that
// meets a tick already fired does nothing; after a stop, the first pass at the
// next start fires each monitor whose ticks passed meanwhile once, said missed.
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Logger } from 'pino'
import type { Clock } from '../clock.ts'
import type { DueMonitor, MonitorService } from './monitor-service.ts'
import type { ScheduleListener } from './monitor-runs.ts'

/** The longest the timer sleeps: a monitor whose tick is earlier than the sleep's end wakes it (`scheduled`). */
const MAX_SLEEP_MS = 30_000
/** Monitors fired per batch (one read, one tick insert, one batch start, one next-tick update); a pass reads again until none is due. */
const PASS_BATCH = 500

/** What a process's monitor scheduler does: start at boot, stop at close. */
export interface MonitorScheduler {
  start (): Promise<void>
  stop (): Promise<void>
}

/**
 * Fires every monitor whose tick has come, PASS_BATCH at a time
 * (MonitorService.fireDueBatch: a few statements per batch, its runs one batch
 * start), reading again until fewer are due; a batch that fails, or `stopping`,
 * ends it (with monitors always due it would not end by itself). The database
 * scheduler's pass, and the BullMQ scheduler's at start (the ticks missed
 * while the cluster was down). `failing`: a batch met an error (its monitors
 * stay due: the database scheduler's next pass, a second later, tries them again).
 */
export async function fireEveryDue (deps: { monitors: MonitorService, clock: Clock, logger: Logger }, stopping: () => boolean): Promise<{ fired: number, failing: boolean }> {
  let fired = 0
  let failing = false
  for (;;) {
    const now = deps.clock()
    let due: DueMonitor[] = []
    try {
      due = await deps.monitors.due(now, PASS_BATCH)
      const { failures } = await deps.monitors.fireDueBatch(due, now)
      for (const { monitorId, err } of failures) {
        failing = true
        deps.logger.error({ err, monitorId }, 'a monitor\'s tick failed; the monitor stays due')
      }
    } catch (err) {
      failing = true
      deps.logger.error({ err, monitors: due.length }, 'a batch of monitor ticks failed; its monitors stay due')
    }
    fired += due.length
    if (due.length < PASS_BATCH || failing || stopping()) return { fired, failing }
    await nextTurn()
  }
}

export class DatabaseMonitorScheduler implements MonitorScheduler, ScheduleListener {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<number> = Promise.resolve(0)
  private stopped = true
  /** Set by stop: a pass ends after its batch (with monitors always due, a pass would not end by itself). */
  private stopping = false
  /** The last pass met an error: the next waits a second rather than retrying at once. */
  private failing = false

  constructor (private readonly deps: { monitors: MonitorService, clock: Clock, logger: Logger }) {
    deps.monitors.listen(this)
  }

  async start (): Promise<void> {
    this.stopped = false
    this.stopping = false
    await this.pass()
    this.arm()
  }

  async stop (): Promise<void> {
    this.stopped = true
    this.stopping = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    await this.running.catch(() => 0)
  }

  /**
   * Fires every monitor whose tick has come (fireEveryDue); passes run one at
   * a time (a pass asked for during another runs after it). Returns how many
   * monitors it fired.
   */
  pass (): Promise<number> {
    this.running = this.running.catch(() => 0).then(async () => {
      this.failing = false
      const { fired, failing } = await fireEveryDue(this.deps, () => this.stopping)
      this.failing = failing
      return fired
    })
    return this.running
  }

  async scheduled (): Promise<void> { if (!this.stopped) this.arm() }
  async unscheduled (): Promise<void> {}

  private arm (): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (this.stopped) return
    void this.deps.monitors.earliestNext().then(next => {
      if (this.stopped) return
      const wait = next ? Math.min(MAX_SLEEP_MS, Math.max(this.failing ? 1000 : 0, next.getTime() - this.deps.clock().getTime())) : MAX_SLEEP_MS
      if (this.timer) clearTimeout(this.timer)
      this.timer = setTimeout(() => {
        this.timer = null
        this.pass().catch(err => this.deps.logger.error({ err }, 'a monitor pass failed')).finally(() => this.arm())
      }, wait)
      this.timer.unref()
    }, err => this.deps.logger.error({ err }, 'reading the next monitor tick failed'))
  }
}
