// buildApp(options): the container, the kernel plugins, the tools and the
// routes, ready for `inject` or `listen`. It never listens itself.
import Fastify, { type FastifyInstance } from 'fastify'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import type { DestinationStream } from 'pino'
import './fastify-types.ts'
import { loadConfig, type AppConfig } from './config.ts'
import { systemClock, type Clock } from './clock.ts'
import { createLogger } from './logger.ts'
import { openDatabase } from './db/database.ts'
import { createAppContainer } from './container.ts'
import { errorHandler } from './http-errors.ts'
import authPlugin from './auth/auth-plugin.ts'
import accountRoutes from './accounts/routes.ts'
import healthRoutes from './health/routes.ts'

export interface BuildOptions {
  /** Environment to read the configuration from (default: process.env). */
  env?: Record<string, string | undefined>
  /** A ready configuration (skips reading the environment). */
  config?: AppConfig
  clock?: Clock
  /** Where JSON log lines go (default: stdout). */
  logStream?: DestinationStream
}

export const BODY_LIMIT_BYTES = 1024 * 1024

export async function buildApp (options: BuildOptions = {}): Promise<FastifyInstance> {
  const config = options.config ?? loadConfig(options.env ?? process.env)
  const clock = options.clock ?? systemClock
  const logger = createLogger(config.logLevel, options.logStream)
  const database = await openDatabase(config)
  if (database.applied.length) logger.info({ migrations: database.applied }, 'database migrated')
  const container = createAppContainer({ config, clock, logger, database })

  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
  })
  app.setValidatorCompiler(TypeBoxValidatorCompiler)
  // A getter: fastify would probe a plain object for `getter`/`setter`, which a strict cradle refuses.
  const services = container.cradle
  app.decorate('services', { getter: () => services })
  app.addHook('onClose', async () => { await container.dispose() })
  app.setErrorHandler(errorHandler)
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ detail: `No route ${req.method} ${req.url.split('?')[0]}.` })
  })

  await app.register(authPlugin)
  await app.register(healthRoutes)
  await app.register(accountRoutes)
  return app
}
