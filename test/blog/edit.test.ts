// PUT /api/blog/post/<slug>: partial edits, publishing a draft, slug changes.
import t from 'tap'
import { build, BLOG_KEY } from '../helpers/build.ts'
import { admin, published } from './_blog.ts'

const put = (app: Awaited<ReturnType<typeof build>>, slug: string, payload: Record<string, unknown>, headers: Record<string, string> = admin) =>
  app.inject({ method: 'PUT', url: `/api/blog/post/${slug}`, headers, payload })

t.test('only the fields sent change; updated_at moves', async t => {
  const app = await build(t)
  const before = await published(app, { title: 'Original', content: '<p>a</p>', excerpt: 'e', category: 'Guides', seo_keywords: 'x, y', featured_image: 'https://cdn.example.com/1.png' })
  await new Promise(resolve => setTimeout(resolve, 5))
  const res = await put(app, 'original', { title: 'Renamed <i>title</i>', is_featured: true, meta_description: 'md', seo_keywords: ['z'] })
  t.equal(res.statusCode, 200)
  const post = res.json().post
  t.equal(res.json().status, 'success')
  t.match(post, { id: before.id, slug: 'original', title: 'Renamed title', content: '<p>a</p>', excerpt: 'e', category: 'Guides', is_featured: true, meta_description: 'md', seo_keywords: ['z'], featured_image: 'https://cdn.example.com/1.png', source: 'api', created_at: before.created_at, published_at: before.published_at })
  t.not(post.updated_at, before.updated_at)
})

t.test('every field can be edited, with the same cleaning as publish', async t => {
  const app = await build(t)
  await published(app, { title: 'All fields', content: 'x' })
  const res = await put(app, 'all-fields', {
    content: '<p onclick="x()">new</p><script>bad()</script>',
    excerpt: '<b>bold</b><img src=x onerror=alert(1)>',
    category: 'News',
    status: 'draft',
    is_featured: true,
    meta_description: '<em>meta</em>',
    seo_keywords: 'a,b',
    image_url: 'https://cdn.example.com/2.png',
  })
  t.equal(res.statusCode, 200)
  t.match(res.json().post, { content: '<p>new</p>', excerpt: '<b>bold</b>', category: 'News', status: 'draft', is_featured: true, meta_description: 'meta', seo_keywords: ['a', 'b'], featured_image: 'https://cdn.example.com/2.png', image_url: 'https://cdn.example.com/2.png' })
  const cleared = await put(app, 'all-fields', { featured_image: null, category: '' })
  t.match(cleared.json().post, { featured_image: null, image_url: null, category: 'Lead Generation' })
})

t.test('draft → published sets published_at once; unpublish and republish keep it', async t => {
  const app = await build(t)
  const draft = await published(app, { title: 'Soon', content: 'x', status: 'draft' })
  t.equal(draft.published_at, null)
  t.equal((await app.inject({ method: 'GET', url: '/api/blog/soon' })).statusCode, 404)
  const pub = await put(app, 'soon', { status: 'published' }, { 'x-blog-key': BLOG_KEY })
  t.equal(pub.statusCode, 200)
  const first = pub.json().post.published_at
  t.type(first, 'string')
  t.equal((await app.inject({ method: 'GET', url: '/api/blog/soon' })).statusCode, 200, 'now public')
  await new Promise(resolve => setTimeout(resolve, 5))
  t.equal((await put(app, 'soon', { status: 'draft' })).json().post.published_at, first)
  t.equal((await app.inject({ method: 'GET', url: '/api/blog/soon' })).statusCode, 404, 'unpublished again')
  t.equal((await put(app, 'soon', { status: 'published' })).json().post.published_at, first)
})

t.test('slug changes: free slug moves the post; taken or reserved is 409; same slug is fine', async t => {
  const app = await build(t)
  await published(app, { title: 'One', content: 'x' })
  await published(app, { title: 'Two', content: 'x' })
  let res = await put(app, 'one', { slug: 'two' })
  t.equal(res.statusCode, 409)
  t.type(res.json().detail, 'string')
  res = await put(app, 'one', { slug: 'list' })
  t.equal(res.statusCode, 409)
  res = await put(app, 'one', { slug: 'one' })
  t.equal(res.statusCode, 200, 'its own slug is not a conflict')
  res = await put(app, 'one', { slug: 'uno' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().post.slug, 'uno')
  t.equal((await app.inject({ method: 'GET', url: '/api/blog/one' })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: '/api/blog/uno' })).statusCode, 200)
})

t.test('a title change keeps the slug (URLs stay stable)', async t => {
  const app = await build(t)
  await published(app, { title: 'Stable', content: 'x' })
  t.equal((await put(app, 'stable', { title: 'Completely different' })).json().post.slug, 'stable')
})

t.test('refusals: unknown slug 404, empty body 400, invalid fields 400', async t => {
  const app = await build(t)
  await published(app, { title: 'Here', content: 'x' })
  let res = await put(app, 'nowhere', { title: 'x' })
  t.equal(res.statusCode, 404)
  t.type(res.json().detail, 'string')
  res = await put(app, 'here', {})
  t.equal(res.statusCode, 400)
  t.match(res.json().detail, /Nothing to update/)
  for (const body of [{ status: 'archived' }, { title: '' }, { content: '<script>x</script>' }, { slug: 'Bad Slug' }, { is_featured: 1 }, { featured_image: 'javascript:alert(1)' }]) {
    res = await put(app, 'here', body)
    t.equal(res.statusCode, 400, JSON.stringify(body))
    t.type(res.json().detail, 'string')
  }
})

t.test('a round trip: the post read back can be sent to PUT as is', async t => {
  const app = await build(t)
  await published(app, { title: 'Round trip', content: '<p>x</p>', seo_keywords: ['a'], featured_image: 'https://cdn.example.com/r.png' })
  const read = (await app.inject({ method: 'GET', url: '/api/blog/round-trip' })).json().post
  const res = await put(app, 'round-trip', { ...read, title: 'Round trip edited' })
  t.equal(res.statusCode, 200)
  t.match(res.json().post, { title: 'Round trip edited', content: '<p>x</p>', seo_keywords: ['a'], featured_image: 'https://cdn.example.com/r.png', source: 'api' })
})
