// Job progress and final events, fanned out to WebSocket, MCP progress and
// sync-wait listeners. In one process (the default) an EventEmitter; with
// REDIS_URL, Redis pub/sub (redis-job-events.ts), so a listener in any API
// process hears a job run by any process.
import { EventEmitter } from 'node:events'
import type { JobStatusRecord } from './job-view.ts'

export type JobEvent =
  | { type: 'progress', job_id: string, status: string, records: number, stage: string }
  | { type: 'done' | 'error', job: JobStatusRecord }

export interface JobSubscriptionOptions {
  /**
   * Called when events may have been missed: the connection carrying them was
   * lost and is back (Redis restarted). A listener waiting for the end reads
   * the stored status again. Never called in one process.
   */
  onResume?: () => void
}

export interface JobSubscription {
  /**
   * Resolves once every event emitted from now on, by any process, reaches the
   * listener: at once in one process; when Redis acknowledged the
   * subscription otherwise. A listener that waits for the end subscribes,
   * awaits `ready`, then reads the stored status, so an end between the two
   * is seen by one or the other.
   */
  ready: Promise<void>
  close (): void
}

export interface JobEvents {
  emit (jobId: string, event: JobEvent): void
  subscribe (jobId: string, listener: (event: JobEvent) => void, options?: JobSubscriptionOptions): JobSubscription
  close? (): Promise<void>
}

/** The one-process bus: listeners hear the jobs this process runs. */
export class InProcessJobEvents implements JobEvents {
  private readonly emitter = new EventEmitter()
  constructor () { this.emitter.setMaxListeners(0) }

  emit (jobId: string, event: JobEvent): void { this.emitter.emit(jobId, event) }

  subscribe (jobId: string, listener: (event: JobEvent) => void): JobSubscription {
    this.emitter.on(jobId, listener)
    return { ready: Promise.resolve(), close: () => { this.emitter.off(jobId, listener) } }
  }
}
