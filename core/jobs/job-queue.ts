// Where started jobs wait for a worker. The embedded default runs them in this
// process with a fixed concurrency; a distributed queue (BullMQ on REDIS_URL)
// implements the same interface.
import type { Context } from '@opentelemetry/api'
import { currentContext, withContext } from '../telemetry/tracing.ts'
export interface QueuedJob {
  id: string
  /** Whose job it is: slots are shared out across accounts, not first come first served. */
  accountId: string
  /** The account's per-tier cap on jobs running at once (`max_running_jobs`). */
  maxRunning: number
  /**
   * The job's place in its account's line when offered (its account's claimed
   * jobs, plus its own rank among the waiting ones: 1 for an account's only
   * job): the distributed queue's priority. The embedded queue keeps its lines itself.
   */
  place: number
}

/**
 * What the job service and the maintenance need of the queue: offering a job.
 * The queue runs jobs through the runner; those two only hand it work.
 */
export type JobOffers = Pick<JobQueue, 'enqueue' | 'dedupesById'>

export interface JobQueue {
  enqueue (job: QueuedJob): void
  /**
   * True when enqueueing a job already waiting is a no-op (the job id is the
   * queue's key): the maintenance then re-offers every queued job on each pass,
   * which brings back jobs a queue lost (a Redis that restarted empty). The
   * embedded queue is rebuilt from the database at start instead.
   */
  readonly dedupesById: boolean
  /** Jobs waiting or running in this process. */
  size (): number
  /**
   * Shutdown, first step: stops taking new work, and lets running jobs finish
   * within the queue's grace period (none for the embedded queue); the runner's
   * shutdown then hands back whatever still runs.
   */
  drain (): Promise<void>
  /** Last step: waits for running handlers and releases the queue's connections. */
  close (): Promise<void>
}

/** One account's place in the queue. */
interface AccountLine {
  /** Each job with the trace context it was started in (null: tracing is off), so its run continues that trace. */
  waiting: Array<{ id: string, trace: Context | null }>
  running: number
  maxRunning: number
  /** The turn at which this account last got a slot; 0 = not since it was last idle. */
  lastServed: number
}

/**
 * Fair share: each free slot goes to the account that was served least
 * recently among those with a waiting job and fewer running jobs than their
 * cap; each account's own jobs run in the order they came. So an account's
 * backlog never delays another account's first job by more than one slot
 * turnover, and no account holds more slots than its tier allows.
 */
export class InProcessQueue implements JobQueue {
  readonly dedupesById = false
  private readonly lines = new Map<string, AccountLine>()
  private readonly active = new Set<Promise<void>>()
  private waitingCount = 0
  private turn = 0
  private closed = false

  constructor (private readonly concurrency: number, private readonly handler: (jobId: string) => Promise<void>) {}

  enqueue (job: QueuedJob): void {
    if (this.closed) return
    let line = this.lines.get(job.accountId)
    if (!line) {
      line = { waiting: [], running: 0, maxRunning: job.maxRunning, lastServed: 0 }
      this.lines.set(job.accountId, line)
    }
    // The latest start carries the account's current tier (an upgrade applies at once).
    line.maxRunning = Math.max(1, job.maxRunning)
    line.waiting.push({ id: job.id, trace: currentContext() })
    this.waitingCount++
    this.pump()
  }

  size (): number { return this.waitingCount + this.active.size }

  /** The account whose turn it is, or undefined when every waiting account is at its cap. */
  private nextAccount (): [string, AccountLine] | undefined {
    let best: [string, AccountLine] | undefined
    // Map order is arrival order, so among equals the account that came first wins.
    for (const entry of this.lines) {
      const line = entry[1]
      if (line.waiting.length === 0 || line.running >= line.maxRunning) continue
      if (!best || line.lastServed < best[1].lastServed) best = entry
    }
    return best
  }

  private pump (): void {
    while (!this.closed && this.active.size < this.concurrency) {
      const next = this.nextAccount()
      if (!next) return
      const [accountId, line] = next
      const { id: jobId, trace } = line.waiting.shift()!
      this.waitingCount--
      line.running++
      line.lastServed = ++this.turn
      const run: Promise<void> = withContext(trace, () => this.handler(jobId))
        .catch(() => { /* the handler records its own failures */ })
        .finally(() => {
          this.active.delete(run)
          line.running--
          // An idle account leaves the rotation: its next job is a first job again.
          if (line.running === 0 && line.waiting.length === 0) this.lines.delete(accountId)
          this.pump()
        })
      this.active.add(run)
    }
  }

  /** No grace: a shutdown hands running jobs back at once, to be resumed at the next start. */
  async drain (): Promise<void> {
    this.closed = true
  }

  async close (): Promise<void> {
    this.closed = true
    this.lines.clear()
    this.waitingCount = 0
    await Promise.allSettled([...this.active])
  }
}
