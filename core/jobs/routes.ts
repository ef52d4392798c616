// Job endpoints: tool-run start, status, results, exports, downloads, cancel,
// artifacts and the caller's job list. /api/jobs/<id>… are generic job paths
// (any tool's job), where an alias declaring jobLinks 'jobs' points its answer;
// the aliases themselves are the plugins' (alias-routes.ts).
import { routeDefaults } from '../route-defaults.ts'
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Static } from 'typebox'
import { requireAccount } from '../auth/guards.ts'
import { badRequest } from '../errors.ts'
import { CONTENT_TYPES, EXPORT_FORMATS, explodeRows, exportStream, type ExportFormat } from '../exports/exporters.ts'
import type { WebhookSpec } from '../webhooks/webhook-deliveries.ts'
import { readMultipartStart } from './multipart-start.ts'
import { JobParams } from '../route-params.ts'
import { ExportParams, ExportQuery, JobInputSchema, ListQuery, JobListSchema, JobResultsSchema, JobStarted, JobStatusSchema, ResultsQuery, ToolRunBody } from './schemas.ts'

export const idempotencyKey = (headers: Record<string, unknown>) => {
  const v = headers['idempotency-key']
  return typeof v === 'string' ? v : undefined
}

/**
 * Every job start that honours Idempotency-Key says when it answered from an
 * earlier start: `Idempotent-Replayed: true` (and 200 instead of 202 where a
 * start is 202), so a client can tell a replay from a new job everywhere.
 */
export function markReplay (reply: FastifyReply, replayed: boolean, freshStatus?: number): void {
  if (freshStatus !== undefined) reply.code(replayed ? 200 : freshStatus)
  if (replayed) reply.header('idempotent-replayed', 'true')
}

