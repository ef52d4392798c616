// What `npm start` and `npm run worker` do with an unhandled rejection or an
// uncaught exception (an 'error' event nobody listens to is one): log it at
// fatal with its stack, wait for the log to be written (flushLogs, at most 5 s),
// and exit with code 1, as Node would. Such an error is a bug, and the process's
// state after it is unknown, so it does not go on; what this adds to Node's own
// crash is that the crash is in the JSON log (scrubbed like every line) instead
// of a bare stack on stderr, with the lines logged before it, which Node's exit
// can cut short. Running jobs are not handed back: the heartbeat check of
// another process (or the next start) ends them as after any crash.
//
// Redis and BullMQ do not come here when Redis goes away: every connection and
// BullMQ object the service makes has an 'error' listener that logs
// (core/redis/README.md), and their promises are handled.
import type { Logger } from './logger.ts'
import { flushLogs } from './logger.ts'

/** The listener for both events; the first error ends the process, later ones (while it exits) are logged too. */
export function fatalErrorHandler (logger: Logger, exit: (code: number) => void = code => process.exit(code)): (err: unknown, origin: string) => void {
  let exiting = false
  return (err, origin) => {
    logger.fatal({ err, origin }, exiting ? 'another unhandled error while exiting' : 'unhandled error (a bug): exiting')
    if (exiting) return
    exiting = true
    void flushLogs(logger).then(() => exit(1))
  }
}

/** Installs it on this process (the two entry points call it once their logger exists; apps built by tests do not). */
export function exitOnFatalErrors (logger: Logger): void {
  const handle = fatalErrorHandler(logger)
  process.on('unhandledRejection', reason => handle(reason, 'unhandledRejection'))
  process.on('uncaughtException', (err, origin) => handle(err, origin))
}
