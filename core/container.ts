// One strict awilix container per app: every service hangs off it (no module
// singletons), so tests build independent apps side by side. Disposers close
// what the container opened when the app closes. How it is laid out (the
// three kinds of registration, lifetimes, why no request scope): core/README.md,
// "The container".
// awilix's build without loadModules (its "browser" entry, plain ES): the same
// container, without the file-globbing library (some 60 modules) the app never uses.
import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix/browser'
import type { AppConfig } from './config.ts'
import type { Clock } from './clock.ts'
import type { Logger } from './logger.ts'
import type { SecretScrubber } from './secrets/secret-scrubber.ts'
import type { Database, Db } from './db/database.ts'
import type { HotReads } from './db/hot-reads.ts'
import { AccountService } from './accounts/account-service.ts'
import { LoginThrottle } from './accounts/login-throttle.ts'
import { PasswordHasher, SecretBox, type ScryptCost } from './crypto.ts'
import { KeyResolver } from './auth/principal.ts'
import { QuotaService } from './quotas/quota-service.ts'
import { RateLimiter, type ClientRateLimiter } from './quotas/rate-limiter.ts'
import { RedisRateLimiter } from './quotas/redis-rate-limiter.ts'
import type { ToolCatalog } from './tools/catalog.ts'
import type { ToolRegistry } from './tools/registry.ts'
import { InProcessJobEvents, type JobEvents } from './jobs/job-events.ts'
import { RedisJobEvents } from './jobs/redis-job-events.ts'
import type { RedisConnections } from './redis/redis-connections.ts'
import type { SharedStateService } from './shared-state/shared-state.ts'
import { InProcessQueue, type JobQueue } from './jobs/job-queue.ts'
import type { BullJobQueue, BullQueueOptions } from './jobs/bull-queue.ts'
import { JobRunner } from './jobs/job-runner.ts'
import { JobService } from './jobs/job-service.ts'
import { JobMaintenance } from './jobs/job-maintenance.ts'
import { WebhookDeliveries } from './webhooks/webhook-deliveries.ts'
import { AccountWebhooks } from './webhooks/account-webhooks.ts'
import { JobEnding } from './jobs/job-ending.ts'
import { createNetFactory, type NetFactory, type NetworkOverrides } from './net/net-factory.ts'
import { RedisProxyHealth } from './net/redis-proxy-health.ts'
import { ExtractionPool, type ExtractionPoolOptions } from './workers/extraction-pool.ts'
import { EgressProxy } from './exec/egress-proxy.ts'
import { ExecService } from './exec/process-runner.ts'
import { join } from 'node:path'
import type { ArtifactStore } from './artifacts/artifact-store.ts'
import { DirectoryArtifactStore } from './artifacts/directory-store.ts'
import { S3ArtifactStore } from './artifacts/s3-store.ts'
import { ArtifactService } from './artifacts/artifact-service.ts'
import { JobWorkspace } from './artifacts/job-workspace.ts'
import { UploadBudget } from './artifacts/upload-budget.ts'
import { MonitorService } from './monitors/monitor-service.ts'
import { MonitorRuns, ScheduleNotices } from './monitors/monitor-runs.ts'
import { DatabaseMonitorScheduler, type MonitorScheduler } from './monitors/monitor-scheduler.ts'
import type { BullMonitorScheduler } from './monitors/bull-monitor-scheduler.ts'
import type { MonitorRunEnding } from './jobs/job-ending.ts'
import type { Metrics } from './metrics/metrics.ts'

