// Monitor endpoints: create, list, read, change, delete, pause, resume, run
// now, and each run's changes (JSON and the export formats). Every route acts
// for an account (`account`: a scoped token reaches only the monitors of its
// tools, others read as unknown).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { routeDefaults } from '../route-defaults.ts'
import { requireAccount } from '../auth/guards.ts'
import { badRequest } from '../errors.ts'
import { CONTENT_TYPES, EXPORT_FORMATS, exportStream, type ExportFormat } from '../exports/exporters.ts'
import type { WebhookSpec } from '../webhooks/webhook-deliveries.ts'
import type { MonitorInput } from './monitor-service.ts'
import { ChangesExportQuery, ChangesQuery, MonitorBody, MonitorChangesSchema, MonitorDeleted, MonitorDetail, MonitorExportParams, MonitorList, MonitorParams, MonitorPatch, MonitorRunStarted, MonitorView } from './schemas.ts'

const EXPORT_COLUMNS = ['change', 'key', 'before', 'after', 'occurrence']

export default async function monitorRoutes (fastify: FastifyInstance): Promise<void> {
  routeDefaults(fastify, { tag: 'Monitors', auth: 'account' })
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { monitors } = app.services
  const caller = (req: { principal: Parameters<typeof requireAccount>[0] }) => requireAccount(req.principal, { scoped: true })
  const view = { auth: 'account', responses: { 200: MonitorView } } as const

  app.post('/api/monitors', { schema: { body: MonitorBody }, config: { auth: 'account', responses: { 201: MonitorView } } }, async (req, reply) => {
    const created = await monitors.create(caller(req), req.body as MonitorInput)
    reply.code(201)
    return created
  })
  app.get('/api/monitors', { config: { auth: 'account', responses: { 200: MonitorList } } }, async (req) => monitors.list(caller(req)))
  app.get('/api/monitors/:id', { schema: { params: MonitorParams }, config: { auth: 'account', responses: { 200: MonitorDetail } } }, async (req) => monitors.get(caller(req), req.params.id))
  app.patch('/api/monitors/:id', { schema: { params: MonitorParams, body: MonitorPatch }, config: view }, async (req) => {
    const { webhook, ...rest } = req.body
    return monitors.update(caller(req), req.params.id, { ...rest, ...(webhook !== undefined ? { webhook: (webhook ?? undefined) as WebhookSpec | undefined } : {}) } as Partial<MonitorInput>)
  })
  app.delete('/api/monitors/:id', { schema: { params: MonitorParams }, config: { auth: 'account', responses: { 200: MonitorDeleted } } }, async (req) => monitors.remove(caller(req), req.params.id))
  app.post('/api/monitors/:id/pause', { schema: { params: MonitorParams }, config: view }, async (req) => monitors.pause(caller(req), req.params.id))
  app.post('/api/monitors/:id/resume', { schema: { params: MonitorParams }, config: view }, async (req) => monitors.resume(caller(req), req.params.id))
  app.post('/api/monitors/:id/run', { schema: { params: MonitorParams }, config: { auth: 'account', responses: { 202: MonitorRunStarted } } }, async (req, reply) => {
    const started = await monitors.runNow(caller(req), req.params.id)
    reply.code(202)
    return started
  })
  app.get('/api/monitors/:id/changes', { schema: { params: MonitorParams, querystring: ChangesQuery }, config: { auth: 'account', responses: { 200: MonitorChangesSchema } } }, async (req) =>
    monitors.changes(caller(req), req.params.id, req.query.run, req.query.limit ?? 100))

  const exportRoute = {
    auth: 'account',
    responses: { 200: { content: Object.fromEntries(Object.values(CONTENT_TYPES).map(type => [type, { schema: { type: 'string', format: 'binary' } }])) } },
  } as const
  app.get('/api/monitors/:id/changes.:fmt', { schema: { params: MonitorExportParams, querystring: ChangesExportQuery }, config: exportRoute }, async (req, reply) => {
    const format = req.params.fmt
    if (!EXPORT_FORMATS.includes(format as ExportFormat)) throw badRequest(`Unknown export format '${format}'; use one of ${EXPORT_FORMATS.join(', ')}.`)
    const rows = monitors.exportChanges(caller(req), req.params.id, req.query.run)
    // The first read checks the monitor and the run (404 before any byte is sent).
    const first = await rows.next()
    async function * all () {
      if (!first.done) yield first.value
      yield * rows
    }
    reply
      .header('content-type', CONTENT_TYPES[format as ExportFormat])
      .header('content-disposition', `attachment; filename="monitor-${req.params.id}-changes.${format}"`)
    return reply.send(exportStream(format as ExportFormat, all(), EXPORT_COLUMNS, false))
  })
}
