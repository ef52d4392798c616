// The HTTP side of core/metrics: every answer counted by method, route
// pattern and status (http_requests_total, http_request_duration_seconds),
// and `GET /metrics`, the exposition, behind the admin key. Registered
// before the routes plugins, so each route's labels are made once, when the
// route is added, not read back per request. Absent with METRICS=0.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify'
import { routeDefaults } from '../route-defaults.ts'

/** The route label of an answer no route matched (the 404 handler): one series, whatever the URL. */
const UNMATCHED = '(unmatched)'

async function metricsPlugin (app: FastifyInstance): Promise<void> {
  const { metrics } = app.services
  if (!metrics.enabled) return
  const observe = (request: FastifyRequest, reply: FastifyReply, route: string) => {
    const labels = { method: request.method, route, status: reply.statusCode }
    metrics.httpRequests.inc(labels)
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000)
  }
  app.addHook('onRoute', (route) => {
    const pattern = route.url
    const counted: onResponseHookHandler = function (request, reply, done) {
      observe(request, reply, pattern)
      done()
    }
    const own = route.onResponse
    route.onResponse = own === undefined ? [counted] : [counted, ...(Array.isArray(own) ? own : [own])]
  })
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) observe(request, reply, UNMATCHED)
    done()
  })
}

async function metricsRoutes (app: FastifyInstance): Promise<void> {
  const { metrics } = app.services
  if (!metrics.enabled) return
  routeDefaults(app, { tag: 'Service', auth: 'admin' })
  app.get('/metrics', {
    config: { responses: { 200: { content: { 'text/plain': { schema: { type: 'string', description: 'This process\'s metrics in Prometheus\'s text format (core/metrics/README.md lists them).' } } } } } },
  }, async (_request, reply) => {
    const { contentType, body } = await metrics.render()
    return reply.type(contentType).send(body)
  })
}

/** The counting hooks: registered unencapsulated, before any route. */
export const httpMetrics = fp(metricsPlugin, { name: 'http-metrics', fastify: '5.x' })
export default metricsRoutes
