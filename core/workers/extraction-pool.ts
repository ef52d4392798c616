// The app's extraction pool: worker threads (piscina) that run the parsing and
// scanning tasks of extraction-tasks.ts, so a hostile page costs a worker's time,
// never the API's event loop. One per app (core/container.ts registers it with a
// disposer); no thread starts before the first task, and idle threads exit.
//
// Each task gets EXTRACT_TASK_TIMEOUT_MS of a worker: past it, the task's abort
// signal fires and piscina terminates that worker (a synchronous parser cannot be
// interrupted any other way) and starts a fresh one for the next task. The time
// limit counts from when a worker takes the task: tasks wait for a free slot here,
// not in piscina's queue, so a long queue never times out tasks that never ran.
import type { Piscina } from 'piscina'
import { ExtractionError } from '../tools/contract.ts'
import type { ExtractionTask, TaskOutcome } from './extraction-tasks.ts'

/** The worker entry: plain JavaScript, so it loads in any build. */
const EXTRACTION_WORKER_FILE = new URL('./extraction-worker.mjs', import.meta.url)
/**
 * The one place that names the task module the workers load. The entry registers
 * tsx in the worker when this is a .ts file; a compiled build points it at the .js.
 * Exported for test/kernel/compiled-start.test.ts, which imports the built file by
 * path in a child process (invisible to knip, hence the tag).
 * @public
 */
export const EXTRACTION_TASKS_MODULE = new URL('./extraction-tasks.ts', import.meta.url)

export interface ExtractionPoolOptions {
  /** Worker threads at most (EXTRACT_WORKERS). */
  workers: number
  /** Longest a task may hold a worker (EXTRACT_TASK_TIMEOUT_MS). */
  taskTimeoutMs: number
  /** Old-generation heap limit of each worker in MB (EXTRACT_WORKER_MEMORY_MB). */
  workerMemoryMb: number
  /** An idle worker exits after this long (ms); the next task starts a new one. */
  idleTimeoutMs?: number
}

export interface ExtractionPoolStats {
  started: boolean
  threads: number
  running: number
  waiting: number
  completed: number
  failed: number
  timedOut: number
}

/** Longest a task may spend loading (a fresh worker, its modules) before it counts as timed out. */
const BOOT_ALLOWANCE_MS = 120_000

class PoolClosedError extends Error {
  constructor () { super('the extraction pool is closed (the app is shutting down)'); this.name = 'PoolClosedError' }
}

export class ExtractionPool {
  private piscina: Piscina | null = null
  private starting: Promise<Piscina> | null = null
  private closed = false
  /** A worker has answered a task (whatever the task's own outcome): the workers start and load their module. */
  private answered = false
  private emptyTask: Promise<void> | null = null
  private running = 0
  private readonly waiters: Array<{ wake: () => void, fail: (err: unknown) => void }> = []
  private readonly counts = { completed: 0, failed: 0, timedOut: 0 }

  constructor (private readonly options: ExtractionPoolOptions) {}

