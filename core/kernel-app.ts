// buildKernelApp(options): the container, the kernel plugins, the
// tools and the routes, then the features beside the kernel (core/feature.ts),
// ready for `inject` or `listen`. It never listens itself; core/app.ts says
// which features an app has.
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import fp from 'fastify-plugin'
import './fastify-types.ts'
import type { AppConfig } from './config.ts'
import type { Logger } from './logger.ts'
import { buildServices, type ServicesOptions } from './services.ts'
import { errorHandler } from './http-errors.ts'
import { notFound } from './errors.ts'
import { assertBodyDepth } from './body-depth.ts'
import { responseSerializerCompiler } from './response-serializer.ts'
import { lazyChildLogger } from './logger.ts'
import authPlugin from './auth/auth-plugin.ts'
import hostOriginGuard from './auth/host-origin-guard.ts'
import accountRoutes from './accounts/routes.ts'
import healthRoutes from './health/routes.ts'
import metricsRoutes, { httpMetrics } from './metrics/routes.ts'
import jobRoutes from './jobs/routes.ts'
import webhookRoutes from './webhooks/routes.ts'
import artifactRoutes from './artifacts/routes.ts'
import aliasRoutes from './jobs/alias-routes.ts'
import progressSocketRoutes from './events/progress-socket.ts'
import toolEndpointRoutes from './tools/endpoint-routes.ts'
import websocket from '@fastify/websocket'
import agentRoutes from './agent/routes.ts'
import openapiPlugin from './openapi/openapi-plugin.ts'
import toolListRoutes from './tools/tool-list-routes.ts'
import monitorRoutes from './monitors/routes.ts'
import pageSecurityHeaders from './security-headers.ts'
import { isPageRequest, sendErrorPage, type HtmlErrorPage } from './html-error-pages.ts'
import type { Feature, FeatureHost } from './feature.ts'
import { isStatusPoll, requestSampling, tracingOn } from './telemetry/tracing.ts'

export interface BuildOptions extends ServicesOptions {
  /**
   * Sees every route as it is added (tests: the route fuzz builds its route list
   * from the app itself, so a new route is fuzzed without being listed anywhere).
   */
  onRoute?: (route: RouteOptions) => void
  /** Registered after the kernel's routes, in this order (core/app.ts gives the service's; tests, none or their own). */
  features?: readonly Feature[]
}

const BODY_LIMIT_BYTES = 1024 * 1024

/**
 * fastify's `trustProxy` for TRUST_PROXY. A hop count is given as a function:
 * fastify 5.12 treats a plain number as "trust nothing" (it cannot check the
 * peer is a proxy); the operator who sets a hop count says the service is only
 * reachable through that many proxies, so the n nearest hops are trusted and
 * the client is the address the n-th proxy saw.
 */
