// /api/blog/*: publish and edit (admin key, or the older X-Blog-Key), read and
// list (no key; drafts for the admin key), generate (any user key, charged),
// and the generated featured images.
import { createReadStream } from 'node:fs'
import { routeDefaults } from '../../route-defaults.ts'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { requireAccount } from '../../auth/guards.ts'
import type { Principal } from '../../auth/principal.ts'
import { notFound, unauthorized } from '../../errors.ts'
import { EditBody, GenerateBody, GeneratedAnswer, ImageAnswer, ImageParams, ListAnswer, ListQuery, PostAnswer, PublishBody, ReadAnswer, SlugParams } from './schemas.ts'

/** Reads need no key, but a key that is sent must be valid (a mistyped admin key would silently hide drafts). */
function readerSeesDrafts (p: Principal): boolean {
  if (p.kind === 'bad') throw unauthorized()
  return p.kind === 'admin'
}

export default async function blogRoutes (fastify: FastifyInstance): Promise<void> {
  routeDefaults(fastify, { tag: 'Blog', auth: 'admin' })
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { blog } = app

  // The access class is enforced by the auth hook, before the body is read or
  // validated: a caller without the right key learns nothing about the body's
  // shape. Writes take the admin key, or the older X-Blog-Key (acceptsBlogKey).
  const writer = { auth: 'admin', acceptsBlogKey: true } as const
  // Reads are public, but refuse a bad key here, before the body (drafts depend on the key).
  const reader = async (req: FastifyRequest) => { readerSeesDrafts(req.principal) }

  app.post('/api/blog/post', { schema: { body: PublishBody }, config: { ...writer, responses: { 201: PostAnswer } } }, async (req, reply) => {
    const post = await blog.create(req.body, 'api')
    reply.code(201)
    return { status: 'success', post }
  })

  app.put('/api/blog/post/:slug', { schema: { params: SlugParams, body: EditBody }, config: { ...writer, responses: { 200: PostAnswer } } }, async (req) => {
    const post = await blog.update(req.params.slug, req.body)
    return { status: 'success', post }
  })

  app.get('/api/blog/list', { schema: { querystring: ListQuery }, onRequest: reader, config: { auth: 'none', responses: { 200: ListAnswer } } }, async (req) => {
    const includeDrafts = readerSeesDrafts(req.principal)
    const offset = req.query.offset ?? 0
    const { total, posts } = await blog.list({ limit: req.query.limit, offset, includeDrafts })
    return { count: posts.length, total, limit: req.query.limit ?? null, offset, posts }
  })

  // Registered before /api/blog/:slug reads it as a slug; names are random UUIDs the store gave out.
  app.get('/api/blog/images/:name', { schema: { params: ImageParams }, onRequest: reader, config: { auth: 'none', responses: { 200: ImageAnswer } } }, async (req, reply) => {
    const image = blog.images.find(req.params.name)
    if (!image) throw notFound(`No blog image named '${req.params.name}'.`)
    reply.header('content-type', image.contentType).header('cache-control', 'public, max-age=31536000, immutable')
    return reply.send(createReadStream(image.path))
  })

  app.get('/api/blog/:slug', { schema: { params: SlugParams }, onRequest: reader, config: { auth: 'none', responses: { 200: ReadAnswer } } }, async (req) => {
    const includeDrafts = readerSeesDrafts(req.principal)
    return { post: await blog.get(req.params.slug, includeDrafts) }
  })

  app.post('/api/blog/generate', { schema: { body: GenerateBody }, config: { auth: 'account', responses: { 201: GeneratedAnswer } } }, async (req, reply) => {
    const caller = requireAccount(req.principal, { scoped: true })
    const { post, image } = await blog.generate(caller, req.body.topic)
    reply.code(201)
    return { status: 'success', id: post.id, post, image }
  })
}