export interface Services {
  config: AppConfig
  clock: Clock
  logger: Logger
  /** Removes credentials from any text that leaves the server (core/secrets). */
  secrets: SecretScrubber
  database: Database
  db: Db
  /** The database's read path for status polls and row pages (database.hot). */
  hotReads: HotReads
  accounts: AccountService
  keys: KeyResolver
  quotas: QuotaService
  /** Per-client request windows: this process's, or Redis's with REDIS_URL (shared by every API process). */
  rateLimiter: ClientRateLimiter
  /** The app's Redis connections (core/redis), or null without REDIS_URL. */
  redis: RedisConnections | null
  /** Counters, values, turns and locks shared by every process (Redis with REDIS_URL, else memory): core/shared-state. */
  sharedState: SharedStateService
  catalog: ToolCatalog
  registry: ToolRegistry
  /** Job progress and final events: in-process, or Redis pub/sub with REDIS_URL (heard in every process). */
  events: JobEvents
  net: NetFactory
  extraction: ExtractionPool
  /** The local proxy media programs reach the network through (started on first use). */
  egress: EgressProxy
  exec: ExecService
  /** Where job files' bytes live: ARTIFACTS_DIR, or an S3-compatible bucket (ARTIFACTS_S3_BUCKET). */
  artifactStore: ArtifactStore
  artifacts: ArtifactService
  /** Each job's scratch and upload files (DATA_DIR/work). */
  workspace: JobWorkspace
  /** Each account's budget for the uploads it holds at once (its unfinished jobs' and those arriving). */
  uploadBudget: UploadBudget
  /** An account's default webhook (PUT /api/account/webhook). */
  accountWebhooks: AccountWebhooks
  /** Webhook deliveries: recorded, retried over WEBHOOK_RETRY_WINDOW_MS, sent once across processes (core/webhooks). */
  webhooks: WebhookDeliveries
  ending: JobEnding
  runner: JobRunner
  queue: JobQueue
  jobs: JobService
  maintenance: JobMaintenance
  /** Saved tool calls on a schedule, whose runs report what changed (core/monitors). */
  monitors: MonitorService
  /** What a monitor's ending run does to it (compared, or counted towards its pause). */
  monitorRuns: MonitorRuns
  /** MonitorRuns, for JobEnding (which knows no monitor) as its MonitorRunEnding. */
  monitorRunEnded: MonitorRunEnding
  /** Schedule changes, for the scheduler that listens to them. */
  scheduleNotices: ScheduleNotices
  /** Fires monitors' ticks: BullMQ job schedulers with REDIS_URL, else a timer on the database. */
  monitorScheduler: MonitorScheduler
  /** The app's Prometheus metrics (core/metrics): every service counts its own events here; a no-op with METRICS=0. */
  metrics: Metrics
}

/** Pools an app borrows instead of making its own (ServicesOptions.extractionPools): closed by their owner, not by the app. */
export interface ExtractionPools {
  poolFor (options: ExtractionPoolOptions): ExtractionPool
}

/**
 * A service by convention: a class whose constructor takes one object of the
 * services it uses, named as the container names them (`names`, checked
 * against the constructor's type), one per app. They are resolved once, when
 * it is built, into a plain object: a service never reaches back into the
 * container, so nothing is made again after the container is disposed and no
 * container lookup sits on a request's path.
 */
function service<K extends keyof Services, T> (Class: new (deps: Pick<Services, K>) => T, names: readonly K[]) {
  return asFunction((cradle: Services) => {
    const deps = {} as Pick<Services, K>
    for (const name of names) deps[name] = cradle[name]
    return new Class(deps)
  }).singleton()
}

