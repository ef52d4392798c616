// GET /app (the dashboard's page) and GET /app/assets/<name> (its script and
// style sheet). Both are public (`none`): the page holds no data; everything it
// shows comes from /api/* with the key the person typed, kept in
// sessionStorage and sent in the x-api-key header (never a cookie, so no
// cross-site request can carry it: CSRF is impossible by construction).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { notFound, unavailable } from '../../errors.ts'
import { routeDefaults } from '../../openapi/route-defaults.ts'
// The page's script and style are served with the same security headers as every HTML page
// (core/web/security-headers.ts: no inline code, connections to this origin only).
import { PAGE_SECURITY_HEADERS } from '../security-headers.ts'
import { chooseCoding, isCurrent } from '../pages/static-assets.ts'
import { bundleDashboard, type DashboardBundle, type DashboardFile } from './dashboard-bundle.ts'

const AssetParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 128 }) })

function sendFile (req: FastifyRequest, reply: FastifyReply, file: DashboardFile, cacheControl: string) {
  reply
    .headers(PAGE_SECURITY_HEADERS)
    .header('cache-control', cacheControl)
    .header('vary', 'accept-encoding')
    .header('etag', file.etag)
    .type(file.contentType)
  if (isCurrent(req.headers['if-none-match'], file.etag)) return reply.code(304).send()
  const encoding = chooseCoding(req.headers['accept-encoding'])
  if (encoding !== 'identity') reply.header('content-encoding', encoding)
  return reply.send(encoding === 'br' ? file.brotli : encoding === 'gzip' ? file.gzip : file.identity)
}

export default async function dashboardRoutes (app: FastifyInstance): Promise<void> {
  routeDefaults(app, { tag: 'Dashboard', auth: 'none' })
  // Built on the first request, once per app; a failed build is retried by the next request.
  let bundle: Promise<DashboardBundle> | undefined
  const dashboard = async () => {
    bundle ??= bundleDashboard().catch((err: unknown) => {
      bundle = undefined
      app.log.error({ err }, 'the dashboard front-end could not be bundled')
      throw unavailable('The dashboard could not be built; the server log says why.')
    })
    return bundle
  }

  const html = { content: { 'text/html': { schema: { type: 'string', description: 'The dashboard page (its data comes from /api/* with your key).' } } } }
  const asset = { content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } }

  app.get('/app', { config: { responses: { 200: html } } }, async (req, reply) => {
    const { shell } = await dashboard()
    // Always revalidated: it names the current assets.
    return sendFile(req, reply, shell, 'no-cache')
  })

  app.get('/app/assets/:name', { schema: { params: AssetParams }, config: { responses: { 200: asset } } }, async (req, reply) => {
    const { name } = req.params as { name: string }
    const file = (await dashboard()).assets.get(name)
    if (!file) throw notFound(`No dashboard file '${name}'.`)
    return sendFile(req, reply, file, 'public, max-age=31536000, immutable')
  })
}
