// buildServices(options): everything an app runs on except HTTP: the
// configuration, logger, database, tool registry and the container with every
// service. buildApp puts routes in front of it; `npm run worker`
// (core/worker.ts) runs jobs with it and listens nowhere.
import { dirname } from 'node:path'
import type { AwilixContainer } from 'awilix'
import type { DestinationStream } from 'pino'
import { loadConfig, type LoadedConfig } from './config.ts'
import { prepareDataDirs } from './data-dir.ts'
import { systemClock, type Clock } from './clock.ts'
import { createLogger } from './logger.ts'
import type { ScryptCost } from './crypto.ts'
import { createSecretScrubber } from './secrets/secret-scrubber.ts'
import { openDatabase } from './db/database.ts'
import { createAppContainer, type ExtractionPools, type Services } from './container.ts'
import type { NetworkOverrides } from './net/net-factory.ts'
import { ToolRegistry } from './tools/registry.ts'
import { openSharedState } from './shared-state/open-shared-state.ts'
import { createMetrics, disabledMetrics } from './metrics/metrics.ts'
import { listenForScrapes, type MetricsListener } from './metrics/metrics-server.ts'
import { flushTraces, startTracing, tracingOn } from './telemetry/tracing.ts'

/** How long the start waits for Redis before it goes on without (see start below). */
const REDIS_BOOT_WAIT_MS = 5000

export interface ServicesOptions {
  /** Environment to read the configuration from (default: process.env). */
  env?: Record<string, string | undefined>
  /** A configuration already read (skips reading the environment); its folders and secret are readied here. */
  config?: LoadedConfig
  clock?: Clock
  /** Where JSON log lines go (default: stdout). */
  logStream?: DestinationStream
  /** Host resolution and exact private `address:port` exceptions for tool requests (tests; see net-factory.ts). */
  network?: NetworkOverrides
  /**
   * scrypt's cost for new password hashes (tests: a signup per test at the
   * production cost was a large share of the suite's CPU). Never a setting:
   * `npm start` always hashes at PASSWORD_SCRYPT.
   */
  passwordCost?: ScryptCost
  /**
   * Extraction pools that outlive the app: it takes its pool from here and does not
   * close it. Tests give one per test process, so its apps share the workers (each
   * worker's boot loads the DOM and phone libraries); the server makes its own.
   */
  extractionPools?: ExtractionPools
}

export interface ServiceHost {
  container: AwilixContainer<Services>
  services: Services
  /** After the app is ready: boot warnings, then the maintenance (queued jobs offered again, the sweeper's timer). */
  start (): Promise<void>
  /** Stops sweeping, drains the queue, hands running jobs back, cuts webhook attempts in flight (they stay due), closes the database. */
  close (): Promise<void>
  /** The METRICS_PORT listener's bound port once started, else null. */
  metricsPort (): number | null
}

export async function buildServices (options: ServicesOptions = {}): Promise<ServiceHost> {
  // Before anything opens a file in them: DATA_DIR, ARTIFACTS_DIR and the secret key.
  const config = prepareDataDirs(options.config ?? loadConfig(options.env ?? process.env))
  const clock = options.clock ?? systemClock
  // Built before the logger: every log line, from the first, passes through it.
  const secrets = createSecretScrubber(config)
  const logger = createLogger(config.logLevel, options.logStream, secrets)
  // Before the plugins: their createState takes the shared state (Redis with REDIS_URL).
  const { redis, sharedState } = openSharedState(config, logger)
  // The database opens while the plugins load: Prisma's query compiler compiles on
  // V8's background threads and the plugins' files are read meanwhile. A database
  // that fails is reported first, as when the two ran one after the other.
  const [opened, loaded] = await Promise.allSettled([
    openDatabase(config),
    ToolRegistry.load(config.tools, dirname(config.toolsConfigPath), undefined, { shared: sharedState }),
  ])
  if (opened.status === 'rejected' || loaded.status === 'rejected') {
    if (opened.status === 'fulfilled') await opened.value.close()
    await redis?.close()
    throw opened.status === 'rejected' ? opened.reason : (loaded as PromiseRejectedResult).reason
  }
  const database = opened.value
  const registry = loaded.value
  for (const warning of registry.settingWarnings) logger.warn(warning)
  if (database.applied.length) logger.info({ migrations: database.applied }, 'database migrated')
  const BullQueue = config.redisUrl ? (await import('./jobs/bull-queue.ts')).BullJobQueue : null
  const BullMonitors = config.redisUrl ? (await import('./monitors/bull-monitor-scheduler.ts')).BullMonitorScheduler : null
  // prom-client, the OpenTelemetry SDK and BullMQ's bridge load only when their settings ask for them.
  const metrics = config.metrics.enabled ? createMetrics(await import('prom-client'), registry.catalog.keys().filter(key => registry.catalog.isEnabled(key))) : disabledMetrics()
  await startTracing(config.tracing)
  const queueTelemetry = tracingOn() && BullQueue ? new (await import('bullmq-otel')).BullMQOtel('extraction-jobs') : undefined
  const container = createAppContainer({ config, clock, logger, secrets, database, registry, network: options.network, passwordCost: options.passwordCost, extractionPools: options.extractionPools, redis, sharedState, BullQueue, BullMonitors, metrics, queueTelemetry })
  const services = container.cradle
  let closing: Promise<void> | null = null
  let scrapes: MetricsListener | null = null
  return {
    container,
    services,
    metricsPort: () => scrapes?.port ?? null,
    start: async () => {
      if (config.metrics.enabled && config.metrics.port !== null) {
        scrapes = await listenForScrapes(services.metrics, config.host, config.metrics.port, logger)
        logger.info({ port: scrapes.port }, 'metrics served on their own port')
      }
      // The services opened their Redis connections while being built. A Redis
      // still unreachable does not stop the boot: shared state falls back to
      // this process and events and the queue wait, until it is back.
      if (redis && !(await redis.ready(REDIS_BOOT_WAIT_MS))) logger.error('Redis (REDIS_URL) is not reachable yet; shared state is per process until it is')
      // A missing media program is a warning, not a failed boot: only the tools that run it fail (naming the variable).
      services.exec.warnMissing()
      await services.maintenance.start()
      await services.monitorScheduler.start()
      // Deliveries due (those a stop left, retries whose time came) are sent from here on, by whichever process claims them.
      services.webhooks.start()
    },
    // Order matters: stop sweeping; stop taking jobs and give running ones the
    // queue's grace; hand the rest back; cut webhook attempts (they stay due); close the database.
    close: () => closing ??= (async () => {
      await services.monitorScheduler.stop()
      await services.maintenance.stop()
      await services.queue.drain()
      await services.runner.shutdown()
      await services.queue.close()
      await services.webhooks.close()
      await scrapes?.close()
      await flushTraces().catch(err => logger.warn({ err }, 'sending the last traces failed'))
      await container.dispose()
    })(),
  }
}