export function createAppContainer (base: {
  config: AppConfig, clock: Clock, logger: Logger, secrets: SecretScrubber, database: Database, registry: ToolRegistry, network?: NetworkOverrides,
  /** scrypt's cost for new password hashes (tests only; see ServicesOptions). */
  passwordCost?: ScryptCost,
  extractionPools?: ExtractionPools,
  /** Opened before the container, with the shared state, because plugins' createState (at registry load) takes it. */
  redis?: RedisConnections | null, sharedState: SharedStateService,
  /** The BullMQ queue's class, imported by buildServices only when REDIS_URL is set (bullmq stays out of a single-process server). */
  BullQueue?: typeof BullJobQueue | null,
  /** The BullMQ monitor scheduler's class, imported like BullQueue. */
  BullMonitors?: typeof BullMonitorScheduler | null,
  /** Made by buildServices (prom-client is imported only with METRICS on). */
  metrics: Metrics,
  /** BullMQ's OpenTelemetry bridge, when tracing is on (core/telemetry). */
  queueTelemetry?: BullQueueOptions['telemetry'],
}): AwilixContainer<Services> {
  const container = createContainer<Services>({ injectionMode: InjectionMode.PROXY, strict: true })
  container.register({
    // 1. What the boot made before the container: values. Those the app closes get a disposer.
    config: asValue(base.config),
    clock: asValue(base.clock),
    logger: asValue(base.logger),
    secrets: asValue(base.secrets),
    registry: asValue(base.registry),
    database: asFunction(() => base.database).singleton().disposer(d => d.close()),
    // The queued gauges read the database at each scrape: every process shows the deployment's queue.
    metrics: asFunction(({ db, clock }: Services) => {
      base.metrics.readQueued(async () => {
        const groups = await db.job.groupBy({ by: ['tool'], where: { status: 'running', startedAt: null }, _count: { _all: true }, _min: { createdAt: true } })
        const now = clock().getTime()
        return groups.map(group => ({ tool: group.tool, count: group._count._all, oldestSeconds: Math.max(0, (now - (group._min.createdAt?.getTime() ?? now)) / 1000) }))
      })
      return base.metrics
    }).singleton(),
    redis: asFunction(() => base.redis ?? null).singleton().disposer(redis => redis?.close()),
    sharedState: asFunction(() => base.sharedState).singleton().disposer(state => state.close?.()),
    // Parts of those, under their own names.
    db: asFunction(({ database }: Services) => database.prisma).singleton(),
    hotReads: asFunction(({ database }: Services) => database.hot).singleton(),
    catalog: asFunction(({ registry }: Services) => registry.catalog).singleton(),

    // 2. By convention: a class whose constructor takes the services it uses by
    // their names (service above), one per app.
    artifacts: service(ArtifactService, ['db', 'artifactStore', 'clock', 'logger']),
    uploadBudget: service(UploadBudget, ['db', 'sharedState', 'clock', 'logger', 'config']),
    // Every ending of a job (run, cancel, timeout, reaper) goes through this one.
    ending: service(JobEnding, ['db', 'clock', 'quotas', 'secrets', 'events', 'webhooks', 'logger', 'artifacts', 'workspace', 'metrics', 'monitorRunEnded']),
    runner: service(JobRunner, ['db', 'registry', 'quotas', 'clock', 'config', 'logger', 'secrets', 'events', 'net', 'extraction', 'exec', 'ending', 'artifacts', 'workspace', 'metrics']),
    // The job service and the maintenance offer jobs to the queue (JobOffers); the queue runs them through the runner.
    jobs: service(JobService, ['db', 'hotReads', 'clock', 'quotas', 'registry', 'runner', 'events', 'queue', 'ending', 'artifacts', 'workspace', 'sharedState', 'metrics']),
    monitorRuns: service(MonitorRuns, ['db', 'hotReads', 'clock', 'registry', 'logger', 'scheduleNotices', 'webhooks']),
    monitors: service(MonitorService, ['db', 'clock', 'registry', 'jobs', 'monitorRuns', 'scheduleNotices']),
    maintenance: service(JobMaintenance, ['db', 'clock', 'runner', 'ending', 'queue', 'logger', 'artifacts', 'workspace', 'config']),

    // 3. Factories, one per app: a class built from a slice of the configuration,
    // or an implementation the configuration chooses.
    accounts: asFunction(({ db, clock, config }: Services) => new AccountService(db, clock, config.secretKey,
      new PasswordHasher(config.passwordHashConcurrency, config.passwordHashQueue, base.passwordCost), new LoginThrottle(clock))).singleton(),
    keys: asFunction(({ hotReads, config, clock, db }: Services) => new KeyResolver(hotReads, config, clock,
      (id, at) => db.scopedToken.update({ where: { id }, data: { lastUsedAt: at } }))).singleton(),
    quotas: asFunction(({ db, clock, hotReads, metrics }: Services) => new QuotaService(db, clock, hotReads, metrics)).singleton(),
    // With Redis the in-memory limiter stays as the fallback while Redis is unreachable.
    rateLimiter: asFunction(({ clock, redis }: Services) => redis ? new RedisRateLimiter(redis, new RateLimiter(clock)) : new RateLimiter(clock)).singleton(),
    events: asFunction(({ redis, logger }: Services): JobEvents => redis ? new RedisJobEvents(redis, logger) : new InProcessJobEvents()).singleton().disposer(events => events.close?.()),
    // The pool's health is read at each scrape; a cool-down's start is counted as it happens.
    // With Redis the health is the cluster's (core/net/redis-proxy-health.ts): a cool-down is counted by the process whose report began it.
    net: asFunction(({ config, clock, metrics, redis, logger }: Services) => {
      const net = createNetFactory(config, base.network, clock)
      metrics.readProxies(() => net.proxies.health())
      net.proxies.onHealthChange((health, index, here) => { if (health.cooling_down && here) metrics.proxyCooldowns.inc({ proxy: index }) })
      if (redis && net.proxies.size > 0) net.shared = new RedisProxyHealth(net.proxies, redis, { ...config.proxy, logger })
      return net
    }).singleton().disposer(net => net.shared?.close()),
    // No worker starts before the first task; close() terminates whatever started. A borrowed pool stays open.
    extraction: base.extractionPools
      ? asFunction(({ config }: Services) => base.extractionPools!.poolFor(config.extraction)).singleton()
      : asFunction(({ config }: Services) => new ExtractionPool(config.extraction)).singleton().disposer(pool => pool.close()),
    egress: asFunction(({ net, logger }: Services) => new EgressProxy({ ...net.guard, logger })).singleton().disposer(proxy => proxy.close()),
    // The programs the enabled tools declare. Jobs are stopped first (runner.shutdown kills their children); close() kills any group still alive.
    exec: asFunction(({ config, egress, logger, registry, metrics }: Services) => new ExecService({ config: config.exec, proxy: egress, logger, programs: registry.programs(), metrics })).singleton().disposer(exec => exec.close()),
    // A bucket stages each write under DATA_DIR/work (skipped by the workspace sweep: a dot name) before it sends it.
    artifactStore: asFunction(({ config }: Services) => config.artifactsS3
      ? new S3ArtifactStore(config.artifactsS3, join(config.dataDir, 'work', '.s3-staging'))
      : new DirectoryArtifactStore(config.artifactsDir)).singleton().disposer(store => { if (store instanceof S3ArtifactStore) store.close() }),
    workspace: asFunction(({ config }: Services) => new JobWorkspace(join(config.dataDir, 'work'))).singleton(),
    accountWebhooks: asFunction(({ db, clock, config }: Services) => new AccountWebhooks({ db, clock, box: new SecretBox(config.secretKey) })).singleton(),
    // Each recorded attempt counted by its outcome only (no event, target or id in a label).
    webhooks: asFunction(({ db, clock, net, logger, config, secrets, accountWebhooks, metrics }: Services) => {
      const deliveries = new WebhookDeliveries({
        db, clock, net, logger, secrets, box: new SecretBox(config.secretKey), accounts: accountWebhooks,
        retry: { baseMs: config.webhookRetryBaseMs, windowMs: config.webhookRetryWindowMs },
      })
      deliveries.onAttempt(({ outcome, durationMs }) => {
        metrics.webhookDeliveries.inc({ outcome })
        metrics.webhookAttemptDuration.observe({ outcome }, durationMs / 1000)
      })
      return deliveries
    }).singleton(),
    // REDIS_URL: the BullMQ queue shared by every process (API processes offer, workers run);
    // else the embedded fair-share scheduler runs them here (core/jobs/README.md).
    queue: asFunction(({ runner, config, logger }: Services) => config.redisUrl && base.BullQueue
      ? new base.BullQueue({
        redisUrl: config.redisUrl,
        keyPrefix: config.distributed.keyPrefix,
        runner,
        logger,
        runJobs: config.distributed.runJobs,
        concurrency: config.distributed.workerConcurrency,
        shutdownGraceMs: config.distributed.shutdownGraceMs,
        telemetry: base.queueTelemetry,
      })
      : new InProcessQueue(config.jobConcurrency, async (id) => { await runner.execute(id) })).singleton(),
    monitorRunEnded: asFunction(({ monitorRuns }: Services): MonitorRunEnding => monitorRuns).singleton(),
    scheduleNotices: asFunction(() => new ScheduleNotices()).singleton(),
    monitorScheduler: asFunction(({ monitors, clock, logger, config }: Services): MonitorScheduler => config.redisUrl && base.BullMonitors
      ? new base.BullMonitors({ redisUrl: config.redisUrl, keyPrefix: config.distributed.keyPrefix, runJobs: config.distributed.runJobs, monitors, clock, logger })
      : new DatabaseMonitorScheduler({ monitors, clock, logger })).singleton(),
  })
  return container
}
