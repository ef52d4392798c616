// The distributed queue (REDIS_URL): API processes add jobs to a BullMQ queue
// in Redis, worker processes (`npm run worker`, or an API process with
// RUN_JOBS=1) take them off it. The database stays the truth: a BullMQ job is
// only an offer to run a job row, and the row's conditional claim decides who
// runs it, so a redelivered, duplicated or lost BullMQ job never runs a job
// twice and never loses one (the maintenance re-offers queued rows). The rules
// are in core/jobs/README.md (Distributed queue).
import type { EventEmitter } from 'node:events'
import { DelayedError, Queue, Worker, type Job, type Telemetry } from 'bullmq'
import { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { QueuedJob, JobQueue } from './job-queue.ts'
import type { JobRunner, RunResult } from './job-runner.ts'

/** The BullMQ queue's name under REDIS_KEY_PREFIX. */
const QUEUE_NAME = 'jobs'

/**
 * How long a job whose account is at its running cap waits before it is offered
 * again (plus up to as much at random, so two workers' retries do not meet
 * again). Short: the slot it waits for frees when any of the account's jobs
 * ends, and nothing tells the queue when.
 */
const AT_CAP_RETRY_MS = 250

/** BullMQ's lowest priority (1 is the highest). */
const LOWEST_PRIORITY = 2 ** 21

/** How long closing waits for Redis before it cuts the connections. */
const CLOSE_WAIT_MS = 3000

/** Attempts of one offer when the claim itself fails (the database unreachable); past them the maintenance re-offers the row. */
const OFFER_ATTEMPTS = 5

export interface BullQueueOptions {
  redisUrl: string
  keyPrefix: string
  runner: JobRunner
  logger: Logger
  /** Take jobs off the queue in this process (a worker, or an API process with RUN_JOBS=1). */
  runJobs: boolean
  concurrency: number
  /** On shutdown, how long running jobs may go on before they are handed back. */
  shutdownGraceMs: number
  /** BullMQ's OpenTelemetry bridge (bullmq-otel) when tracing is on: an offer carries its start's trace context to the worker that runs it. */
  telemetry?: Telemetry
}

export class BullJobQueue implements JobQueue {
  readonly dedupesById = true
  private readonly connection: Redis
  private readonly queue: Queue<QueuedJob>
  private readonly worker: Worker<QueuedJob> | null = null
  private readonly workerConnection: Redis | null = null
  /** Offers this process is settling: each one's run, then its return to the queue when it goes back. */
  private readonly inFlight = new Set<Promise<void>>()
  private active = 0
  private draining = false
  private closed = false

  constructor (private readonly options: BullQueueOptions) {
    const { redisUrl, keyPrefix, logger } = options
    // BullMQ needs `maxRetriesPerRequest: null`: while Redis is away, commands
    // wait for the reconnect (ioredis retries for ever) instead of failing.
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false })
    this.connection.on('error', quietErrors(logger, 'redis connection'))
    this.queue = new Queue<QueuedJob>(QUEUE_NAME, { connection: this.connection, prefix: keyPrefix, telemetry: options.telemetry })
    this.queue.on('error', quietErrors(logger, 'job queue'))
    const afterClose = lateErrors(logger)
    keepErrorListener(bullConnection(this.queue, 'connection'), afterClose)
    if (options.runJobs) {
      // The worker's own connection (it blocks waiting for jobs); BullMQ duplicates it once more for that.
      this.workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null })
      this.workerConnection.on('error', quietErrors(logger, 'redis connection'))
      const worker = new Worker<QueuedJob>(QUEUE_NAME, (job, token) => this.process(job, token), {
        connection: this.workerConnection,
        prefix: keyPrefix,
        concurrency: options.concurrency,
        autorun: false,
        telemetry: options.telemetry,
      })
      this.worker = worker
      worker.on('error', quietErrors(logger, 'job worker'))
      keepErrorListener(bullConnection(worker, 'connection'), afterClose)
      keepErrorListener(bullConnection(worker, 'blockingConnection'), afterClose)
      // Run once its connections are ready, not at once (BullMQ's autorun): the
      // run starts the stalled-job check, whose first pass waits for Redis; for a
      // worker closed before it is ever ready, that pass would fail after the
      // close and arm its 30 s timer, keeping the closed process alive.
      // A run asked for after the close does nothing.
      worker.waitUntilReady().then(() => worker.run()).catch((err: Error) => {
        if (!this.closed) logger.error({ err }, 'the job worker stopped: this process takes no more jobs off the Redis queue')
      })
    }
  }

  /**
   * Adds the offer; the job id is BullMQ's job id, so an offer already waiting
   * (a start and a recovery pass racing, two processes recovering) is one offer.
   * Not awaited by the start: while Redis is away the add waits for it, and the
   * row, written first, is re-offered by the maintenance if this process dies.
   */
  enqueue (job: QueuedJob): void {
    if (this.closed) return
    const { logger } = this.options
    // Fair share between accounts: an offer's priority is its place in its
    // account's line (1 = the account's only unfinished job), so any account's
    // first job goes before another's second, and a backlog never holds back
    // someone else's first job; offers of equal place are taken in order.
    this.queue.add('run', { id: job.id, accountId: job.accountId, maxRunning: job.maxRunning, place: job.place }, {
      jobId: job.id,
      priority: Math.min(LOWEST_PRIORITY, Math.max(1, job.place)),
      removeOnComplete: true,
      // A failed offer leaves no record, so the maintenance's re-offer is not taken for a duplicate.
      removeOnFail: true,
      attempts: OFFER_ATTEMPTS,
      backoff: { type: 'exponential', delay: 1000 },
    }).catch(err => logger.warn({ err, jobId: job.id }, 'adding a job to the Redis queue failed; the maintenance offers it again'))
  }

  /** Jobs this process is running off the queue (the waiting ones are Redis's). */
  size (): number { return this.active }

  private process (job: Job<QueuedJob>, token: string | undefined): Promise<void> {
    const settled = this.settle(job, token)
    const tracked = settled.then(() => {}, () => {})
    this.inFlight.add(tracked)
    void tracked.finally(() => this.inFlight.delete(tracked))
    return settled
  }

  private async settle (job: Job<QueuedJob>, token: string | undefined): Promise<void> {
    const { id, accountId, maxRunning } = job.data
    let result: RunResult = 'requeued'
    // Taken while draining (a blocking fetch that was already waiting): straight back, for another worker.
    if (!this.draining) {
      this.active++
      try {
        result = await this.options.runner.execute(id, { accountId, maxRunning: Math.max(1, maxRunning) })
      } finally {
        this.active--
      }
    }
    if (result === 'at-cap' || result === 'requeued') {
      // Back to the queue under the same id: at the cap, after a short wait; handed
      // back by a shutdown, at once, for another worker (or this one's next start).
      const delay = result === 'at-cap' ? AT_CAP_RETRY_MS + Math.floor(Math.random() * AT_CAP_RETRY_MS) : 0
      await job.moveToDelayed(Date.now() + delay, token)
      throw new DelayedError()
    }
  }

  /**
   * SIGTERM: take no more jobs; running ones have the grace period to finish,
   * then the runner's shutdown hands the rest back (each comes back to the queue).
   * A pause, not BullMQ's graceful close: that close disconnects the worker's
   * blocking connection and waits for its 'end', which never comes when that
   * connection is waiting to reconnect (Redis was away a moment before), and a
   * close left hanging keeps BullMQ's lock-renewal timer alive for ever, so the
   * process never exits. Running jobs keep their locks while paused.
   */
  async drain (): Promise<void> {
    if (!this.worker || this.draining) return
    this.draining = true
    await this.worker.pause(true)
    await settleWithin(Promise.allSettled(this.inFlight), this.options.shutdownGraceMs)
  }

  /**
   * Waits for the offers still being settled (a handed-back job going back to
   * the queue) and then closes the worker (forced: nothing of it runs any more),
   * the queue and the connections, but not for ever: with Redis away every
   * command waits for it (that is what keeps offers while it restarts), so past
   * CLOSE_WAIT_MS the connections are cut and whatever was pending is the
   * maintenance's to re-offer.
   */
  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.draining = true
    const { logger } = this.options
    const graceful = (async () => {
      await Promise.allSettled(this.inFlight)
      await this.worker?.close(true)
      await this.queue.close()
      await Promise.all([this.connection.quit(), this.workerConnection?.quit()])
    })().catch(err => logger.warn({ err }, 'closing the job queue failed'))
    if (await settleWithin(graceful.then(() => true), CLOSE_WAIT_MS)) return
    logger.warn('Redis did not answer while the job queue closed; its connections were cut')
    this.connection.disconnect()
    this.workerConnection?.disconnect()
    // BullMQ's own duplicate (the worker's blocking connection) and its timers go with a forced close.
    void this.worker?.close(true).catch(() => {})
    void this.queue.disconnect().catch(() => {})
  }
}

