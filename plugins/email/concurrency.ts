// Bounded parallelism: a counting semaphore, and one semaphore per key (the
// recipient domain) so a single domain never sees more than N of our sessions
// at once, however many of its addresses a job holds. Mail servers count
// concurrent connections per client IP and start refusing (421) past a few.

export class Semaphore {
  private active = 0
  private readonly waiting: (() => void)[] = []

  constructor (readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`)
  }

  async run<T> (task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>(resolve => this.waiting.push(resolve))
    else this.active++
    try {
      return await task()
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = this.waiting.shift()
      if (next) next()
      else this.active--
    }
  }
}

export class KeyedLimiter {
  private readonly semaphores = new Map<string, Semaphore>()

  constructor (readonly limit: number) {}

  run<T> (key: string, task: () => Promise<T>): Promise<T> {
    let semaphore = this.semaphores.get(key)
    if (!semaphore) {
      semaphore = new Semaphore(this.limit)
      this.semaphores.set(key, semaphore)
    }
    return semaphore.run(task)
  }
}
