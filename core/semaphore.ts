// Bounded parallelism: a counting semaphore. The kernel's password hashing uses
// it with a bounded queue (past it, 503 at once); plugins get the same class
// through the contract (an e-mail job's SMTP sessions and DNS lookups).

export class Semaphore {
  private active = 0
  private readonly waiting: Array<() => void> = []

  /** At most `limit` tasks at once; at most `maxWaiting` more wait (see `full`). */
  constructor (readonly limit: number, readonly maxWaiting = Number.POSITIVE_INFINITY) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`)
  }

  /** Every slot is taken and the queue is at `maxWaiting`: a caller that must not pile up refuses now. */
  get full (): boolean { return this.active >= this.limit && this.waiting.length >= this.maxWaiting }

  async run<T> (task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>(resolve => this.waiting.push(resolve))
    else this.active++
    try {
      return await task()
    } finally {
      // Hand the slot straight to the next waiter (active stays the same), or free it.
      const next = this.waiting.shift()
      if (next) next()
      else this.active--
    }
  }
}
