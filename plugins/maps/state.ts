// What the maps tool keeps across jobs, made once per app by the kernel
// (createState) and handed to every run as ctx.state: the per-host request
// spacing that the OpenStreetMap usage policies ask for, and a small cache of
// geocoded places (Nominatim asks clients to cache repeated look-ups).
import type { SharedState } from '../../core/tools/contract.ts'
import type { GeocodedPlace } from './extract.ts'

/**
 * One request at a time per host, each starting at least `intervalMs` after
 * the previous one to that host *finished*, across all jobs of this app and,
 * with REDIS_URL, of every process of the cluster (the kernel's shared state
 * keeps the turns: Nominatim's one request a second is per client address, not
 * per process). Spacing from the end (not the start) keeps the gap the server
 * sees at or above the interval even when connection set-up delays a request.
 */
class HostRateLimiter {
  /** `maxTurnMs`: longer than one request may take (its timeout), so a live request never loses its turn. */
  constructor (private readonly shared: SharedState, private readonly maxTurnMs?: number) {}

  async run<T> (host: string, intervalMs: number, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    const done = await this.shared.waitTurn(`host:${host}`, intervalMs, { signal, maxTurnMs: this.maxTurnMs })
    try {
      return await fn()
    } finally {
      done()
    }
  }
}

class GeocodeCache {
  private readonly entries = new Map<string, { at: number, place: GeocodedPlace | null }>()
  constructor (private readonly maxEntries = 500, private readonly now: () => number = Date.now) {}

  get (key: string, ttlMs: number): { place: GeocodedPlace | null } | undefined {
    const hit = this.entries.get(key)
    if (!hit) return undefined
    if (this.now() - hit.at > ttlMs) { this.entries.delete(key); return undefined }
    return { place: hit.place }
  }

  set (key: string, place: GeocodedPlace | null): void {
    this.entries.delete(key)
    this.entries.set(key, { at: this.now(), place })
    // Oldest first out (Map keeps insertion order).
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
  }
}

export interface MapsState { limiter: HostRateLimiter, geocodes: GeocodeCache }

export const createMapsState = (shared: SharedState, requestTimeoutMs?: number): MapsState => ({
  limiter: new HostRateLimiter(shared, requestTimeoutMs === undefined ? undefined : requestTimeoutMs + 30_000),
  geocodes: new GeocodeCache(),
})
