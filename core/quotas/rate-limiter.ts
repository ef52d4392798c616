// Per-IP fixed-window rate limit (one window a minute). Kept in memory: each
// process limits what it serves; the limit a request gets depends on whether it
// carries a Pro key.
import type { Clock } from '../clock.ts'

interface Window { start: number, count: number }

export class RateLimiter {
  private readonly windows = new Map<string, Window>()
  private lastSweep = 0

  constructor (private readonly clock: Clock, private readonly windowMs = 60_000) {}

  /** Counts one request; returns the seconds to wait when it is over `limit`, else 0. */
  hit (ip: string, limit: number): number {
    const now = this.clock().getTime()
    this.sweep(now)
    let w = this.windows.get(ip)
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 }
      this.windows.set(ip, w)
    }
    w.count++
    if (w.count <= limit) return 0
    return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000))
  }

  /** Drops finished windows now and then so the map does not grow with every address ever seen. */
  private sweep (now: number): void {
    if (now - this.lastSweep < this.windowMs) return
    this.lastSweep = now
    for (const [ip, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(ip)
  }
}
