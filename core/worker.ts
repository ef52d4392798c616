// `npm run worker`: a process that runs jobs off the Redis queue (REDIS_URL)
// and listens nowhere. It builds the same services as the API (core/services.ts)
// with RUN_JOBS forced on, runs WORKER_CONCURRENCY jobs at once, and takes part
// in the upkeep (retention sweep, dead-worker reaper, re-offer of queued jobs).
// SIGTERM/SIGINT drain it: no new jobs; running ones get WORKER_SHUTDOWN_GRACE_MS
// to finish, then are handed back to the queue for another worker.
import { ConfigError, loadConfig } from './config.ts'
import { flushLogs } from './logger.ts'
import { exitOnFatalErrors } from './fatal-errors.ts'
import { buildServices, type ServiceHost } from './services.ts'

/** Past the drain's grace, this long for the hand-back and the database to close before the process gives up. */
const CLOSE_MARGIN_MS = 30_000

async function main (): Promise<void> {
  let host: ServiceHost
  let graceMs: number
  try {
    const config = loadConfig(process.env)
    if (!config.redisUrl) throw new ConfigError('REDIS_URL is not set: a worker takes its jobs off the Redis queue (without it, `npm start` runs jobs in the API process)')
    graceMs = config.distributed.shutdownGraceMs
    host = await buildServices({ config: { ...config, distributed: { ...config.distributed, runJobs: true } } })
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`)
      process.exit(78)
    }
    throw err
  }
  const { logger, config } = host.services
  // A bug's crash is logged (fatal, with its stack) before the exit: core/fatal-errors.ts.
  exitOnFatalErrors(logger)
  let closing = false
  const close = async (signal: string) => {
    if (closing) return
    closing = true
    logger.info({ signal, graceMs }, 'worker draining')
    const force = setTimeout(() => process.exit(1), graceMs + CLOSE_MARGIN_MS)
    force.unref()
    try {
      await host.close()
      await flushLogs(logger)
      process.exit(0)
    } catch (err) {
      logger.error({ err }, 'worker shutdown failed')
      await flushLogs(logger)
      process.exit(1)
    }
  }
  process.on('SIGTERM', () => { void close('SIGTERM') })
  process.on('SIGINT', () => { void close('SIGINT') })
  await host.start()
  // Asking the queue starts its worker (the maintenance usually has already).
  host.services.queue.size()
  logger.info({ concurrency: config.distributed.workerConcurrency }, 'worker started')
  void host.services.exec.warnOutdated().catch((err) => logger.warn({ err }, 'the media programs\' versions could not be read'))
}

main().catch((err) => {
  process.stderr.write(`worker failed to start: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
