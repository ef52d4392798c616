// Supervises one run of a job's tool: the run under its abort signal (cancel,
// timeout, per-run cap, shutdown, ended elsewhere), the timeout, the recorder's
// heartbeat, and the outcome handed to JobEnding.endJob, the one way a job ends
// (or, at shutdown, the job handed back to the queue). What the run produces is
// the row recorder's (row-recorder.ts). See core/jobs/README.md for the outcome table.
import { setMaxListeners } from 'node:events'
import type { Logger } from 'pino'
import { withoutUrlQueries } from '../secrets/secret-scrubber.ts'
import { JobOutcomeError } from '../tools/contract.ts'
import { CANCELLED, timedOut, type EndingJob, type JobEnd, type JobEnding } from './job-ending.ts'
import type { LiveOverlay } from './job-view.ts'
import type { RowRecorder } from './row-recorder.ts'

/**
 * Why a run's signal fired: each ends the job differently. `ended`: the job
 * already ended outside this runner (a cancel or the reaper of another process
 * sharing the database), seen on the heartbeat.
 */
export type StopReason = 'cancelled' | 'timeout' | 'cap' | 'shutdown' | 'ended'

class StopSignal extends Error {
  constructor (readonly reason: StopReason) { super(reason); this.name = 'StopSignal' }
}

/** A run in progress: its figures for status reads, its signal, why it was stopped, and when it let go of the job. */
export interface LiveRun extends LiveOverlay {
  controller: AbortController
  stopReason: StopReason | null
  done: Promise<void>
}

/** A new run's live state, and the call that resolves its `done`. */
export function newLiveRun (): { live: LiveRun, letGo: () => void } {
  let letGo!: () => void
  const controller = new AbortController()
  // Every in-flight request, SMTP session and crawler of the job listens on this
  // one signal; Node's default of 10 listeners would warn on any busy job.
  setMaxListeners(0, controller.signal)
  const live: LiveRun = { controller, stopReason: null, stage: 'starting', records: 0, done: new Promise(resolve => { letGo = resolve }) }
  return { live, letGo }
}

/** Stops a run; the first reason given is the one its ending follows. */
export function stopRun (live: LiveRun, reason: StopReason): void {
  live.stopReason ??= reason
  live.controller.abort(new StopSignal(reason))
}

/** How a run left: an ending, or (shutdown) back to the queue. */
type Outcome = JobEnd | { status: 'requeue' }

export interface SupervisedRun {
  job: EndingJob
  live: LiveRun
  recorder: Pick<RowRecorder, 'started' | 'settled' | 'flush' | 'residue' | 'startHeartbeat' | 'stopHeartbeat'>
  /** Starts the tool's run (its context already built on `live`'s signal). */
  run: () => Promise<unknown>
  /** Releases what the run's context holds (its HTTP client). */
  close: () => Promise<void>
  timeoutSeconds: number
  heartbeatMs: number
  log: Logger
}

/** Runs the tool and ends the job: `ended`, or `requeued` when a shutdown handed it back. */
export async function superviseRun (ending: Pick<JobEnding, 'endJob' | 'requeue'>, supervised: SupervisedRun): Promise<'ended' | 'requeued'> {
  const { job, live, recorder, run, close, timeoutSeconds, heartbeatMs, log } = supervised
  const timer = setTimeout(() => stopRun(live, 'timeout'), timeoutSeconds * 1000)
  recorder.startHeartbeat(heartbeatMs, log)
  recorder.started()
  let outcome: Outcome
  try {
    await raceAbort(run(), live.controller.signal)
    await recorder.settled()
    outcome = { status: 'done' }
  } catch (err) {
    await recorder.settled()
    outcome = classify(err, live.stopReason, timeoutSeconds)
    if (outcome.status === 'error' && !(err instanceof StopSignal) && !(err instanceof JobOutcomeError)) log.error({ err }, 'tool run failed')
  } finally {
    clearTimeout(timer)
    recorder.stopHeartbeat()
    await close()
  }
  await recorder.flush().catch(err => log.warn({ err }, 'final flush failed'))
  if (outcome.status === 'requeue') {
    // Ended meanwhile (a cancel from another process): it keeps its outcome.
    return await ending.requeue(job.id) ? 'requeued' : 'ended'
  }
  await ending.endJob(job, outcome, recorder.residue(outcome.status === 'done'))
  return 'ended'
}

/** A plugin that ignores its signal still ends when the signal fires. */
export function raceAbort<T> (work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

function classify (err: unknown, stopReason: StopReason | null, timeoutSeconds: number): Outcome {
  switch (stopReason) {
    case 'cap': return { status: 'done' }
    case 'cancelled': return CANCELLED
    case 'timeout': return timedOut(timeoutSeconds)
    case 'shutdown': return { status: 'requeue' }
    // Already ended elsewhere: endJob finds it ended and writes nothing.
    case 'ended': return CANCELLED
  }
  if (err instanceof JobOutcomeError) {
    // What a caller reads of an upstream's failure names the host, never the request's parameters.
    const error = err.quotesUpstream ? withoutUrlQueries(err.jobError) : err.jobError
    return { status: 'error', error, refund: err.refund, blocked: err.blocked }
  }
  return { status: 'error', error: 'The tool failed unexpectedly; the call was refunded. Retry, or report it if it persists.', refund: true }
}
