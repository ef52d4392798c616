// What the maps tool keeps across jobs, made once per app by the kernel
// (createState) and handed to every run as ctx.state: the per-host request
// spacing that the OpenStreetMap usage policies ask for, and a small cache of
// geocoded places (Nominatim asks clients to cache repeated look-ups).
import { setTimeout as sleep } from 'node:timers/promises'
import type { GeocodedPlace } from './extract.ts'

/**
 * One request at a time per host, each starting at least `intervalMs` after
 * the previous one to that host *finished*, across all jobs of this app.
 * Spacing from the end (not the start) keeps the gap the server sees at or
 * above the interval even when connection set-up delays a request.
 */
export class HostRateLimiter {
  private readonly tails = new Map<string, Promise<void>>()
  private readonly lastEnd = new Map<string, number>()
  constructor (private readonly now: () => number = Date.now) {}

  async run<T> (host: string, intervalMs: number, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(host) ?? Promise.resolve()
    let release!: () => void
    const mine = new Promise<void>(resolve => { release = resolve })
    const tail = previous.then(() => mine)
    this.tails.set(host, tail)
    try {
      await previous
      const wait = (this.lastEnd.get(host) ?? -Infinity) + intervalMs - this.now()
      if (wait > 0) await sleep(wait, undefined, { signal })
      return await fn()
    } finally {
      this.lastEnd.set(host, this.now())
      release()
      if (this.tails.get(host) === tail) this.tails.delete(host)
    }
  }
}

export class GeocodeCache {
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

export const createMapsState = (): MapsState => ({ limiter: new HostRateLimiter(), geocodes: new GeocodeCache() })