export default async function jobRoutes (fastify: FastifyInstance): Promise<void> {
  routeDefaults(fastify, { tag: 'Jobs', auth: 'account' })
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { jobs, registry, workspace, uploadBudget } = app.services
  // What each kind of job route answers and who may call it (read by OpenAPI).
  const statusRoute = { auth: 'account', tag: 'Jobs', responses: { 200: JobStatusSchema } } as const
  const resultsRoute = { auth: 'account', tag: 'Jobs', responses: { 200: JobResultsSchema } } as const
  const exportRoute = {
    auth: 'account',
    tag: 'Jobs',
    // JSON is the rows as an array; the other formats are files.
    responses: { 200: { content: Object.fromEntries(Object.values(CONTENT_TYPES).map(type => [type, { schema: type === CONTENT_TYPES.json ? { type: 'array', items: { type: 'object', additionalProperties: true } } : { type: 'string', format: 'binary' } }])) } },
  } as const

  const toolRunForm = {
    type: 'object',
    required: ['tool'],
    properties: {
      tool: { type: 'string' },
      params: { type: 'string', description: 'The params as JSON text; the uploaded file stands in for the param the tool names (README, Files).' },
      webhook: { type: 'string', description: 'The webhook object as JSON text.' },
      file: { type: 'string', format: 'binary', description: "One file, for a tool that takes uploads, up to the tier's max_file_mb (413 past it) and within what is left of its max_pending_uploads_mb (413, or 429 when nothing is left)." },
    },
  }
  // The start is the one job route a file can come with: multipart (parsed by the
  // route itself, as it comes: the file is never buffered) and its per-request
  // hooks (three promises and a close listener a request) sit in a context of
  // their own, off the status poll and the other reads.
  await app.register(async (context) => {
    const startRoutes = context.withTypeProvider<TypeBoxTypeProvider>()
    await startRoutes.register(multipart, { throwFileSizeLimit: true })
    startRoutes.decorateRequest('incomingUpload', null)
    // A start refused by the body schema after its file arrived: the file goes with the answer (a no-op once adopted).
    startRoutes.addHook('onResponse', (req, _reply, done) => {
      if (!req.incomingUpload) return done()
      workspace.discard(req.incomingUpload).then(() => done(), done)
    })
    startRoutes.post('/api/tool-run', {
      schema: { body: ToolRunBody },
      config: { auth: 'account', responses: { 202: JobStarted }, tag: 'Jobs', formBody: toolRunForm },
      // A multipart start becomes the same body before validation, its file streamed to disk under the tier cap.
      preValidation: async (req) => {
        if (!req.isMultipart()) return
        const { body, upload } = await readMultipartStart(req, { registry, workspace, budget: uploadBudget })
        req.body = body as typeof req.body
        req.incomingUpload = upload
      },
    }, async (req, reply) => {
      const caller = requireAccount(req.principal, { scoped: true })
      const { replayed, ...started } = await jobs.start({ caller, tool: req.body.tool, params: req.body.params ?? {}, idempotencyKey: idempotencyKey(req.headers), webhook: req.body.webhook as WebhookSpec | undefined, upload: req.incomingUpload })
      markReplay(reply, replayed, 202)
      return started
    })
  })

  const statusHandler = async (req: FastifyRequest<{ Params: { id: string } }>) => {
    const caller = requireAccount(req.principal, { scoped: true })
    return jobs.status(caller, req.params.id)
  }
  app.get('/api/tool-run/:id/status', { schema: { params: JobParams }, config: statusRoute }, statusHandler)
  app.get('/api/jobs/:id', { schema: { params: JobParams }, config: statusRoute }, statusHandler)

  const resultsHandler = async (req: FastifyRequest<{ Params: { id: string }, Querystring: { offset?: number, limit?: number } }>) => {
    const caller = requireAccount(req.principal, { scoped: true })
    return jobs.results(caller, req.params.id, req.query.offset ?? 0, req.query.limit ?? 100)
  }
  app.get('/api/tool-run/:id/results', { schema: { params: JobParams, querystring: ResultsQuery }, config: resultsRoute }, resultsHandler)
  app.get('/api/jobs/:id/results', { schema: { params: JobParams, querystring: ResultsQuery }, config: resultsRoute }, resultsHandler)

  const sendExport = async (reply: FastifyReply, principal: FastifyRequest['principal'], id: string, format: string, { fields, explode }: Static<typeof ExportQuery>) => {
    const caller = requireAccount(principal, { scoped: true })
    if (!EXPORT_FORMATS.includes(format as ExportFormat)) throw badRequest(`Unknown export format '${format}'; use one of ${EXPORT_FORMATS.join(', ')}.`)
    const job = await jobs.readable(caller, id)
    const all: string[] = job.columns ? JSON.parse(job.columns) : []
    const selected = fields !== undefined
    const columns = selected ? [...new Set(fields.split(',').map(f => f.trim()).filter(Boolean))] : all
    if (selected && columns.length === 0) throw badRequest('fields names no column.')
    if (explode !== undefined && !all.includes(explode)) throw badRequest(`explode names no column of this job's rows: '${explode}'; its columns are ${all.join(', ') || 'none yet'}.`)
    reply
      .header('content-type', CONTENT_TYPES[format as ExportFormat])
      .header('content-disposition', `attachment; filename="${job.tool}-${job.id}.${format}"`)
    const rows = jobs.iterateRows(job.id)
    return reply.send(exportStream(format as ExportFormat, explode === undefined ? rows : explodeRows(rows, explode), columns, selected))
  }

  app.get('/api/tool-run/:id/results.:fmt', { schema: { params: ExportParams, querystring: ExportQuery }, config: exportRoute }, (req, reply) =>
    sendExport(reply, req.principal, req.params.id, req.params.fmt, req.query))
  app.get('/api/jobs/:id/results.:fmt', { schema: { params: ExportParams, querystring: ExportQuery }, config: exportRoute }, (req, reply) =>
    sendExport(reply, req.principal, req.params.id, req.params.fmt, req.query))
  app.get('/api/download/:id/:fmt', { schema: { params: ExportParams, querystring: ExportQuery }, config: exportRoute }, (req, reply) =>
    sendExport(reply, req.principal, req.params.id, req.params.fmt, req.query))

  app.delete('/api/tool-run/:id', { schema: { params: JobParams }, config: statusRoute }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: true })
    return jobs.cancel(caller, req.params.id)
  })

  // What the job was started with (defaults filled, clamped): the dashboard's "run again".
  app.get('/api/jobs/:id/input', { schema: { params: JobParams }, config: { auth: 'account', tag: 'Jobs', responses: { 200: JobInputSchema } } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: true })
    const job = await jobs.find(caller, req.params.id)
    return { job_id: job.id, tool: job.tool, params: JSON.parse(job.input) as Record<string, unknown>, upload: job.upload !== null }
  })

  app.get('/api/jobs', { schema: { querystring: ListQuery }, config: { auth: 'account', tag: 'Jobs', responses: { 200: JobListSchema } } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: true })
    return jobs.list(caller, req.query.limit ?? 50)
  })
}
