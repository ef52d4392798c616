// Blog posts: publish, edit, read, list, and generate with a language model.
// Every text field is cleaned here, on the way in, so what is stored is what
// every reader may safely get.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../../clock.ts'
import type { AppConfig } from '../../config.ts'
import type { Db } from '../../db/database.ts'
import { AppError, badRequest, conflict, notFound, unavailable } from '../../errors.ts'
import type { Logger } from '../../logger.ts'
import type { AccountCaller } from '../../auth/guards.ts'
import type { QuotaService } from '../../quotas/quota-service.ts'
import { ArticleWriter, ModelUnavailable, type GeneratedArticle } from './article-writer.ts'
import { ImageMaker, ImageUnavailable, imagePrompt } from './image-maker.ts'
import { BlogImageStore, isStoredImagePath } from './image-store.ts'
import type * as Sanitize from './sanitize.ts'
import { baseSlug, firstFreeSlug, RESERVED_SLUGS, SLUG_MAX } from './slug.ts'
import type { EditInput, PublishInput } from './schemas.ts'

const DEFAULT_CATEGORY = 'Lead Generation'
type PostStatus = 'draft' | 'published'
export type PostSource = 'api' | 'generated'

export interface PostView {
  id: string
  slug: string
  title: string
  content: string
  excerpt: string
  category: string
  status: PostStatus
  is_featured: boolean
  meta_description: string
  seo_keywords: string[]
  featured_image: string | null
  image_url: string | null
  source: string
  created_at: string
  updated_at: string
  published_at: string | null
}
export type PostListItem = Omit<PostView, 'content'>

interface PostRow {
  id: string
  slug: string
  title: string
  content?: string
  excerpt: string
  category: string
  status: string
  isFeatured: boolean
  metaDescription: string
  seoKeywords: string
  featuredImage: string | null
  source: string
  createdAt: Date
  updatedAt: Date
  publishedAt: Date | null
}

/** What became of a generated post's featured image (the post is stored either way). */
export interface FeaturedImageOutcome {
  status: 'generated' | 'failed' | 'not_configured'
  detail: string | null
}

const MAX_KEYWORDS = 50
const MAX_KEYWORD_LENGTH = 100
/** Attempts at a derived slug when a concurrent insert takes the same one. */
const SLUG_ATTEMPTS = 5

/**
 * The HTML cleaners, loaded with the first write: sanitize-html brings postcss
 * and an HTML parser (some 70 modules), which a server that never writes a post
 * should not carry.
 */
type Cleaners = typeof Sanitize
const loadCleaners = (): Promise<Cleaners> => import('./sanitize.ts')

const isUniqueViolation = (err: unknown) => (err as { code?: string } | null)?.code === 'P2002'
const isMissingRecord = (err: unknown) => (err as { code?: string } | null)?.code === 'P2025'

function parseKeywords ({ plainText }: Cleaners, raw: string | string[] | undefined): string[] {
  if (raw === undefined) return []
  const parts = typeof raw === 'string' ? raw.split(',') : raw
  const seen = new Set<string>()
  const out: string[] = []
  for (const part of parts) {
    const keyword = plainText(part).slice(0, MAX_KEYWORD_LENGTH).trim()
    const key = keyword.toLowerCase()
    if (!keyword || seen.has(key)) continue
    seen.add(key)
    out.push(keyword)
    if (out.length === MAX_KEYWORDS) break
  }
  return out
}

function parseStoredKeywords (stored: string): string[] {
  try {
    const value: unknown = JSON.parse(stored)
    return Array.isArray(value) ? value.filter((k): k is string => typeof k === 'string') : []
  } catch {
    return []
  }
}

