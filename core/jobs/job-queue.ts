// Where started jobs wait for a worker. The embedded default runs them in this
// process with a fixed concurrency; a distributed queue (BullMQ on REDIS_URL)
// implements the same interface.
export interface JobQueue {
  enqueue (jobId: string): void
  /** Jobs waiting or running in this process. */
  size (): number
  /** Stops taking new work and waits for running handlers (up to the caller's patience). */
  close (): Promise<void>
}

export class InProcessQueue implements JobQueue {
  private readonly waiting: string[] = []
  private readonly active = new Set<Promise<void>>()
  private closed = false

  constructor (private readonly concurrency: number, private readonly handler: (jobId: string) => Promise<void>) {}

  enqueue (jobId: string): void {
    if (this.closed) return
    this.waiting.push(jobId)
    this.pump()
  }

  size (): number { return this.waiting.length + this.active.size }

  private pump (): void {
    while (!this.closed && this.active.size < this.concurrency && this.waiting.length > 0) {
      const jobId = this.waiting.shift()!
      const run: Promise<void> = this.handler(jobId)
        .catch(() => { /* the handler records its own failures */ })
        .finally(() => { this.active.delete(run); this.pump() })
      this.active.add(run)
    }
  }

  async close (): Promise<void> {
    this.closed = true
    this.waiting.length = 0
    await Promise.allSettled([...this.active])
  }
}