function proxyTrust (setting: AppConfig['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting
  return (_address, hop) => hop < setting
}

/**
 * One access line per request, written when it is answered, instead of
 * fastify's two (on arrival, then on answer): the answer's line says all
 * the arrival's did (method, URL, client address), and the two together were
 * about a sixth of a hot request's cost at the default level (scripts/bench/README.md).
 *
 * A successful answer's line goes through a child of the app's logger without
 * pino's redaction: the line holds only the fields built here (no headers, no
 * body), so the redaction paths (whose `*.password`-style wildcards walk every
 * key of every line) had nothing to find and cost ≈ 6 % of a hot request. The
 * secret scrubber still sees the finished line (a key in a query string). An
 * errored request keeps the request's own logger, redaction included: its
 * error object is not ours.
 */
class AccessLog extends LogController {
  private readonly plain: Logger

  constructor (logger: Logger) {
    super()
    this.plain = logger.child({}, { redact: [] })
  }

  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const req = { method: request.method, url: request.url, remoteAddress: request.ip }
    if (error) reply.log.error({ req, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    else if (this.plain.isLevelEnabled('info')) this.plain.info({ reqId: request.id, req, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed')
  }
}

/**
 * TypeBox's validator for a route's body, query, params or headers, compiled by
 * the first request that route gets: compiling every route's at boot (code
 * generation, then a new Function each) was a good part of the start, and most
 * routes are never called by a given process. Every route's schemas are
 * compiled by the tests (test/kernel/route-fuzz-*.test.ts calls each route).
 */
const lazyValidatorCompiler: typeof TypeBoxValidatorCompiler = (routeSchema) => {
  let validate: ReturnType<typeof TypeBoxValidatorCompiler> | undefined
  return (data) => (validate ??= TypeBoxValidatorCompiler(routeSchema))(data)
}

export async function buildKernelApp (options: BuildOptions = {}): Promise<FastifyInstance> {
  const host = await buildServices(options)
  // A feature's (core/feature.ts); none: every error is {detail}.
  let htmlErrorPage: HtmlErrorPage | null = null
  const { config, logger } = host.services
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: proxyTrust(config.trustProxy),
    // Slow clients cannot hold a connection open for ever (fastify's requestTimeout defaults to none).
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.connectionTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    routerOptions: { ignoreTrailingSlash: true },
    logController: new AccessLog(logger),
    // request.log is made when first used: most requests log nothing of their own.
    // (Typed for the app's own pino logger, which fastify types as its base logger.)
    childLoggerFactory: lazyChildLogger as unknown as FastifyServerOptions['childLoggerFactory'],
    // Errors fastify raises before routing (a malformed URL escape, a bad
    // content-type header) skip the error handler; they still answer {detail}.
    frameworkErrors: (error, req, reply: FastifyReply) => errorHandler(error, req, reply, htmlErrorPage),
  })
  app.setValidatorCompiler(lazyValidatorCompiler)
  app.setSerializerCompiler(responseSerializerCompiler)
  // Not a fastify option: set on the Node server (must not exceed requestTimeout).
  app.server.headersTimeout = config.headersTimeoutMs
  if (options.onRoute) app.addHook('onRoute', options.onRoute)
  // A getter: fastify would probe a plain object for `getter`/`setter`, which a strict cradle refuses.
  const services = host.services
  app.decorate('services', { getter: () => services })
  app.addHook('onClose', () => host.close())
  app.setErrorHandler((error: Parameters<typeof errorHandler>[0], req, reply) => errorHandler(error, req, reply, htmlErrorPage))
  // Before any schema or service walks the body (see body-depth.ts).
  // The callback form: no promise per request, and most requests (GETs) have no body.
  app.addHook('preValidation', (req, _reply, done) => {
    if (req.body === null || typeof req.body !== 'object') return done()
    try {
      assertBodyDepth(req.body)
    } catch (err) {
      return done(err as Error)
    }
    done()
  })
  app.setNotFoundHandler((req, reply) => {
    const error = notFound(`No route ${req.method} ${req.url.split('?')[0]}.`)
    // A browser that opens an unknown address outside the API gets a page; the API's clients get {detail}.
    if (htmlErrorPage && isPageRequest(req)) return sendErrorPage(reply, error, htmlErrorPage)
    reply.code(404).send({ detail: error.detail })
  })

  await app.register(websocket, {
    options: { maxPayload: 64 * 1024 },
    // On shutdown, progress sockets are cut at once: a client that never answers
    // the close handshake would otherwise hold the shutdown for ws's 30 s.
    preClose (done) {
      for (const client of this.websocketServer.clients) client.terminate()
      this.websocketServer.close(() => done())
    },
  })
  // Tracing on (core/telemetry): a span per request, continuing a `traceparent` the client sent; loaded only then.
  if (tracingOn()) {
    const { FastifyOtelInstrumentation } = await import('@fastify/otel')
    // The path only: a query string may carry what a log line would redact. One span per request:
    // a span for each hook and handler (the default) cost more than the request itself on the
    // hot routes (scripts/bench/README.md, observability.ts); the job's spans still continue the
    // request's context, which the request span sets for everything that follows it.
    // A job's status poll is not traced unless OTEL_TRACE_STATUS_POLLS says so: it is the hottest
    // route, a span per poll every few seconds per job says nothing of the job (whose trace is its
    // start's), and skipping it (no span, no context) is what brings tracing within 15 % of off there.
    // A sampler that drops requests (a ratio) decides each one first, so a dropped request gets no
    // span and no context either: its hook must be the one just before @fastify/otel's.
    const untracedPolls = services.config.tracing.statusPolls ? () => false : isStatusPoll
    const sampling = requestSampling(untracedPolls)
    if (sampling) app.addHook('onRequest', sampling.onRequest)
    const ignorePaths = sampling ? sampling.ignores : services.config.tracing.statusPolls ? undefined : isStatusPoll
    await app.register(new FastifyOtelInstrumentation({
      instrumentHooks: false,
      instrumentHandler: false,
      ignorePaths,
      requestHook: (span, request) => span.setAttribute('url.path', request.url.split('?')[0]!),
    }).plugin())
  }
  // Before every route: each route's labels are made as it is added (core/metrics).
  await app.register(httpMetrics)
  await app.register(hostOriginGuard)
  // Every text/html answer (the features' pages, HTML errors, an artifact) gets the CSP and its companions (security-headers.ts).
  await app.register(pageSecurityHeaders)
  await app.register(authPlugin)
  await app.register(openapiPlugin)
  await app.register(healthRoutes)
  await app.register(metricsRoutes)
  await app.register(accountRoutes)
  await app.register(jobRoutes)
  await app.register(webhookRoutes)
  await app.register(artifactRoutes)
  await app.register(aliasRoutes)
  await app.register(progressSocketRoutes)
  await app.register(toolEndpointRoutes)
  await app.register(agentRoutes)
  await app.register(toolListRoutes)
  await app.register(monitorRoutes)
  const featureHost: FeatureHost = {
    services,
    setHtmlErrorPage: (page) => {
      if (htmlErrorPage) throw new Error('a feature already set the HTML error page')
      htmlErrorPage = page
    },
  }
  for (const feature of options.features ?? []) {
    await app.register(fp(async (scope: FastifyInstance) => feature.register(scope, featureHost), { name: feature.name, dependencies: feature.dependencies, fastify: '5.x' }))
  }
  await app.ready()
  await host.start()
  // The pino-typed instance is a FastifyInstance for every caller.
  return app as unknown as FastifyInstance
}
