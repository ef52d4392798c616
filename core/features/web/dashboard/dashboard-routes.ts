// GET /app (the dashboard's page) and GET /app/assets/<name> (its script and
// style sheet). Both are public (`none`): the page holds no data; everything it
// shows comes from /api/* with the key the person typed, kept in
// sessionStorage and sent in the x-api-key header (never a cookie, so no
// cross-site request can carry it: CSRF is impossible by construction).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { notFound, unavailable } from '../../../errors.ts'
import { routeDefaults } from '../../../route-defaults.ts'
// The page's script and style are served with the same security headers as every HTML page
// (core/web/security-headers.ts: no inline code, connections to this origin only).
import { PAGE_SECURITY_HEADERS } from '../../../security-headers.ts'
import { sendAsset, type StaticAsset } from '../pages/static-assets.ts'
import { bundleDashboard, toolViews, type DashboardBundle } from './dashboard-bundle.ts'

const AssetParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 128 }) })

/** The page or one of its assets, with the page's security headers (its script and style sheet too). */
function sendFile (req: FastifyRequest, reply: FastifyReply, file: StaticAsset, cacheControl: string) {
  return sendAsset(req, reply.headers(PAGE_SECURITY_HEADERS), file, cacheControl)
}

export default async function dashboardRoutes (app: FastifyInstance): Promise<void> {
  routeDefaults(app, { tag: 'Dashboard', auth: 'none' })
  // The enabled tools' views, checked at boot (a clash of names stops it).
  const views = toolViews(app.services.registry.enabled())
  // Built on the first request, once per app; a failed build is retried by the next request.
  let bundle: Promise<DashboardBundle> | undefined
  const dashboard = async () => {
    bundle ??= bundleDashboard(views).catch((err: unknown) => {
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
