// Per-client fixed-window rate limit (one window a minute). Kept in memory: each
// process limits what it serves; the limit a request gets depends on whether it
// carries a Pro key. With REDIS_URL the window is a sliding one in Redis, shared
// by every API process (redis-rate-limiter.ts), and this one is its fallback.
//
// Two things keep it from being escaped or exhausted:
// - the client key is the address, but an IPv6 client is keyed by its /64 (one
//   host is routinely given a whole /64, so per-/128 keys would hand it 2^64
//   fresh windows) and an IPv4-mapped IPv6 address by its IPv4 address;
// - the windows live in a bounded store: whatever the number of addresses, at
//   most `maxClients` windows are held (≈ 100 bytes each); past it the clients
//   not seen for longest are forgotten (core/bounded-map.ts); a forgotten
//   client's next request opens a fresh window, which only ever favours it.
import type { Clock } from '../clock.ts'
import { parseAddress } from '../net/ip-ranges.ts'
import { BoundedMap } from '../bounded-map.ts'

interface Window { start: number, count: number }

export const DEFAULT_MAX_CLIENTS = 100_000
const DOTTED_QUAD = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/

/** The rate-limit key of an address: IPv4 dotted quad, or the /64 of an IPv6 address (`2001:db8:0:1::/64`). */
export function clientKey (ip: string | undefined): string {
  // A request with no peer address (an injected WebSocket upgrade) shares one window.
  if (typeof ip !== 'string') return 'unknown'
  // The common case first: a dotted quad is its own key (parsing costs more than the rest of a hit).
  if (DOTTED_QUAD.test(ip)) return ip
  const bytes = parseAddress(ip)
  if (!bytes) return ip
  let mapped = bytes[10] === 0xff && bytes[11] === 0xff
  for (let i = 0; i < 10 && mapped; i++) if (bytes[i] !== 0) mapped = false
  if (mapped) return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`
  const groups: string[] = []
  for (let i = 0; i < 8; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16))
  return `${groups.join(':')}::/64`
}

/** What the auth hook counts requests with: this process's windows, or Redis's (REDIS_URL). */
export interface ClientRateLimiter {
  /**
   * Counts `weight` requests of `ip` (a JSON-RPC batch counts each message);
   * the seconds to wait when that is over `limit` a minute, else 0.
   */
  hit (ip: string | undefined, limit: number, weight?: number): number | Promise<number>
}

export class RateLimiter implements ClientRateLimiter {
  private readonly windows: BoundedMap<Window>
  private lastSweep = 0

  constructor (private readonly clock: Clock, private readonly windowMs = 60_000, maxClients = DEFAULT_MAX_CLIENTS) {
    this.windows = new BoundedMap(maxClients)
  }

  /** How many clients have a window held (never more than `maxClients`). */
  get size (): number { return this.windows.size }

  /**
   * Counts `weight` requests of `ip` (a JSON-RPC batch counts each message);
   * returns the seconds to wait when the window is over `limit`, else 0.
   */
  hit (ip: string | undefined, limit: number, weight = 1): number {
    const now = this.clock().getTime()
    this.sweep(now)
    const key = clientKey(ip)
    let w = this.windows.get(key)
    if (!w) {
      w = { start: now, count: 0 }
      this.windows.set(key, w)
    }
    if (now - w.start >= this.windowMs) { w.start = now; w.count = 0 }
    w.count += weight
    if (w.count <= limit) return 0
    return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000))
  }

  /** Drops finished windows once a window, so a quiet process gives the memory back. */
  private sweep (now: number): void {
    if (now - this.lastSweep < this.windowMs) return
    this.lastSweep = now
    this.windows.prune(w => now - w.start >= this.windowMs)
  }
}