/** `work`'s value, or false when it has not settled within `ms`. */
async function settleWithin<T> (work: Promise<T>, ms: number): Promise<T | false> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>(resolve => { timer = setTimeout(() => resolve(false), ms) })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * BullMQ wraps each Redis connection of a Queue and a Worker (ours, and the
 * worker's blocking duplicate) in a RedisConnection whose start (wait for the
 * first 'ready', then INFO) re-emits a failure as an 'error' event, and whose
 * close() removes every listener of it. A connection closed before it was ever
 * ready whose socket then ends (Redis killed during its handshake, the app
 * closing while it connects again) rejects that start late, after the close:
 * the 'error' event finds no listener, EventEmitter throws it inside BullMQ's
 * promise chain, and the process gets an unhandled rejection (`read
 * ECONNRESET`, `Connection is closed.`), which ends it (bullmq#3546, open in
 * 5.81). So each of these connections keeps one listener of ours, put back
 * whenever BullMQ removes them all (test/jobs/bull-queue-close.test.ts).
 */
export function keepErrorListener (connection: EventEmitter, listener: (err: Error) => void): void {
  const removeAll = connection.removeAllListeners
  connection.removeAllListeners = function (this: EventEmitter, ...event: Parameters<EventEmitter['removeAllListeners']>) {
    removeAll.apply(this, event)
    if (!this.listeners('error').includes(listener)) this.on('error', listener)
    return this
  }
  connection.on('error', listener)
}