/** featured_image and its alias image_url: one absolute http(s) URL (or an image this server stored), or null to clear. */
function resolveImage (input: { featured_image?: string | null, image_url?: string | null }): string | null | undefined {
  const norm = (v: string | null | undefined) => (v === undefined ? undefined : v === null || v.trim() === '' ? null : v.trim())
  const a = norm(input.featured_image)
  const b = norm(input.image_url)
  if (a !== undefined && b !== undefined && a !== b) throw badRequest('featured_image and image_url are the same field; send one, or the same value in both.')
  const url = a !== undefined ? a : b
  if (url === undefined || url === null) return url
  if (isStoredImagePath(url)) return url
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw badRequest('featured_image must be an absolute http(s) URL.')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw badRequest('featured_image must be an absolute http(s) URL.')
  return parsed.toString()
}

function cleanTitle ({ plainText }: Cleaners, raw: string): string {
  const title = plainText(raw)
  if (!title) throw badRequest('title is empty once markup is removed.')
  return title
}

function cleanContent ({ sanitizeArticle }: Cleaners, raw: string): string {
  const content = sanitizeArticle(raw)
  if (!content) throw badRequest('content is empty once unsafe markup is removed.')
  return content
}

export class BlogService {
  readonly writer: ArticleWriter
  readonly imageMaker: ImageMaker
  readonly images: BlogImageStore

  constructor (
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly quotas: QuotaService,
    private readonly logger: Logger,
    config: Pick<AppConfig, 'llm' | 'dataDir'>,
  ) {
    this.writer = new ArticleWriter(config.llm, config.llm.timeoutMs)
    this.imageMaker = new ImageMaker(config.llm, config.llm.timeoutMs)
    this.images = new BlogImageStore(config.dataDir)
  }

  view (row: PostRow & { content: string }): PostView {
    const { id, slug, title, ...rest } = this.listItem(row)
    return { id, slug, title, content: row.content, ...rest }
  }

  listItem (row: PostRow): PostListItem {
    return {
      id: row.id,
      slug: row.slug,
      title: row.title,
      excerpt: row.excerpt,
      category: row.category,
      status: row.status as PostStatus,
      is_featured: row.isFeatured,
      meta_description: row.metaDescription,
      seo_keywords: parseStoredKeywords(row.seoKeywords),
      featured_image: row.featuredImage,
      image_url: row.featuredImage,
      ...this.tail(row),
    }
  }

  private tail (row: PostRow) {
    return {
      source: row.source,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
      published_at: row.publishedAt ? row.publishedAt.toISOString() : null,
    }
  }

  private async slugTaken (slug: string): Promise<boolean> {
    return RESERVED_SLUGS.has(slug) || (await this.db.blogPost.count({ where: { slug } })) > 0
  }

  private async freeSlugFor (title: string): Promise<string> {
    const base = baseSlug(title)
    // Suffixed candidates may shorten a long base, so look a little wider than the base itself.
    const prefix = base.slice(0, SLUG_MAX - 8)
    const rows = await this.db.blogPost.findMany({ where: { slug: { startsWith: prefix } }, select: { slug: true } })
    return firstFreeSlug(base, rows.map(r => r.slug))
  }

  /** POST /api/blog/post (source api) and generation (source generated). Status defaults to published. */
  async create (input: PublishInput, source: PostSource = 'api'): Promise<PostView> {
    const clean = await loadCleaners()
    const { plainText, sanitizeInline } = clean
    const title = cleanTitle(clean, input.title)
    const content = cleanContent(clean, input.content)
    const image = resolveImage(input)
    const status: PostStatus = input.status ?? 'published'
    const now = this.clock()
    const data = {
      title,
      content,
      excerpt: input.excerpt === undefined ? '' : sanitizeInline(input.excerpt),
      category: (input.category === undefined ? '' : plainText(input.category)) || DEFAULT_CATEGORY,
      status,
      isFeatured: input.is_featured ?? false,
      metaDescription: input.meta_description === undefined ? '' : plainText(input.meta_description),
      seoKeywords: JSON.stringify(parseKeywords(clean, input.seo_keywords)),
      featuredImage: image ?? null,
      source,
      createdAt: now,
      updatedAt: now,
      publishedAt: status === 'published' ? now : null,
    }
    if (input.slug !== undefined) {
      if (await this.slugTaken(input.slug)) throw this.slugConflict(input.slug)
      try {
        return this.view(await this.db.blogPost.create({ data: { id: randomUUID(), slug: input.slug, ...data } }))
      } catch (err) {
        if (isUniqueViolation(err)) throw this.slugConflict(input.slug)
        throw err
      }
    }
    for (let attempt = 1; ; attempt++) {
      const slug = await this.freeSlugFor(title)
      try {
        return this.view(await this.db.blogPost.create({ data: { id: randomUUID(), slug, ...data } }))
      } catch (err) {
        // Another post took the slug between the look-up and the insert: look again.
        if (!isUniqueViolation(err) || attempt >= SLUG_ATTEMPTS) throw err
      }
    }
  }

