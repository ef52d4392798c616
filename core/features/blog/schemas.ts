// Request schemas of the blog endpoints (TypeBox: validation and types in one).
// Unknown fields are ignored, so a post read back from GET can be sent to PUT as is.
import { Type, type Static } from 'typebox'
import { Nullable } from '../../tools/contract.ts'
import { SLUG_MAX, SLUG_PATTERN } from './slug.ts'

const Text = (maxLength: number) => Type.String({ maxLength })
const Keywords = Type.Union([
  Type.String({ maxLength: 2000 }),
  Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 }),
])
const Slug = Type.String({ minLength: 1, maxLength: SLUG_MAX, pattern: SLUG_PATTERN })
const Status = Type.Enum(['draft', 'published'])
const ImageUrl = Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])

export const PublishBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 300 }),
  content: Type.String({ minLength: 1, maxLength: 500_000 }),
  slug: Type.Optional(Slug),
  excerpt: Type.Optional(Text(2000)),
  category: Type.Optional(Text(100)),
  status: Type.Optional(Status),
  is_featured: Type.Optional(Type.Boolean()),
  meta_description: Type.Optional(Text(500)),
  seo_keywords: Type.Optional(Keywords),
  featured_image: Type.Optional(ImageUrl),
  image_url: Type.Optional(ImageUrl),
})
export type PublishInput = Static<typeof PublishBody>

// Every publish field, all optional: an edit sends what changes.
export const EditBody = Type.Partial(PublishBody)
export type EditInput = Static<typeof EditBody>

export const GenerateBody = Type.Object({
  topic: Type.String({ minLength: 1, maxLength: 500 }),
})

/** The list answers every post unless the caller pages; a page holds at most this many. */
const LIST_LIMIT_MAX = 1000

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_LIMIT_MAX })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
})

/** Any string: a name the image store never gave out is simply not found. */
export const ImageParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) })

/** Any string: a slug that cannot exist is simply not found. */
export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) })

// ---------------------------------------------------------------- answers (OpenAPI)

/** A post as every endpoint answers it (PostView in blog-service.ts). */
const PostSchema = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  content: Type.String({ description: 'Sanitised HTML.' }),
  excerpt: Type.String(),
  category: Type.String(),
  status: Status,
  is_featured: Type.Boolean(),
  meta_description: Type.String(),
  seo_keywords: Type.Array(Type.String()),
  featured_image: Nullable(Type.String()),
  image_url: Nullable(Type.String()),
  source: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  published_at: Nullable(Type.String({ format: 'date-time' })),
})

export const PostAnswer = Type.Object({ status: Type.Literal('success'), post: PostSchema })

export const ReadAnswer = Type.Object({ post: PostSchema })

export const ListAnswer = Type.Object({
  count: Type.Integer(),
  total: Type.Integer(),
  limit: Nullable(Type.Integer()),
  offset: Type.Integer(),
  posts: Type.Array(Type.Omit(PostSchema, ['content'])),
})

export const GeneratedAnswer = Type.Object({
  status: Type.Literal('success'),
  id: Type.String(),
  post: PostSchema,
  image: Type.Object({
    status: Type.Union([Type.Literal('generated'), Type.Literal('failed'), Type.Literal('not_configured')]),
    detail: Nullable(Type.String()),
  }),
})

export const ImageAnswer = { content: { 'image/*': { schema: { type: 'string', format: 'binary' } } } }
