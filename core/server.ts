// `npm start`: build the app, listen, and close gracefully on SIGTERM/SIGINT
// (running jobs are given back to the queue's shutdown, the database closed).
import { buildApp } from './app.ts'
import { ConfigError, loadConfig } from './config.ts'
import { flushLogs } from './logger.ts'
import { exitOnFatalErrors } from './fatal-errors.ts'

async function main (): Promise<void> {
  let config
  let app
  // loadConfig checks the environment and tools.config.json's shape; buildApp
  // readies DATA_DIR, ARTIFACTS_DIR and the secret key (core/data-dir.ts), loads
  // the plugins and checks their settings and `uses`: all are config errors.
  try {
    config = loadConfig(process.env)
    app = await buildApp({ config })
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`)
      process.exit(78)
    }
    throw err
  }
  // A bug's crash is logged (fatal, with its stack) before the exit: core/fatal-errors.ts.
  exitOnFatalErrors(app.services.logger)
  let closing = false
  const close = async (signal: string) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down')
    const force = setTimeout(() => process.exit(1), 30_000)
    force.unref()
    try {
      await app.close()
      await flushLogs(app.services.logger)
      process.exit(0)
    } catch (err) {
      app.log.error({ err }, 'shutdown failed')
      await flushLogs(app.services.logger)
      process.exit(1)
    }
  }
  process.on('SIGTERM', () => { void close('SIGTERM') })
  process.on('SIGINT', () => { void close('SIGINT') })
  // Node's default accept queue is 511 connections: a crowd of clients connecting at once
  // overflows it (the kernel's ListenOverflows counter rose during poll.ts's 1,000 pollers),
  // and every dropped handshake costs its client a retransmission of a second or more. The
  // kernel caps the value at net.core.somaxconn.
  await app.listen({ host: config.host, port: config.port, backlog: 4096 })
  // After listening, off the start's path: the programs' versions (a start of each, some of them Python) are for the operator and /api/health.
  void app.services.exec.warnOutdated().catch((err) => app.log.warn({ err }, 'the media programs\' versions could not be read'))
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