  private slugConflict (slug: string): AppError {
    return RESERVED_SLUGS.has(slug)
      ? conflict(`The slug '${slug}' is reserved by the blog API; choose another.`)
      : conflict(`A post with the slug '${slug}' already exists; choose another slug or edit it with PUT /api/blog/post/${slug}.`)
  }

  /** PUT /api/blog/post/<slug>: only the fields sent change. */
  async update (slug: string, input: EditInput): Promise<PostView> {
    const existing = await this.db.blogPost.findUnique({ where: { slug } })
    if (!existing) throw notFound(`No blog post with the slug '${slug}'.`)
    const clean = await loadCleaners()
    const { plainText, sanitizeInline } = clean
    const data: Record<string, unknown> = {}
    if (input.title !== undefined) data.title = cleanTitle(clean, input.title)
    if (input.content !== undefined) data.content = cleanContent(clean, input.content)
    if (input.excerpt !== undefined) data.excerpt = sanitizeInline(input.excerpt)
    if (input.category !== undefined) data.category = plainText(input.category) || DEFAULT_CATEGORY
    if (input.is_featured !== undefined) data.isFeatured = input.is_featured
    if (input.meta_description !== undefined) data.metaDescription = plainText(input.meta_description)
    if (input.seo_keywords !== undefined) data.seoKeywords = JSON.stringify(parseKeywords(clean, input.seo_keywords))
    const image = resolveImage(input)
    if (image !== undefined) data.featuredImage = image
    const now = this.clock()
    if (input.status !== undefined) {
      data.status = input.status
      // published_at records the first publication; unpublishing and republishing keep it.
      if (input.status === 'published' && !existing.publishedAt) data.publishedAt = now
    }
    const newSlug = input.slug !== undefined && input.slug !== existing.slug ? input.slug : undefined
    if (newSlug !== undefined) {
      if (await this.slugTaken(newSlug)) throw this.slugConflict(newSlug)
      data.slug = newSlug
    }
    if (Object.keys(data).length === 0 && input.slug === undefined) {
      throw badRequest('Nothing to update: send at least one field (title, content, slug, excerpt, category, status, is_featured, meta_description, seo_keywords, featured_image).')
    }
    data.updatedAt = now
    try {
      return this.view(await this.db.blogPost.update({ where: { id: existing.id }, data }))
    } catch (err) {
      if (isUniqueViolation(err) && newSlug !== undefined) throw this.slugConflict(newSlug)
      if (isMissingRecord(err)) throw notFound(`No blog post with the slug '${slug}'.`)
      throw err
    }
  }

  /** One post; a draft only when `includeDrafts` (the admin key), else it does not exist. */
  async get (slug: string, includeDrafts: boolean): Promise<PostView> {
    const row = await this.db.blogPost.findUnique({ where: { slug } })
    if (!row || (row.status !== 'published' && !includeDrafts)) throw notFound(`No blog post with the slug '${slug}'.`)
    return this.view(row)
  }

