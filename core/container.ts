// One strict awilix container per app: every service hangs off it (no module
// singletons), so tests build independent apps side by side. Disposers close
// what the container opened when the app closes.
// awilix's build without loadModules (its "browser" entry, plain ES): the same
// container, without the file-globbing library (some 60 modules) the app never uses.
import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix/browser'
import type { AppConfig } from './config.ts'
import type { Clock } from './clock.ts'
import type { Logger } from './logger.ts'
import type { SecretScrubber } from './secrets/secret-scrubber.ts'
import type { Database, Db } from './db/database.ts'
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
import type { BullJobQueue } from './jobs/bull-queue.ts'
import { JobRunner } from './jobs/job-runner.ts'
import { JobService } from './jobs/job-service.ts'
import { JobMaintenance } from './jobs/job-maintenance.ts'
import { WebhookDeliveries } from './webhooks/webhook-deliveries.ts'
import { AccountWebhooks } from './webhooks/account-webhooks.ts'
import { JobEnding } from './jobs/job-ending.ts'
import { createNetFactory, type NetFactory, type NetworkOverrides } from './jobs/net-factory.ts'
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

export interface Services {
  config: AppConfig
  clock: Clock
  logger: Logger
  /** Removes credentials from any text that leaves the server (core/secrets). */
  secrets: SecretScrubber
  database: Database
  db: Db
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
}

/** Pools an app borrows instead of making its own (ServicesOptions.extractionPools): closed by their owner, not by the app. */
export interface ExtractionPools {
  poolFor (options: ExtractionPoolOptions): ExtractionPool
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
}): AwilixContainer<Services> {
  const container = createContainer<Services>({ injectionMode: InjectionMode.PROXY, strict: true })
  container.register({
    config: asValue(base.config),
    clock: asValue(base.clock),
    logger: asValue(base.logger),
    secrets: asValue(base.secrets),
    database: asFunction(() => base.database).singleton().disposer(d => d.close()),
    db: asFunction(({ database }: Services) => database.prisma).singleton(),
    accounts: asFunction(({ db, clock, config }: Services) => new AccountService(db, clock, config.secretKey,
      new PasswordHasher(config.passwordHashConcurrency, config.passwordHashQueue, base.passwordCost), new LoginThrottle(clock))).singleton(),
    keys: asFunction(({ database, config, clock, db }: Services) => new KeyResolver(database.hot, config, clock,
      (id, at) => db.scopedToken.update({ where: { id }, data: { lastUsedAt: at } }))).singleton(),
    quotas: asFunction(({ db, clock, database }: Services) => new QuotaService(db, clock, database.hot)).singleton(),
    redis: asFunction(() => base.redis ?? null).singleton().disposer(redis => redis?.close()),
    sharedState: asFunction(() => base.sharedState).singleton().disposer(state => state.close?.()),
    // With Redis the in-memory limiter stays as the fallback while Redis is unreachable.
    rateLimiter: asFunction(({ clock, redis }: Services) => redis ? new RedisRateLimiter(redis, new RateLimiter(clock)) : new RateLimiter(clock)).singleton(),
    registry: asValue(base.registry),
    catalog: asFunction(({ registry }: Services) => registry.catalog).singleton(),
    events: asFunction(({ redis, logger }: Services): JobEvents => redis ? new RedisJobEvents(redis, logger) : new InProcessJobEvents()).singleton().disposer(events => events.close?.()),
    net: asFunction(({ config, clock }: Services) => createNetFactory(config, base.network, clock)).singleton(),
    // No worker starts before the first task; close() terminates whatever started. A borrowed pool stays open.
    extraction: base.extractionPools
      ? asFunction(({ config }: Services) => base.extractionPools!.poolFor(config.extraction)).singleton()
      : asFunction(({ config }: Services) => new ExtractionPool(config.extraction)).singleton().disposer(pool => pool.close()),
    egress: asFunction(({ net, logger }: Services) => new EgressProxy({ ...net.guard, logger })).singleton().disposer(proxy => proxy.close()),
    // Jobs are stopped first (runner.shutdown kills their children); close() kills any group still alive.
    exec: asFunction(({ config, egress, logger }: Services) => new ExecService({ config: config.exec, proxy: egress, logger })).singleton().disposer(exec => exec.close()),
    // A bucket stages each write under DATA_DIR/work (skipped by the workspace sweep: a dot name) before it sends it.
    artifactStore: asFunction(({ config }: Services) => config.artifactsS3
      ? new S3ArtifactStore(config.artifactsS3, join(config.dataDir, 'work', '.s3-staging'))
      : new DirectoryArtifactStore(config.artifactsDir)).singleton().disposer(store => { if (store instanceof S3ArtifactStore) store.close() }),
    artifacts: asFunction(({ db, artifactStore, clock, logger }: Services) => new ArtifactService({ db, store: artifactStore, clock, logger })).singleton(),
    workspace: asFunction(({ config }: Services) => new JobWorkspace(join(config.dataDir, 'work'))).singleton(),
    // A hold outlives no request: a request lasts at most REQUEST_TIMEOUT_MS, a start's admission a few seconds more.
    uploadBudget: asFunction(({ db, sharedState, clock, logger, config }: Services) => new UploadBudget({ db, shared: sharedState, clock, logger, holdTtlMs: config.requestTimeoutMs + 60_000 })).singleton(),
    accountWebhooks: asFunction(({ db, clock, config }: Services) => new AccountWebhooks({ db, clock, box: new SecretBox(config.secretKey) })).singleton(),
    webhooks: asFunction(({ db, clock, net, logger, config, secrets, accountWebhooks }: Services) => new WebhookDeliveries({
      db, clock, net, logger, secrets, box: new SecretBox(config.secretKey), accounts: accountWebhooks,
      retry: { baseMs: config.webhookRetryBaseMs, windowMs: config.webhookRetryWindowMs },
    })).singleton(),
    // Every ending of a job (run, cancel, timeout, reaper) goes through this one.
    ending: asFunction((s: Services) => new JobEnding({
      db: s.db, clock: s.clock, quotas: s.quotas, secrets: s.secrets, events: s.events, webhooks: s.webhooks, logger: s.logger,
      artifacts: s.artifacts, workspace: s.workspace,
    })).singleton(),
    runner: asFunction((s: Services) => new JobRunner({
      db: s.db, registry: s.registry, quotas: s.quotas, clock: s.clock, config: s.config, logger: s.logger, secrets: s.secrets, events: s.events, net: s.net,
      extraction: s.extraction,
      exec: s.exec,
      ending: s.ending,
      artifacts: s.artifacts,
      workspace: s.workspace,
    })).singleton(),
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
      })
      : new InProcessQueue(config.jobConcurrency, async (id) => { await runner.execute(id) })).singleton(),
    // The queue is handed over lazily: the service and the sweeper are built before the first job is queued.
    jobs: asFunction((s: Services) => new JobService({ db: s.db, reads: s.database.hot, clock: s.clock, quotas: s.quotas, registry: s.registry, runner: s.runner, events: s.events, queue: () => container.cradle.queue, ending: s.ending, artifacts: s.artifacts, workspace: s.workspace, shared: s.sharedState })).singleton(),
    maintenance: asFunction((s: Services) => new JobMaintenance({
      db: s.db, clock: s.clock, runner: s.runner, ending: s.ending, queue: () => container.cradle.queue, logger: s.logger,
      artifacts: s.artifacts, workspace: s.workspace, heartbeatMs: s.config.jobHeartbeatMs, intervalMs: s.config.jobSweepIntervalMs,
    })).singleton(),
  })
  return container
}
