// The operator's outbound proxies (PROXY_URLS, or PROXY_URL as a pool of one)
// and their health. Every way out that goes through a proxy asks a chooser
// for one: ctx.http per request, the crawler per request, the egress proxy of
// the media programs per connection. With PROXY_ROTATION=request each ask
// takes the next proxy in turn; with `job` a job's chooser keeps the proxy it
// first got for all its requests, and moves on only when that one cools down.
//
// A proxy that fails PROXY_FAILURE_LIMIT times in a row (a connection to it,
// or through it, that fails before any answer) cools down for
// PROXY_COOLDOWN_MS: it is skipped while others are available, then tried
// again; one success resets its count. When every proxy is cooling down the
// one that has been cooling longest is used: traffic never leaves the
// server directly because the proxies failed (that would show its address).
//
// Health is this process's view. With REDIS_URL a ProxyHealthSync
// (redis-proxy-health.ts) shares it: this process's failures, and a success
// after failures, are sent to Redis, which keeps the cluster's counts and
// cooldowns and publishes each change; every process applies what it hears
// (`applyShared`). Picking a proxy and a success on a healthy one never wait
// for Redis.
import type { Clock } from '../clock.ts'
import type { ProxyHealth } from '../tools/contract/declaration.ts'

export type ProxyRotation = 'request' | 'job'

/** What a job's (or a client's) requests ask for a proxy. */
export interface ProxyChooser {
  /** The proxy URL for the next request. */
  pick (): string
  /** A connection to or through `proxy` failed before any answer. */
  failed (proxy: string, reason: string): void
  /** `proxy` carried an answer. */
  succeeded (proxy: string): void
}

/** What a pool tells the cluster (redis-proxy-health.ts); each call is on a failure or a recovery, never on a healthy request. */
export interface ProxyHealthSync {
  failed (index: number, reason: string): void
  recovered (index: number): void
}

/** A proxy's health as the cluster sees it (the shared counts, the time its cooldown has left). */
export interface SharedProxyHealth {
  consecutive: number
  failures: number
  lastError: string | null
  cooldownRemainingMs: number
}

/** Hears a proxy's health change: `here` when this process's own report began it (the metrics count a cool-down once, where it began). */
export type ProxyHealthListener = (health: ProxyHealth, index: number, here: boolean) => void

interface ProxyState {
  url: string
  label: string
  consecutive: number
  coolingUntil: number
  requests: number
  failures: number
  lastError: string | null
}

/** scheme://host:port of a proxy URL: what may be shown of it. */
function proxyLabel (url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}`
  } catch {
    return '(invalid proxy URL)'
  }
}

export class ProxyPool {
  private readonly proxies: ProxyState[]
  private next = 0
  private readonly listeners = new Set<ProxyHealthListener>()
  private sync: ProxyHealthSync | null = null

  constructor (urls: readonly string[], private readonly options: { rotation: ProxyRotation, failureLimit: number, cooldownMs: number, clock: Clock }) {
    this.proxies = urls.map(url => ({ url, label: proxyLabel(url), consecutive: 0, coolingUntil: 0, requests: 0, failures: 0, lastError: null }))
  }

  get size (): number { return this.proxies.length }

  /** Every proxy URL (the secret scrubber redacts their passwords). */
  urls (): string[] { return this.proxies.map(p => p.url) }

  /** Calls `listener` whenever a proxy's health changes (ok, failing, cooling down), with its position in PROXY_URLS (the metrics' label); returns its removal. */
  onHealthChange (listener: ProxyHealthListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Shares this pool's failures and recoveries with other processes (REDIS_URL); null: this process's own again. */
  shareWith (sync: ProxyHealthSync | null): void {
    this.sync = sync
  }

  /**
   * Takes in the cluster's view of the proxy at `index` (a change another
   * process, or Redis's answer to this one, published); `here` when it answers
   * this process's own report.
   */
  applyShared (index: number, shared: SharedProxyHealth, here: boolean): void {
    const p = this.proxies[index]
    if (!p) return
    const before = this.healthOf(p)
    p.consecutive = shared.consecutive
    p.failures = shared.failures
    p.lastError = shared.lastError
    p.coolingUntil = shared.cooldownRemainingMs > 0 ? this.options.clock().getTime() + shared.cooldownRemainingMs : 0
    this.changed(before, p, index, here)
  }

  /** A chooser for one job (sticky under PROXY_ROTATION=job) or for requests with no job (webhooks: always per request); null without proxies. */
  chooser (rotation: ProxyRotation = this.options.rotation): ProxyChooser | null {
    if (this.proxies.length === 0) return null
    let stuck: ProxyState | null = null
    const choose = (): ProxyState => {
      if (rotation === 'job' && stuck && !this.cooling(stuck)) return stuck
      stuck = this.rotate()
      return stuck
    }
    return {
      pick: () => {
        const proxy = choose()
        proxy.requests++
        return proxy.url
      },
      failed: (url, reason) => this.record(url, reason),
      succeeded: (url) => this.record(url, null),
    }
  }

  health (): ProxyHealth[] {
    return this.proxies.map(p => this.healthOf(p))
  }

  private cooling (p: ProxyState): boolean {
    return p.coolingUntil > this.options.clock().getTime()
  }

  /** The next proxy in turn that is not cooling down; all cooling: the one cooling longest. */
  private rotate (): ProxyState {
    for (let i = 0; i < this.proxies.length; i++) {
      const p = this.proxies[(this.next + i) % this.proxies.length]!
      if (!this.cooling(p)) {
        this.next = (this.next + i + 1) % this.proxies.length
        return p
      }
    }
    return this.proxies.reduce((a, b) => (b.coolingUntil < a.coolingUntil ? b : a))
  }

  private record (url: string, error: string | null): void {
    const index = this.proxies.findIndex(candidate => candidate.url === url)
    const p = this.proxies[index]
    if (!p) return
    // A success on a proxy with no failure (nearly every request) changes nothing and tells no one.
    if (error === null && p.consecutive === 0 && p.coolingUntil === 0) return
    const before = this.healthOf(p)
    if (error === null) {
      p.consecutive = 0
      p.coolingUntil = 0
      this.sync?.recovered(index)
    } else {
      p.consecutive++
      p.failures++
      p.lastError = error
      if (p.consecutive >= this.options.failureLimit) p.coolingUntil = this.options.clock().getTime() + this.options.cooldownMs
      this.sync?.failed(index, error)
    }
    this.changed(before, p, index, true)
  }

  private changed (before: ProxyHealth, p: ProxyState, index: number, here: boolean): void {
    const after = this.healthOf(p)
    if (before.ok !== after.ok || before.cooling_down !== after.cooling_down) for (const listener of this.listeners) listener(after, index, here)
  }

  private healthOf (p: ProxyState): ProxyHealth {
    const remaining = Math.max(0, p.coolingUntil - this.options.clock().getTime())
    return {
      proxy: p.label,
      ok: p.consecutive === 0,
      consecutive_failures: p.consecutive,
      cooling_down: remaining > 0,
      cooldown_remaining_s: Math.ceil(remaining / 1000),
      requests: p.requests,
      failures: p.failures,
      last_error: p.lastError,
    }
  }
}
