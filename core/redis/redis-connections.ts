// The app's Redis connections (REDIS_URL): one place opens them, names them,
// logs their failures and closes them with the app (a disposer in
// core/container.ts). Services ask for a connection by name and get the same
// one back, so the rate limiter, the shared state and the admission locks
// share one command connection instead of one each.
//
// Two behaviours, because two kinds of caller want opposite things while Redis
// is unreachable:
// - `waits: true` (job events, subscriptions): a command waits for the
//   reconnection (ioredis's offline queue, no retry limit): a final event
//   delivered late is better than one lost;
// - `waits: false` (rate limit, shared state, locks): the caller checks
//   `usable()` first and falls back to this process's memory at once; a request
//   must never hang on Redis, and the fallback is logged (`reportFallback`).
// Errors are logged, never thrown: ioredis reconnects by itself, and a
// connection without an 'error' listener would print "Unhandled error event".
import { createRequire } from 'node:module'
import type { Redis } from 'ioredis'

// ioredis (some 40 modules) loads with the first connection, so a process
// without REDIS_URL never carries it. It is CommonJS: a synchronous require
// keeps connection() synchronous.
const requireFromHere = createRequire(import.meta.url)
import type { Logger } from '../logger.ts'

/** Every key and channel this service uses starts with it, so one Redis can serve other software too. */
export const KEY_PREFIX = 'ejs:'

/** How long a fail-fast command may take before it counts as failed (the caller falls back). */
const COMMAND_TIMEOUT_MS = 2000
/** One fallback log line per reason at most this often: an outage must not flood the log. */
const FALLBACK_LOG_INTERVAL_MS = 60_000

export interface ConnectionOptions {
  /** true: commands wait through an outage; false: callers check `usable()` and fall back. */
  waits: boolean
}

export class RedisConnections {
  private readonly connections = new Map<string, Redis>()
  private readonly lastFallbackLog = new Map<string, number>()
  private closing = false

  constructor (private readonly url: string, private readonly logger: Logger) {}

  /** The connection called `name`, opened on first use. */
  connection (name: string, options: ConnectionOptions): Redis {
    const existing = this.connections.get(name)
    if (existing) return existing
    const { Redis: RedisClient } = requireFromHere('ioredis') as typeof import('ioredis')
    const connection = new RedisClient(this.url, {
      connectionName: `ejs-${name}`,
      // Reconnect quickly once Redis is back (ioredis' default backoff, capped at 2 s).
      retryStrategy: times => Math.min(times * 100, 2000),
      // Subscriptions are restored by their owner (core/jobs/redis-job-events.ts), which must know when they are live again.
      autoResubscribe: false,
      ...(options.waits
        ? { maxRetriesPerRequest: null }
        : { maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS }),
    })
    let down = false
    connection.on('error', (err: Error) => {
      if (down || this.closing) return
      down = true
      this.logger.warn({ connection: name, err: { message: err.message } }, 'Redis is unreachable; reconnecting (shared state falls back to this process meanwhile)')
    })
    connection.on('ready', () => {
      if (!down) return
      down = false
      this.logger.info({ connection: name }, 'Redis connection restored')
    })
    this.connections.set(name, connection)
    return connection
  }

  /** Whether a fail-fast caller may send a command now (else it falls back). */
  usable (connection: Redis): boolean {
    return connection.status === 'ready'
  }

  /** Logs that `what` fell back to this process's memory, at most once a minute per `what`. */
  reportFallback (what: string, err?: unknown): void {
    const now = Date.now()
    if (now - (this.lastFallbackLog.get(what) ?? 0) < FALLBACK_LOG_INTERVAL_MS) return
    this.lastFallbackLog.set(what, now)
    this.logger.warn({ what, ...(err ? { err: { message: (err as Error).message ?? String(err) } } : {}) }, 'Redis unavailable: using this process\'s own state for it until Redis is back')
  }

  /**
   * Waits until every connection opened so far is ready, at most `timeoutMs`;
   * false when one is not (the app still starts: callers fall back or wait).
   */
  async ready (timeoutMs: number): Promise<boolean> {
    const pending = [...this.connections.values()].filter(c => c.status !== 'ready')
    if (!pending.length) return true
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<false>(resolve => { timer = setTimeout(() => resolve(false), timeoutMs) })
    const allReady = Promise.all(pending.map(c => new Promise<void>(resolve => {
      if (c.status === 'ready') return resolve()
      c.once('ready', () => resolve())
    }))).then(() => true as const)
    try {
      return await Promise.race([allReady, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Closes every connection: QUIT when connected (pending replies arrive), else at once. */
  async close (): Promise<void> {
    this.closing = true
    await Promise.all([...this.connections.values()].map(async (connection) => {
      if (connection.status === 'ready') {
        const quit = connection.quit().catch(() => {})
        const late = new Promise(resolve => setTimeout(resolve, 1000).unref())
        await Promise.race([quit, late])
      }
      connection.disconnect()
    }))
    this.connections.clear()
  }
}