/**
 * One of BullMQ's RedisConnection objects, by its field name (not public API:
 * `blockingConnection` is private). A BullMQ that renamed it fails here, at the
 * queue's construction, instead of bringing the unhandled rejection back.
 */
export function bullConnection (owner: Queue | Worker, field: 'connection' | 'blockingConnection'): EventEmitter {
  const connection = (owner as unknown as Record<string, EventEmitter | undefined>)[field]
  if (typeof connection?.removeAllListeners !== 'function') throw new Error(`bullmq has no ${owner.constructor.name}.${field} any more: see keepErrorListener in core/jobs/bull-queue.ts`)
  return connection
}

/**
 * The listener a BullMQ connection keeps: while its Queue or Worker is open
 * BullMQ forwards the error to that object's own listener (logged there); once
 * it is closed this one is the only listener left and logs what arrives, at
 * debug: a connection that failed while the queue was closing.
 */
export function lateErrors (logger: Logger): (this: EventEmitter, err: Error) => void {
  return function (this: EventEmitter, err: Error) {
    if (this.listenerCount('error') > 1) return
    logger.debug({ err: { message: err.message, code: (err as NodeJS.ErrnoException).code } }, 'a job queue Redis connection failed after the queue closed (ignored)')
  }
}

/**
 * A Redis outage makes ioredis report every failed reconnect: logged once per
 * outage (again after the connection was back), not once per retry.
 */
export function quietErrors (logger: Logger, what: string): (err: Error) => void {
  let last = 0
  return (err: Error) => {
    const now = Date.now()
    if (now - last < 30_000) return
    last = now
    logger.warn({ err }, `${what}: Redis error (retrying)`)
  }
}
