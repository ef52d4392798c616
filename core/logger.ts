// pino JSON logs. Keys, tokens and passwords are redacted wherever they could
// appear: request headers, bodies logged on error, and objects we log ourselves.
import pino, { type DestinationStream, type Logger } from 'pino'

export type { Logger }

export const REDACTED_PATHS = [
  'req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers["x-blog-key"]', 'req.headers.cookie',
  'headers["x-api-key"]', 'headers.authorization', 'headers["x-blog-key"]',
  'password', 'new_password', 'current_password', 'api_key', 'token', 'secret', 'apiKey',
  '*.password', '*.new_password', '*.current_password', '*.api_key', '*.token', '*.secret', '*.apiKey',
  'body.password', 'body.new_password', 'body.current_password', 'body.api_key',
]

export function createLogger (level: string, stream?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, stream)
}
