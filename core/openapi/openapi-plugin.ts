// GET /openapi.json (OpenAPI 3.0.3, info.version 1.0.0) and GET /docs (the
// same as a page), built from fastify's own route table: an onRoute hook
// records every route with the schemas it validates with, so a new route is
// documented without touching this file. It must be registered before the
// routes it describes; the document is built on first request, when the table
// is complete. Tool params and rows come from the registry's TypeBox schemas.
import fp from 'fastify-plugin'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { renderDocsPage } from './docs-page.ts'
import { buildOpenApiDocument, type RecordedRoute } from './openapi-document.ts'

async function openapiPlugin (app: FastifyInstance): Promise<void> {
  const routes: RecordedRoute[] = []
  app.addHook('onRoute', (route: RouteOptions & { websocket?: boolean, wsHandler?: unknown }) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(m => m !== 'HEAD' && m !== 'OPTIONS')
    for (const method of methods) routes.push({ method, url: route.url, schema: route.schema as RecordedRoute['schema'], config: route.config as RecordedRoute['config'], websocket: Boolean(route.websocket || route.wsHandler) })
  })

  let document: Record<string, unknown> | undefined
  let page: string | undefined
  const openapi = () => (document ??= buildOpenApiDocument(routes, app.services.registry))

  app.get('/openapi.json', { config: { auth: 'none' } }, async () => openapi())
  app.get('/docs', { config: { auth: 'none', responses: { 200: { content: { 'text/html': { schema: { type: 'string' } } } } } } }, async (_req, reply) => {
    reply.type('text/html; charset=utf-8')
    return (page ??= renderDocsPage(openapi()))
  })
}

export default fp(openapiPlugin, { name: 'openapi', fastify: '5.x' })
