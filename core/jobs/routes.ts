// Job endpoints: tool-run start, status, results, exports, downloads, cancel,
// artifacts, the caller's job list, the map-scrape aliases (/api/scrape,
// /api/jobs/<id>) and the synchronous website e-mail finder.
import { createReadStream } from 'node:fs'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { requireAccount } from '../auth/guards.ts'
import { badRequest, timedOut } from '../errors.ts'
import { CONTENT_TYPES, EXPORT_FORMATS, exportStream, type ExportFormat } from '../exports/exporters.ts'
import type { WebhookSpec } from './webhooks.ts'
import { ArtifactParams, ExportParams, ExportQuery, JobParams, ListQuery, ResultsQuery, ScrapeBody, ToolRunBody, WebsiteEmailBody } from './schemas.ts'

/** The host of a website as given (a bare host or a URL), without www.; '' when it is not an address. */
function siteDomainOf (website: string): string {
  const trimmed = website.trim()
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`).hostname.replace(/^www\./, '')
  } catch {
    return ''
  }
}

const idempotencyKey = (headers: Record<string, unknown>) => {
  const v = headers['idempotency-key']
  return typeof v === 'string' ? v : undefined
}

/**
 * Every job start that honours Idempotency-Key says when it answered from an
 * earlier start: `Idempotent-Replayed: true` (and 200 instead of 202 where a
 * start is 202), so a client can tell a replay from a new job everywhere.
 */
function markReplay (reply: FastifyReply, replayed: boolean, freshStatus?: number): void {
  if (freshStatus !== undefined) reply.code(replayed ? 200 : freshStatus)
  if (replayed) reply.header('idempotent-replayed', 'true')
}

export default async function jobRoutes (fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { jobs, config } = app.services

  app.post('/api/tool-run', { schema: { body: ToolRunBody } }, async (req, reply) => {
    const caller = requireAccount(req.principal, { scoped: true })
    const { replayed, ...started } = await jobs.start({ caller, tool: req.body.tool, params: req.body.params ?? {}, idempotencyKey: idempotencyKey(req.headers), webhook: req.body.webhook as WebhookSpec | undefined })
    markReplay(reply, replayed, 202)
    return started
  })

  // The map-listing scrape, with the maps params at the top level.
  app.post('/api/scrape', { schema: { body: ScrapeBody } }, async (req, reply) => {
    const caller = requireAccount(req.principal, { scoped: true })
    const { webhook, ...params } = req.body
    if (!params.query && !params.prompt) throw badRequest('Send either query or prompt.')
    const { replayed, ...started } = await jobs.start({ caller, tool: 'maps', params, idempotencyKey: idempotencyKey(req.headers), webhook: webhook as WebhookSpec | undefined, resultsPath: 'jobs' })
    markReplay(reply, replayed, 202)
    return started
  })

  const statusHandler = async (req: FastifyRequest<{ Params: { id: string } }>) => {
    const caller = requireAccount(req.principal, { scoped: true })
    return jobs.status(caller, req.params.id)
  }
  app.get('/api/tool-run/:id/status', { schema: { params: JobParams } }, statusHandler)
  app.get('/api/jobs/:id', { schema: { params: JobParams } }, statusHandler)

  const resultsHandler = async (req: FastifyRequest<{ Params: { id: string }, Querystring: { offset?: number, limit?: number } }>) => {
    const caller = requireAccount(req.principal, { scoped: true })
    return jobs.results(caller, req.params.id, req.query.offset ?? 0, req.query.limit ?? 100)
  }
  app.get('/api/tool-run/:id/results', { schema: { params: JobParams, querystring: ResultsQuery } }, resultsHandler)
  app.get('/api/jobs/:id/results', { schema: { params: JobParams, querystring: ResultsQuery } }, resultsHandler)

  const sendExport = async (reply: FastifyReply, principal: FastifyRequest['principal'], id: string, format: string, fields: string | undefined) => {
    const caller = requireAccount(principal, { scoped: true })
    if (!EXPORT_FORMATS.includes(format as ExportFormat)) throw badRequest(`Unknown export format '${format}'; use one of ${EXPORT_FORMATS.join(', ')}.`)
    const job = await jobs.readable(caller, id)
    const all: string[] = job.columns ? JSON.parse(job.columns) : []
    const selected = fields !== undefined
    const columns = selected ? [...new Set(fields.split(',').map(f => f.trim()).filter(Boolean))] : all
    if (selected && columns.length === 0) throw badRequest('fields names no column.')
    reply
      .header('content-type', CONTENT_TYPES[format as ExportFormat])
      .header('content-disposition', `attachment; filename="${job.tool}-${job.id}.${format}"`)
    return reply.send(exportStream(format as ExportFormat, jobs.iterateRows(job.id), columns, selected))
  }

  app.get('/api/tool-run/:id/results.:fmt', { schema: { params: ExportParams, querystring: ExportQuery } }, (req, reply) =>
    sendExport(reply, req.principal, req.params.id, req.params.fmt, req.query.fields))
  app.get('/api/jobs/:id/results.:fmt', { schema: { params: ExportParams, querystring: ExportQuery } }, (req, reply) =>
    sendExport(reply, req.principal, req.params.id, req.params.fmt, req.query.fields))
  app.get('/api/download/:id/:fmt', { schema: { params: ExportParams, querystring: ExportQuery } }, (req, reply) =>
    sendExport(reply, req.principal, req.params.id, req.params.fmt, req.query.fields))

  app.delete('/api/tool-run/:id', { schema: { params: JobParams } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: true })
    return jobs.cancel(caller, req.params.id)
  })

  app.get('/api/tool-run/:id/artifacts/:artifactId', { schema: { params: ArtifactParams } }, async (req, reply) => {
    const caller = requireAccount(req.principal, { scoped: true })
    const artifact = await jobs.artifact(caller, req.params.id, req.params.artifactId)
    reply.header('content-type', artifact.contentType).header('content-disposition', `attachment; filename="${artifact.name}"`)
    return reply.send(createReadStream(artifact.path))
  })

  app.get('/api/jobs', { schema: { querystring: ListQuery } }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: true })
    return jobs.list(caller, req.query.limit ?? 50)
  })

  // Synchronous front of the `webemail` tool: waits for the job, else 408 with its id.
  // Done or failed, the answer is the Website e-mail result shape plus the job's
  // outcome fields, so a client reads one shape; a failed crawl's lists are empty.
  app.post('/api/website-email/find', { schema: { body: WebsiteEmailBody } }, async (req, reply) => {
    const caller = requireAccount(req.principal, { scoped: true })
    const started = await jobs.start({ caller, tool: 'webemail', params: req.body, idempotencyKey: idempotencyKey(req.headers) })
    markReplay(reply, started.replayed)
    const windowMs = config.syncWaitSeconds * 1000
    const final = await jobs.waitFor(caller, started.job_id, windowMs)
    if (!final) {
      throw timedOut(`The crawl did not finish within ${windowMs / 1000} s; it goes on as job ${started.job_id}: poll GET ${started.status_url}.`, { job_id: started.job_id, status_url: started.status_url, results_url: started.results_url })
    }
    const outcome = { job_id: started.job_id, status: final.status, error: final.error, blocked: final.blocked, refunded: final.refunded }
    const page = final.has_results ? await jobs.results(caller, started.job_id, 0, 1) : null
    const row = page?.results[0]
    if (row) return { ...row, ...outcome }
    const website = req.body.website
    return { website, domain: siteDomainOf(website), pages_scanned: 0, emails: [], phones: [], socials: [], results: [], count: 0, ...outcome }
  })
}
