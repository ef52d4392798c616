// Shared state in this process's memory: the default (no REDIS_URL), and what
// the Redis implementation falls back to while Redis is unreachable. Bounded
// (core/bounded-map.ts): plugin keys can follow what callers send (hosts), so
// at most `maxEntries` values and turn records are held; an expired value is
// dropped when read and by a sweep once a minute.
import { BoundedMap } from '../bounded-map.ts'
import { DEFAULT_MAX_TURN_MS, LockBusyError, ToolSharedState, pause, unlessAborted, type LockOptions, type LockRelease, type SharedState, type SharedStateService } from './shared-state.ts'

interface Entry { value: string | number, expiresAt: number | null }

const SWEEP_INTERVAL_MS = 60_000
const DEFAULT_MAX_ENTRIES = 10_000

/**
 * Takes a place in the queue of `key` (turns or locks): `previous` settles when
 * every earlier place has been left, `leave()` hands the key on. The entry is
 * dropped only once the whole queue up to this place is over: a waiter that
 * leaves early (gave up) must not open the key to the next while an earlier
 * holder still has it.
 */
function joinQueue (tails: Map<string, Promise<void>>, key: string): { previous: Promise<void>, leave: () => void } {
  const previous = tails.get(key) ?? Promise.resolve()
  let leave!: () => void
  const mine = new Promise<void>(resolve => { leave = resolve })
  const tail = previous.then(() => mine)
  tails.set(key, tail)
  void tail.then(() => { if (tails.get(key) === tail) tails.delete(key) })
  return { previous, leave }
}

export class MemorySharedState implements SharedStateService {
  private readonly entries: BoundedMap<Entry>
  /** Per key: the tail of the queue of turns, and when the last turn was done. */
  private readonly turnTails = new Map<string, Promise<void>>()
  private readonly turnEnds: BoundedMap<number>
  private readonly lockTails = new Map<string, Promise<void>>()
  private lastSweep = 0

  constructor (private readonly now: () => number = Date.now, maxEntries = DEFAULT_MAX_ENTRIES) {
    this.entries = new BoundedMap(maxEntries)
    this.turnEnds = new BoundedMap(maxEntries)
  }

  forTool (toolKey: string): SharedState { return new ToolSharedState(this, `${toolKey}:`) }

  private live (key: string): Entry | undefined {
    const now = this.now()
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS) {
      this.lastSweep = now
      this.entries.prune(e => e.expiresAt !== null && e.expiresAt <= now)
    }
    const entry = this.entries.get(key)
    if (entry && entry.expiresAt !== null && entry.expiresAt <= now) {
      this.entries.delete(key)
      return undefined
    }
    return entry
  }

  async increment (key: string, by = 1, ttlMs?: number): Promise<number> {
    const entry = this.live(key)
    if (entry && typeof entry.value !== 'number') throw new TypeError(`shared state key ${key} does not hold a counter`)
    const value = (entry?.value as number | undefined ?? 0) + by
    this.entries.set(key, { value, expiresAt: entry ? entry.expiresAt : (ttlMs ? this.now() + ttlMs : null) })
    return value
  }

  async getJson<T = unknown> (key: string): Promise<T | undefined> {
    const entry = this.live(key)
    if (!entry) return undefined
    // A counter reads as its number, as Redis's GET would give it.
    return (typeof entry.value === 'number' ? entry.value : JSON.parse(entry.value)) as T
  }

  async setJson (key: string, value: unknown, ttlMs?: number): Promise<void> {
    // Stored as text: a caller changing its object afterwards does not change the state (as with Redis).
    this.entries.set(key, { value: JSON.stringify(value), expiresAt: ttlMs ? this.now() + ttlMs : null })
  }

  async delete (key: string): Promise<void> { this.entries.delete(key) }

  async waitTurn (key: string, intervalMs: number, options: { signal?: AbortSignal, maxTurnMs?: number } = {}): Promise<() => void> {
    const { signal } = options
    signal?.throwIfAborted()
    const { previous, leave } = joinQueue(this.turnTails, key)
    let done = false
    let expiry: NodeJS.Timeout | undefined
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(expiry)
      this.turnEnds.set(key, this.now())
      leave()
    }
    try {
      await unlessAborted(previous, signal)
      await pause((this.turnEnds.get(key) ?? -Infinity) + intervalMs - this.now(), signal)
    } catch (err) {
      // Given up while waiting: the queue moves on without a gap for this caller.
      done = true
      leave()
      throw err
    }
    // A turn never done (a caller that forgot) stops holding the key after maxTurnMs.
    expiry = setTimeout(finish, options.maxTurnMs ?? DEFAULT_MAX_TURN_MS)
    expiry.unref()
    return finish
  }

  async lock (key: string, options: LockOptions): Promise<LockRelease> {
    const { previous, leave } = joinQueue(this.lockTails, key)
    let released = false
    let expiry: NodeJS.Timeout | undefined
    const unlock = async () => {
      if (released) return
      released = true
      clearTimeout(expiry)
      leave()
    }
    let timer: NodeJS.Timeout | undefined
    const busy = new Promise<'busy'>(resolve => { timer = setTimeout(() => resolve('busy'), options.waitMs) })
    const outcome = await Promise.race([previous.then(() => 'free' as const), busy])
    clearTimeout(timer)
    if (outcome === 'busy') {
      // Our place in the queue is handed on as soon as it comes.
      leave()
      throw new LockBusyError(key)
    }
    // A holder that never releases stops holding the key after ttlMs, as a Redis lock expires.
    expiry = setTimeout(() => { void unlock() }, options.ttlMs)
    expiry.unref()
    return unlock
  }
}