  /**
   * Every post (the spec's "all blog posts"), featured ones pinned first, then
   * newest first (by created_at); `limit`/`offset` page when given. List items
   * leave out `content`.
   */
  async list (options: { limit?: number, offset?: number, includeDrafts: boolean }): Promise<{ total: number, posts: PostListItem[] }> {
    const where = options.includeDrafts ? {} : { status: 'published' }
    const [total, rows] = await Promise.all([
      this.db.blogPost.count({ where }),
      this.db.blogPost.findMany({
        where,
        omit: { content: true },
        orderBy: [{ isFeatured: 'desc' }, { createdAt: 'desc' }, { id: 'desc' }],
        ...(options.limit !== undefined ? { take: options.limit } : {}),
        skip: options.offset ?? 0,
      }),
    ])
    return { total, posts: rows.map(r => this.listItem(r)) }
  }

  /**
   * POST /api/blog/generate: charged as one call, refunded when no article is
   * stored. The article is stored as a draft with source `generated`; with an
   * image model configured it gets a featured image, and an image that fails
   * leaves the post without one (the outcome says why) rather than failing it.
   */
  async generate (caller: AccountCaller, topic: string): Promise<{ post: PostView, image: FeaturedImageOutcome }> {
    if (!this.writer.configured) throw unavailable('Article generation is not available: no language model is configured on this server (LLM_BASE_URL, LLM_MODEL).')
    const charge = await this.quotas.charge(caller.account.id, caller.tier)
    try {
      const article = await this.writer.write(topic)
      const clean = await loadCleaners()
      const draft = this.asDraft(clean, article)
      // Clean before the slow image call: an article that cleans to nothing fails here, with no image made.
      cleanTitle(clean, draft.title)
      cleanContent(clean, draft.content)
      const image = await this.featuredImage(clean, draft)
      const post = await this.create({ ...draft, featured_image: image.path }, 'generated')
      return { post, image: image.outcome }
    } catch (err) {
      try {
        await this.quotas.refund(charge)
      } catch (refundErr) {
        this.logger.error({ err: refundErr, accountId: caller.account.id }, 'blog generate: refund failed')
      }
      if (err instanceof ModelUnavailable) {
        this.logger.warn({ reason: err.reason, message: err.message }, 'blog generate: model unavailable')
        throw unavailable(`${err.message} Nothing was charged; retry later.`)
      }
      // The model wrote something that cleans down to nothing (e.g. only a script).
      if (err instanceof AppError && err.statusCode === 400) {
        this.logger.warn({ detail: err.detail }, 'blog generate: unusable article')
        throw unavailable("The model's answer could not be used as an article. Nothing was charged; retry later.")
      }
      throw err
    }
  }

  /** The featured image of a generated article, stored; never throws: a failure is an outcome. */
  private async featuredImage ({ plainText }: Cleaners, draft: PublishInput): Promise<{ path: string | null, outcome: FeaturedImageOutcome }> {
    if (!this.imageMaker.configured) return { path: null, outcome: { status: 'not_configured', detail: 'No image model is configured on this server (LLM_IMAGE_MODEL); the post has no featured image.' } }
    try {
      const image = await this.imageMaker.make(imagePrompt(plainText(draft.title), plainText(draft.excerpt ?? '')))
      return { path: await this.images.save(image), outcome: { status: 'generated', detail: null } }
    } catch (err) {
      const why = err instanceof ImageUnavailable ? err.message : 'the image could not be stored'
      this.logger.warn({ err, reason: why }, 'blog generate: featured image failed')
      return { path: null, outcome: { status: 'failed', detail: `The featured image could not be generated (${why}); the article was stored without one. Set one with PUT /api/blog/post/<slug>.` } }
    }
  }

  /** A model's article fitted to the publish limits: long fields are cut, not refused. */
  private asDraft ({ plainText }: Cleaners, article: GeneratedArticle): PublishInput {
    return {
      title: plainText(article.title).slice(0, 300),
      content: article.content.slice(0, 500_000),
      excerpt: article.excerpt.slice(0, 2000),
      meta_description: plainText(article.meta_description).slice(0, 500),
      seo_keywords: article.seo_keywords,
      status: 'draft',
    }
  }
}
