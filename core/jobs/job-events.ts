// In-process fan-out of job progress to WebSocket and agent listeners.
import { EventEmitter } from 'node:events'
import type { JobStatusRecord } from './job-view.ts'

export type JobEvent =
  | { type: 'progress', job_id: string, status: string, records: number, stage: string }
  | { type: 'done' | 'error', job: JobStatusRecord }

export class JobEvents {
  private readonly emitter = new EventEmitter()
  constructor () { this.emitter.setMaxListeners(0) }

  emit (jobId: string, event: JobEvent): void { this.emitter.emit(jobId, event) }

  /** Returns the unsubscribe function. */
  subscribe (jobId: string, listener: (event: JobEvent) => void): () => void {
    this.emitter.on(jobId, listener)
    return () => { this.emitter.off(jobId, listener) }
  }
}
