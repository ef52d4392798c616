// pino JSON logs. Keys, tokens and passwords are redacted wherever they could
// appear: request headers, bodies logged on error, and objects we log ourselves
// (by path, below). On top of that every finished line passes through the
// app's SecretScrubber, so a credential inside free text (an upstream error's
// URL with `api_key=…`, a stack, a library's message) never reaches the log.
import pino, { type DestinationStream, type Logger } from 'pino'
import type { SecretScrubber } from './secrets/secret-scrubber.ts'

export type { Logger }

export const REDACTED_PATHS = [
  'req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers["x-blog-key"]', 'req.headers.cookie',
  'headers["x-api-key"]', 'headers.authorization', 'headers["x-blog-key"]',
  'password', 'new_password', 'current_password', 'api_key', 'token', 'secret', 'apiKey',
  '*.password', '*.new_password', '*.current_password', '*.api_key', '*.token', '*.secret', '*.apiKey',
  'body.password', 'body.new_password', 'body.current_password', 'body.api_key',
]

/**
 * Standard output, written asynchronously: lines are handed to a write that
 * runs off the event loop, LOG_BATCH_BYTES at a time or every LOG_FLUSH_MS,
 * whichever comes first, and lines logged while one is under way go out
 * together in the next. pino's default (one synchronous write per line) cost
 * a hot request ≈ 4 % of its CPU in the write alone, and one asynchronous
 * write per line (a thread-pool hand-off and its completion) ≈ 5 %
 * (scripts/bench/README.md); a reader that stops reading (a stalled log
 * collector) blocked the whole service in a synchronous write. pino flushes
 * what is buffered synchronously when the process exits (also on an uncaught
 * exception), but that flush cannot wait for a write already under way on the
 * thread pool: if stdout's reader is stalled at that moment, that write's chunk
 * (up to 16 KB of lines) is cut short. The graceful exits (SIGTERM/SIGINT in
 * core/server.ts and core/worker.ts) therefore wait for it first (flushLogs).
 * A SIGKILL or an out-of-memory end can lose the last lines (at most
 * LOG_FLUSH_MS of them). Past LOG_BUFFER_MAX bytes waiting (stdout not read at
 * all), lines are dropped rather than held.
 */
export function stdoutDestination (): DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS, maxLength: LOG_BUFFER_MAX })
}

/**
 * Resolves once every line logged so far is written, or after `withinMs`, dropping
 * what is left (a reader that never comes back must not hold up the exit), for a graceful exit: see
 * stdoutDestination. CI once lost 123 lines of 10,000 without it
 * (test/kernel/logs.test.ts, "a log reader that stops reading").
 */
export function flushLogs (log: Logger, withinMs = LOG_EXIT_FLUSH_MS): Promise<void> {
  return new Promise(resolve => {
    const timer = setTimeout(() => {
      // The reader has not come back: what is still waiting is dropped. Otherwise the
      // exit's own synchronous flush would block in its write to the pipe for good.
      const destination = (log as unknown as Record<symbol, { flushSync?: () => void } | undefined>)[pino.symbols.streamSym]
      if (typeof destination?.flushSync === 'function') destination.flushSync = () => {}
      resolve()
    }, withinMs)
    timer.unref()
    try {
      log.flush(() => { clearTimeout(timer); resolve() })
    } catch {
      // a destroyed destination has nothing left to write
      clearTimeout(timer)
      resolve()
    }
  })
}

const LOG_EXIT_FLUSH_MS = 5000
const LOG_BATCH_BYTES = 4096
const LOG_FLUSH_MS = 100
const LOG_BUFFER_MAX = 16 * 1024 * 1024

export function createLogger (level: string, stream: DestinationStream = stdoutDestination(), scrubber?: SecretScrubber): Logger {
  return pino({
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // The serialised line, just before it is written: one pass over a few
    // hundred bytes (≈ 1 µs), after pino has skipped disabled levels.
    ...(scrubber ? { hooks: { streamWrite: (line: string) => scrubber.scrub(line) } } : {}),
  }, stream)
}

type LogMethod = (...args: unknown[]) => void

/**
 * `request.log` as fastify's childLoggerFactory makes it: a stand-in that makes
 * pino's child (the request id bound, its bindings serialised and redacted) when
 * the request first logs something at an enabled level. Most requests log
 * nothing of their own (the access line is AccessLog's, written with the
 * request id), and the child made for every request was ≈ 3 % of a hot
 * request's CPU (scripts/bench/README.md).
 */
class LazyChildLogger {
  private made: Logger | undefined

  constructor (private readonly parent: Logger, private readonly childBindings: pino.Bindings, private readonly options: pino.ChildLoggerOptions) {}

  private get logger (): Logger {
    return (this.made ??= this.parent.child(this.childBindings, this.options))
  }

  get level (): string { return this.made?.level ?? this.options.level ?? this.parent.level }
  set level (level: string) { this.logger.level = level }
  get levels () { return this.parent.levels }

  isLevelEnabled (level: string): boolean {
    // A route's own log level makes the child at once: its level is the child's to answer.
    return this.made || this.options.level !== undefined ? this.logger.isLevelEnabled(level) : this.parent.isLevelEnabled(level)
  }

  fatal (...args: unknown[]): void { (this.logger.fatal as LogMethod)(...args) }
  error (...args: unknown[]): void { if (this.isLevelEnabled('error')) (this.logger.error as LogMethod)(...args) }
  warn (...args: unknown[]): void { if (this.isLevelEnabled('warn')) (this.logger.warn as LogMethod)(...args) }
  info (...args: unknown[]): void { if (this.isLevelEnabled('info')) (this.logger.info as LogMethod)(...args) }
  debug (...args: unknown[]): void { if (this.isLevelEnabled('debug')) (this.logger.debug as LogMethod)(...args) }
  trace (...args: unknown[]): void { if (this.isLevelEnabled('trace')) (this.logger.trace as LogMethod)(...args) }
  silent (): void {}
  child (bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger { return this.logger.child(bindings, options) }
  bindings (): pino.Bindings { return this.logger.bindings() }
  flush (callback?: (err?: Error) => void): void { this.logger.flush(callback) }
}

/** fastify's `childLoggerFactory` (core/app.ts): see LazyChildLogger. */
export function lazyChildLogger (parent: Logger, bindings: pino.Bindings, options: pino.ChildLoggerOptions): Logger {
  return new LazyChildLogger(parent, bindings, options) as unknown as Logger
}
