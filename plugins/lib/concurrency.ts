// One semaphore per key (a recipient domain, a host) so a single key never sees
// more than N of a job's tasks at once, however many of its items the job
// holds: mail servers count concurrent connections per client IP and start
// refusing (421) past a few. Built on the contract's Semaphore (the kernel's).
import { Semaphore } from '../../core/tools/contract.ts'

export { Semaphore }

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
