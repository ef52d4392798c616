// One strict awilix container per app: every service hangs off it (no module
// singletons), so tests build independent apps side by side. Disposers close
// what the container opened when the app closes.
import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix'
import type { AppConfig } from './config.ts'
import type { Clock } from './clock.ts'
import type { Logger } from './logger.ts'
import type { Database, Db } from './db/database.ts'
import { AccountService } from './accounts/account-service.ts'
import { KeyResolver } from './auth/principal.ts'
import { QuotaService } from './quotas/quota-service.ts'
import { RateLimiter } from './quotas/rate-limiter.ts'
import { ToolCatalog } from './tools/catalog.ts'

export interface Services {
  config: AppConfig
  clock: Clock
  logger: Logger
  database: Database
  db: Db
  accounts: AccountService
  keys: KeyResolver
  quotas: QuotaService
  rateLimiter: RateLimiter
  catalog: ToolCatalog
}

export function createAppContainer (base: { config: AppConfig, clock: Clock, logger: Logger, database: Database }): AwilixContainer<Services> {
  const container = createContainer<Services>({ injectionMode: InjectionMode.PROXY, strict: true })
  container.register({
    config: asValue(base.config),
    clock: asValue(base.clock),
    logger: asValue(base.logger),
    database: asFunction(() => base.database).singleton().disposer(d => d.close()),
    db: asFunction(({ database }: Services) => database.prisma).singleton(),
    accounts: asFunction(({ db, clock, config }: Services) => new AccountService(db, clock, config.secretKey)).singleton(),
    keys: asFunction(({ db, config, clock }: Services) => new KeyResolver(db, config, clock)).singleton(),
    quotas: asFunction(({ db, clock }: Services) => new QuotaService(db, clock)).singleton(),
    rateLimiter: asFunction(({ clock }: Services) => new RateLimiter(clock)).singleton(),
    catalog: asFunction(({ config }: Services) => new ToolCatalog(config.tools)).singleton(),
  })
  return container
}
