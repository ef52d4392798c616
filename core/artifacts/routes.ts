// A job's files: the list, one file (Range, ETag, a safe Content-Disposition)
// and all of them as one streamed zip. The same keys and the same visibility
// rule as the job's rows (JobService.find: another account's job, or another
// tool's for a scoped token, is the same 404 as an unknown one).
import { once } from 'node:events'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requireAccount } from '../auth/guards.ts'
import { rangeNotSatisfiable } from '../errors.ts'
import { routeDefaults } from '../route-defaults.ts'
import { ArtifactParams, JobParams } from '../route-params.ts'
import { artifactUrl, type ArtifactRecord } from './artifact-service.ts'
import { parseRange } from './byte-range.ts'
import { attachmentDisposition, safeFileName } from './file-names.ts'

const ArtifactSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  content_type: Type.String(),
  size: Type.Integer({ description: 'Bytes.' }),
  sha256: Type.Union([Type.String(), Type.Null()]),
  url: Type.String({ description: 'Download path on this server (same key as the job).' }),
  created_at: Type.String({ format: 'date-time' }),
})

const ArtifactListSchema = Type.Object({
  job_id: Type.String(),
  count: Type.Integer(),
  files: Type.Array(ArtifactSchema),
  zip_url: Type.String({ description: 'All the files as one zip.' }),
})

const binary = (type: string) => ({ [type]: { schema: { type: 'string', format: 'binary' } } })

const etagOf = (a: ArtifactRecord) => `"${a.sha256 ? a.sha256.slice(0, 32) : `${a.id}-${a.size}`}"`

/** Zip entry names: unique (a second `frame.jpg` becomes `frame (2).jpg`), since tools may store one name twice. */
function uniqueNames (files: ArtifactRecord[]): string[] {
  const seen = new Set<string>()
  return files.map(f => {
    let name = f.name
    const dot = name.lastIndexOf('.')
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, '']
    for (let i = 2; seen.has(name.toLowerCase()); i++) name = `${stem} (${i})${ext}`
    seen.add(name.toLowerCase())
    return name
  })
}

export default async function artifactRoutes (fastify: FastifyInstance): Promise<void> {
  routeDefaults(fastify, { tag: 'Jobs', auth: 'account' })
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { jobs, artifacts } = app.services

  app.get('/api/tool-run/:id/artifacts', {
    schema: { params: JobParams, summary: 'The files a job stored (frames, covers, subtitles …)' },
    config: { auth: 'account', tag: 'Jobs', responses: { 200: ArtifactListSchema } },
  }, async (req) => {
    const caller = requireAccount(req.principal, { scoped: true })
    const { job, files } = await jobs.artifacts(caller, req.params.id)
    return {
      job_id: job.id,
      count: files.length,
      files: files.map(f => ({ id: f.id, name: f.name, content_type: f.contentType, size: f.size, sha256: f.sha256, url: artifactUrl(job.id, f.id), created_at: f.createdAt.toISOString() })),
      zip_url: `/api/tool-run/${job.id}/artifacts.zip`,
    }
  })

  app.get('/api/tool-run/:id/artifacts/:artifactId', {
    schema: { params: ArtifactParams, summary: 'One file of a job (Range requests supported)' },
    config: { auth: 'account', tag: 'Jobs', responses: { 200: { content: binary('application/octet-stream') }, 206: { content: binary('application/octet-stream') } } },
  }, async (req, reply) => {
    const caller = requireAccount(req.principal, { scoped: true })
    const file = await jobs.artifact(caller, req.params.id, req.params.artifactId)
    const etag = etagOf(file)
    reply
      .header('accept-ranges', 'bytes')
      .header('etag', etag)
      .header('content-type', file.contentType)
      .header('content-disposition', attachmentDisposition(file.name))
      // A stranger's file: never sniffed into HTML, never run as a page of this origin.
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'private, no-cache')
    if (req.headers['if-none-match'] === etag) return reply.code(304).send()
    const ifRange = req.headers['if-range']
    // If-Range with another validator: the file changed for the client, send it whole.
    const answer = ifRange !== undefined && ifRange !== etag ? { kind: 'whole' as const } : parseRange(req.headers.range, file.size)
    if (answer.kind === 'unsatisfiable') throw rangeNotSatisfiable(file.size)
    if (answer.kind === 'partial') {
      const { start, end } = answer.range
      reply.code(206).header('content-range', `bytes ${start}-${end}/${file.size}`).header('content-length', String(end - start + 1))
      return reply.send(await artifacts.open(file, answer.range))
    }
    reply.header('content-length', String(file.size))
    return reply.send(await artifacts.open(file))
  })

  app.get('/api/tool-run/:id/artifacts.zip', {
    schema: { params: JobParams, summary: "All of a job's files as one zip (streamed)" },
    config: { auth: 'account', tag: 'Jobs', responses: { 200: { content: binary('application/zip') } } },
  }, async (req, reply) => {
    const caller = requireAccount(req.principal, { scoped: true })
    const { job, files } = await jobs.artifacts(caller, req.params.id)
    // archiver (and its stream libraries) loads with the first zip, not with the app.
    const { ZipArchive } = await import('archiver')
    // Media is compressed already: the fastest deflate level keeps the CPU free for the API.
    const archive = new ZipArchive({ zlib: { level: 1 } })
    const names = uniqueNames(files)
    // One entry at a time: a job with hundreds of frames never holds hundreds of open files.
    void (async () => {
      for (const [i, f] of files.entries()) {
        archive.append(await artifacts.open(f), { name: names[i]!, date: f.createdAt })
        await once(archive, 'entry')
      }
      await archive.finalize()
    })().catch(err => {
      req.log.warn({ err, jobId: job.id }, 'job zip failed')
      archive.destroy(err as Error)
    })
    reply
      .header('content-type', 'application/zip')
      .header('content-disposition', attachmentDisposition(safeFileName(`${job.tool}-${job.id}-files.zip`)))
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'private, no-cache')
    return reply.send(archive)
  })
}