  /**
   * Runs one task in a worker. Resolves with its value; rejects with
   * ExtractionError when the task throws, overruns its time, overflows the stack
   * or its worker dies, and with `signal.reason` when the caller's job stops.
   */
  async run (task: ExtractionTask, signal?: AbortSignal): Promise<unknown> {
    await this.acquire(signal)
    try {
      const pool = await this.pool()
      const started = new SharedArrayBuffer(8)
      const timeout = this.startTimer(started)
      const abort = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal
      let outcome: TaskOutcome
      try {
        outcome = await pool.run({ task, started }, { signal: abort }) as TaskOutcome
        this.answered = true
      } catch (err) {
        if (signal?.aborted) throw signal.reason
        this.counts.failed++
        if (timeout.signal.aborted) {
          this.counts.timedOut++
          throw new ExtractionError(`parsing took longer than ${this.options.taskTimeoutMs} ms and was stopped`, 'timeout')
        }
        if (this.closed) throw new PoolClosedError()
        if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
          throw new ExtractionError(`parsing needed more than ${this.options.workerMemoryMb} MB and was stopped`, 'out-of-memory')
        }
        throw new ExtractionError(`the parser's worker failed: ${(err as Error).message?.slice(0, 200) ?? String(err)}`, 'crashed')
      } finally {
        timeout.clear()
      }
      if (outcome.ok) {
        this.counts.completed++
        return outcome.value
      }
      this.counts.failed++
      // A stack overflow is a page nested deeper than the parsers' recursion can follow.
      if (outcome.name === 'RangeError' && /call stack/i.test(outcome.message)) {
        throw new ExtractionError('the page is nested too deeply to parse', 'too-deep')
      }
      throw new ExtractionError(`parsing failed: ${outcome.message}`, 'failed')
    } finally {
      this.release()
    }
  }

  /**
   * Fires when the task has been parsing for taskTimeoutMs. The worker writes the
   * parse's start time into `started`; until then (a new worker, or the task's
   * modules, still loading) the timer re-arms, up to BOOT_ALLOWANCE_MS in all.
   */
  private startTimer (started: SharedArrayBuffer): { signal: AbortSignal, clear (): void } {
    const controller = new AbortController()
    const startedAt = new Float64Array(started)
    const limit = this.options.taskTimeoutMs
    const submitted = Date.now()
    let timer: NodeJS.Timeout
    const check = () => {
      const begin = startedAt[0]!
      const now = Date.now()
      const left = begin === 0 ? Math.min(limit, submitted + BOOT_ALLOWANCE_MS - now) : begin + limit - now
      if (left <= 0) controller.abort()
      else timer = setTimeout(check, left)
    }
    timer = setTimeout(check, limit)
    return { signal: controller.signal, clear: () => clearTimeout(timer) }
  }

  /**
   * Starts every worker and loads `modules` (file: URLs) in each, so a caller
   * with its own per-page timer (a crawler's request handler) does not spend it
   * on a worker's boot or a parser library's loading. Resolves when all are
   * ready; a failed warm-up is left to the real tasks to report.
   */
  async warm (modules: string[] = [], signal?: AbortSignal): Promise<void> {
    await Promise.all(Array.from({ length: this.options.workers }, () => this.run({ kind: 'warm', modules }, signal).catch((err) => {
      if (signal?.aborted) throw err
    })))
  }

  /** False once closed: no task is taken any more. */
  get open (): boolean { return !this.closed }

  /**
   * Resolves once a worker has answered a task: at once when one has, else when
   * an empty one does (which starts a worker, as the first job's task would).
   * A worker that cannot start or load its module (a broken install) fails
   * every parse; the readiness probe shows it before a job meets it. The empty
   * task is one for all callers and runs to its end whoever stops waiting (a
   * probe that gave up on a slow start finds it answered next time); a failed
   * one is tried again by the next call.
   */
  answering (): Promise<void> {
    if (this.answered) return Promise.resolve()
    this.emptyTask ??= this.run({ kind: 'warm', modules: [] }).then(() => {}, (err: unknown) => {
      this.emptyTask = null
      throw err
    })
    return this.emptyTask
  }

  stats (): ExtractionPoolStats {
    return {
      started: this.piscina !== null,
      threads: this.piscina?.threads.length ?? 0,
      running: this.running,
      waiting: this.waiters.length,
      ...this.counts,
    }
  }

  /** Terminates the workers at once; tasks still waiting or running reject. */
  async close (): Promise<void> {
    this.closed = true
    for (const waiter of this.waiters.splice(0)) waiter.fail(new PoolClosedError())
    const pool = this.piscina ?? (this.starting ? await this.starting.catch(() => null) : null)
    this.piscina = null
    if (pool) await pool.destroy()
  }

  /** Piscina, loaded and made on the first task. */
  private pool (): Promise<Piscina> {
    if (this.piscina) return Promise.resolve(this.piscina)
    this.starting ??= import('piscina').then(({ Piscina }) => {
      if (this.closed) throw new PoolClosedError()
      this.piscina = new Piscina({
        filename: EXTRACTION_WORKER_FILE.href,
        workerData: { tasksModule: EXTRACTION_TASKS_MODULE.href },
        // The entry registers what it needs itself; the parent's loaders (tsx, tap's) are not inherited.
        execArgv: [],
        minThreads: 0,
        maxThreads: this.options.workers,
        idleTimeout: this.options.idleTimeoutMs ?? 60_000,
        concurrentTasksPerWorker: 1,
        resourceLimits: { maxOldGenerationSizeMb: this.options.workerMemoryMb },
      })
      return this.piscina
    })
    return this.starting
  }

  private acquire (signal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new PoolClosedError())
    if (signal?.aborted) return Promise.reject(signal.reason)
    if (this.running < this.options.workers) {
      this.running++
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter)
        if (index !== -1) this.waiters.splice(index, 1)
        reject(signal!.reason)
      }
      const waiter = {
        // release() hands its slot over: `running` stays as it is.
        wake: () => { signal?.removeEventListener('abort', onAbort); resolve() },
        fail: (err: unknown) => { signal?.removeEventListener('abort', onAbort); reject(err) },
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.waiters.push(waiter)
    })
  }

  private release (): void {
    const next = this.waiters.shift()
    if (next) next.wake()
    else this.running--
  }
}
