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
 * Standard output, written asynchronously: a line is handed to a write that
 * runs off the event loop, and lines logged while one is under way go out
 * together in the next. pino's default (one synchronous write per line) cost
 * a hot request ≈ 4 % of its CPU in the write alone (scripts/bench/README.md),
 * and a reader that stops reading (a stalled log collector) blocked the whole
 * service in that write. pino flushes what is buffered synchronously when the
 * process exits (also on an uncaught exception); only a SIGKILL or an
 * out-of-memory end can lose the last lines. Past LOG_BUFFER_MAX bytes waiting
 * (stdout not read at all), lines are dropped rather than held.
 */
export function stdoutDestination (): DestinationStream {
  return pino.destination({ dest: 1, sync: false, maxLength: LOG_BUFFER_MAX })
}

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
