// GET /docs: the kernel's OpenAPI document (`app.openapiDocument()`) as one
// page; its stylesheet is /assets/docs.css (public-pages.ts).
import type { FastifyInstance } from 'fastify'
import { renderDocsPage } from './docs-page.ts'

export default async function docsRoutes (app: FastifyInstance): Promise<void> {
  let page: string | undefined
  app.get('/docs', { config: { auth: 'none', tag: 'Documentation', responses: { 200: { content: { 'text/html': { schema: { type: 'string' } } } } } } }, async (_req, reply) => {
    reply.type('text/html; charset=utf-8')
    return (page ??= renderDocsPage(app.openapiDocument()))
  })
}
