// GET /docs: an interactive reference (Swagger UI, from @fastify/swagger-ui:
// its scripts and styles are files of the package, served under /docs/static,
// so the pages' CSP holds and no CDN is needed) on the kernel's own OpenAPI
// document, `app.openapiDocument()`. Try-it calls this server with the key the
// reader enters under Authorize; each request shows its curl command to copy.
import fp from 'fastify-plugin'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { DOCS_SCRIPT, DOCS_STYLESHEET } from './docs-page.ts'

export default async function docsRoutes (app: FastifyInstance): Promise<void> {
  // Swagger UI's routes (the page, its files, /docs/json and /docs/yaml) are pages for
  // browsers: open to all, out of the OpenAPI document, errors as HTML for browsers.
  app.addHook('onRoute', route => {
    route.config = { auth: 'none', webPage: true, responses: { 200: { content: { 'text/html': { schema: { type: 'string' } } } } }, ...route.config }
  })
  // @fastify/swagger-ui reads the document from `app.swagger()`, which @fastify/swagger
  // would build from the routes: the kernel builds it already.
  await app.register(fp(async (scope: FastifyInstance) => {
    // JSON is YAML too, so /docs/yaml needs no YAML writer.
    scope.decorate('swagger', (options?: { yaml?: boolean }) => (options?.yaml ? JSON.stringify(app.openapiDocument(), null, 2) : app.openapiDocument()))
  }, { name: '@fastify/swagger', fastify: '5.x' }))
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // The document's one server is '/', this origin: Swagger UI's chooser for it would be an unlabelled select.
    transformSpecification: (document: Record<string, unknown>) => ({ ...document, servers: undefined }),
    theme: { title: 'API reference', css: [{ filename: 'docs.css', content: DOCS_STYLESHEET }], js: [{ filename: 'docs-a11y.js', content: DOCS_SCRIPT }] },
    uiConfig: {
      // The bare layout: no top bar, whose box loads any URL's document.
      layout: 'BaseLayout',
      docExpansion: 'list',
      // Deep links put a link inside each operation's toggle button (axe: nested-interactive).
      deepLinking: false,
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      // Its themes colour numbers at 3.5 : 1 on their dark background (axe: color-contrast).
      // Swagger UI reads `activated`; the package's typings spell it `activate`.
      syntaxHighlight: { activated: false } as unknown as { activate: boolean },
      filter: true,
      tryItOutEnabled: false,
      persistAuthorization: false,
    },
  })
}
