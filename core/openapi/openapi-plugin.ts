// GET /openapi.json (OpenAPI 3.0.3, info.version 1.0.0), built from fastify's
// own route table, and `app.openapiDocument()`, the same document for a feature
// that draws it (/docs, core/features/web): an onRoute hook
// records every route with the schemas it validates with, so a new route is
// documented without touching this file. It must be registered before the
// routes it describes; the document is built on first request, when the table
// is complete. Tool params and rows come from the registry's TypeBox schemas.
import fp from 'fastify-plugin'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { buildOpenApiDocument, type RecordedRoute } from './openapi-document.ts'

async function openapiPlugin (app: FastifyInstance): Promise<void> {
  const routes: Array<{ method: string, route: RouteOptions & { websocket?: boolean, wsHandler?: unknown } }> = []
  app.addHook('onRoute', (route: RouteOptions & { websocket?: boolean, wsHandler?: unknown }) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(m => m !== 'HEAD' && m !== 'OPTIONS')
    // Kept by reference: a routes plugin's own onRoute hook (routeDefaults) fills config after this one runs.
    for (const method of methods) routes.push({ method, route })
  })

  let document: Record<string, unknown> | undefined
  const openapi = () => (document ??= buildOpenApiDocument(routes.map(({ method, route }) => ({ method, url: route.url, schema: route.schema as RecordedRoute['schema'], config: route.config, websocket: Boolean(route.websocket || route.wsHandler) })), app.services.registry))

  app.get('/openapi.json', { config: { auth: 'none', tag: 'Documentation', responses: { 200: { content: { 'application/json': { schema: { type: 'object', description: 'This OpenAPI 3.0.3 document.' } } } } } } }, async () => openapi())
  app.decorate('openapiDocument', openapi)
}

export default fp(openapiPlugin, { name: 'openapi', fastify: '5.x' })
