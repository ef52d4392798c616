// A map whose size is bounded whatever the number of keys: per-client state
// (rate-limit windows, login failures) keyed by what a client sends must not
// grow with every address or e-mail an attacker can invent.
//
// Two generations instead of a strict LRU (a Map used as an LRU turns quadratic
// in V8 when its oldest entry is deleted on every insert): new and active keys
// live in `current`; when it holds half the bound it becomes `previous` and the
// old `previous` is dropped whole. A key read again moves back to `current`, so
// only keys unused for a whole generation are forgotten.
export class BoundedMap<V> {
  private current = new Map<string, V>()
  private previous = new Map<string, V>()
  private readonly generation: number

  constructor (readonly maxSize: number) {
    this.generation = Math.max(1, Math.floor(maxSize / 2))
  }

  get size (): number { return this.current.size + this.previous.size }

  get (key: string): V | undefined {
    const value = this.current.get(key)
    if (value !== undefined) return value
    const old = this.previous.get(key)
    if (old !== undefined) {
      this.previous.delete(key)
      this.set(key, old)
    }
    return old
  }

  set (key: string, value: V): void {
    if (!this.current.has(key)) {
      this.previous.delete(key)
      if (this.current.size >= this.generation) {
        this.previous = this.current
        this.current = new Map()
      }
    }
    this.current.set(key, value)
  }

  delete (key: string): void {
    this.current.delete(key)
    this.previous.delete(key)
  }

  /** Drops the entries `expired` says are finished (a periodic sweep gives memory back). */
  prune (expired: (value: V) => boolean): void {
    for (const map of [this.current, this.previous]) {
      for (const [key, value] of map) if (expired(value)) map.delete(key)
    }
  }
}
