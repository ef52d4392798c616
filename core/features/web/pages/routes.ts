// The public pages: `/`, `/blog`, `/blog/<slug>` and their stylesheets under
// `/assets/`. Every route is `auth: 'none'` (keys are not needed, and not
// refused: a page is the same for everyone) and `webPage: true` (left out of
// the OpenAPI document; a browser gets its errors as an HTML page). The
// security headers come from core/security-headers.ts, for every
// text/html answer, so nothing here sets them.
import { promisify } from 'node:util'
import { brotliCompress, constants as zlib, gzip } from 'node:zlib'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { isSlug } from '../../blog/slug.ts'
import { notFound } from '../../../errors.ts'
import type * as BlogPages from './blog-pages.ts'
import { homePage } from './home-page.ts'
import { chooseCoding, sendAsset } from './static-assets.ts'
import type { PublicPages } from './public-pages.ts'

const HTML = { content: { 'text/html': { schema: { type: 'string', description: 'An HTML page.' } } } }
const CSS = { content: { 'text/css': { schema: { type: 'string' } } } }
const ErrorBody = Type.Object({ detail: Type.String() })

const BlogIndexQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Page of the list, 10 posts a page.' })),
})
const SlugParams = Type.Object({ slug: Type.String({ maxLength: 200 }) })
const AssetParams = Type.Object({ name: Type.String({ maxLength: 100 }) })
const AssetQuery = Type.Object({ v: Type.Optional(Type.String({ maxLength: 64, description: 'The version the pages link to; a current one makes the answer immutable.' })) })

const YEAR_SECONDS = 365 * 24 * 3600
/** Below this a page goes as it is: compressing would save less than a packet. */
const COMPRESS_FROM_BYTES = 1024

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/**
 * A rendered page, compressed as the client accepts (a slow phone line is the
 * bottleneck, not the CPU). zlib's async calls run on libuv's thread pool, off
 * the event loop; brotli at quality 5 keeps a 500 KB article in milliseconds.
 */
async function sendPage (req: FastifyRequest, reply: FastifyReply, page: string): Promise<Buffer> {
  reply.type('text/html; charset=utf-8').header('vary', 'accept-encoding')
  const body = Buffer.from(page, 'utf8')
  const coding = body.length < COMPRESS_FROM_BYTES ? 'identity' : chooseCoding(req.headers['accept-encoding'])
  if (coding === 'identity') return body
  reply.header('content-encoding', coding)
  return coding === 'br'
    ? brotli(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipAsync(body, { level: 6 })
}

export default async function publicPageRoutes (fastify: FastifyInstance, { pages }: { pages: PublicPages }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const { registry, config } = app.services
  const { blog } = app
  const page = { auth: 'none', webPage: true } as const

  /**
   * The origin canonical and Open Graph URLs are built on: PUBLIC_URL when the
   * operator set it, else what this request was addressed to (the Host header,
   * which the host guard checks on a loopback listener or with ALLOWED_HOSTS).
   */
  const originOf = (req: FastifyRequest) => config.publicUrl ?? `${req.protocol}://${req.host}`
  // The blog pages load with the first one asked for: they bring the HTML sanitizer
  // (sanitize-html, postcss: some 70 modules), which a server nobody reads the blog of never needs.
  const blogPages = (): Promise<typeof BlogPages> => import('./blog-pages.ts')

  app.get('/', { config: { ...page, responses: { 200: HTML } } }, async (req, reply) => {
    const tools = registry.enabled().map(t => ({ key: t.declaration.key, title: t.declaration.title, description: t.declaration.description }))
    const { head, body } = homePage(tools, originOf(req))
    return sendPage(req, reply, pages.render(head, body))
  })

  app.get('/blog', { schema: { querystring: BlogIndexQuery }, config: { ...page, responses: { 200: HTML, 400: HTML, 404: HTML } } }, async (req, reply) => {
    const number = req.query.page ?? 1
    const { blogIndexPage, POSTS_PER_PAGE } = await blogPages()
    const { total, posts } = await blog.list({ limit: POSTS_PER_PAGE, offset: (number - 1) * POSTS_PER_PAGE, includeDrafts: false })
    // Page 1 always exists ("No posts yet"); a page past the last does not.
    if (number > 1 && posts.length === 0) throw notFound(`The blog has no page ${number}.`)
    const { head, body } = blogIndexPage(posts, number, total, originOf(req))
    return sendPage(req, reply, pages.render(head, body))
  })

  app.get('/blog/:slug', { schema: { params: SlugParams }, config: { ...page, responses: { 200: HTML, 404: HTML } } }, async (req, reply) => {
    const { slug } = req.params
    // Drafts are not public: the page never shows one, whatever key is sent.
    if (!isSlug(slug)) throw notFound(`No blog post with the slug '${slug}'.`)
    const post = await blog.get(slug, false)
    const { blogPostPage } = await blogPages()
    const { head, body } = blogPostPage(post, originOf(req))
    return sendPage(req, reply, pages.render(head, body))
  })

  app.get('/assets/:name', { schema: { params: AssetParams, querystring: AssetQuery }, config: { ...page, responses: { 200: CSS, 304: { content: { 'text/css': { schema: { type: 'string', description: 'Not modified: the copy named by If-None-Match is current.' } } } }, 404: ErrorBody } } }, async (req, reply) => {
    const asset = pages.assets.get(req.params.name)
    if (!asset) throw notFound(`No asset named '${req.params.name}'.`)
    // The versioned URL the pages link to never changes content: cache it for a year. Any other: revalidate with the ETag.
    return sendAsset(req, reply, asset, req.query.v === asset.version ? `public, max-age=${YEAR_SECONDS}, immutable` : 'public, no-cache')
  })
}
