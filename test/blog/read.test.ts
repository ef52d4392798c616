// GET /api/blog/list and GET /api/blog/<slug>: order, paging, draft visibility.
import t from 'tap'
import { build, PUBLIC_TOKEN } from '../helpers/build.ts'
import { manualClock } from '../../core/clock.ts'
import { admin, published } from './_blog.ts'

t.test('list: newest first, published only, without content', async t => {
  const clock = manualClock('2025-03-01T10:00:00Z')
  const app = await build(t, { clock })
  for (const title of ['Oldest', 'Middle', 'Newest']) {
    await published(app, { title, content: '<p>body</p>' })
    clock.advance(60_000)
  }
  await published(app, { title: 'Unfinished', content: 'x', status: 'draft' })
  const res = await app.inject({ method: 'GET', url: '/api/blog/list' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.match(body, { count: 3, total: 3, limit: null, offset: 0 })
  t.same(body.posts.map((p: { slug: string }) => p.slug), ['newest', 'middle', 'oldest'])
  t.notOk('content' in body.posts[0], 'list items leave content out')
  t.match(body.posts[0], { title: 'Newest', status: 'published', seo_keywords: [], image_url: null })
})

t.test('list: the admin key also sees drafts; other keys do not', async t => {
  const app = await build(t)
  await published(app, { title: 'Public', content: 'x' })
  await published(app, { title: 'Draft', content: 'x', status: 'draft' })
  const asAdmin = (await app.inject({ method: 'GET', url: '/api/blog/list', headers: admin })).json()
  t.equal(asAdmin.total, 2)
  t.same(asAdmin.posts.map((p: { status: string }) => p.status).sort(), ['draft', 'published'])
  const asGuest = (await app.inject({ method: 'GET', url: '/api/blog/list', headers: { 'x-api-key': PUBLIC_TOKEN } })).json()
  t.equal(asGuest.total, 1)
  t.equal(asGuest.posts[0].slug, 'public')
})

t.test('list: limit and offset page through; out-of-range values are 400', async t => {
  const clock = manualClock('2025-03-01T10:00:00Z')
  const app = await build(t, { clock })
  for (let i = 1; i <= 5; i++) {
    await published(app, { title: `Post ${i}`, content: 'x' })
    clock.advance(1000)
  }
  const page = async (q: string) => (await app.inject({ method: 'GET', url: `/api/blog/list?${q}` })).json()
  let body = await page('limit=2')
  t.match(body, { count: 2, total: 5, limit: 2, offset: 0 })
  t.same(body.posts.map((p: { slug: string }) => p.slug), ['post-5', 'post-4'])
  body = await page('limit=2&offset=4')
  t.match(body, { count: 1, total: 5, offset: 4 })
  t.equal(body.posts[0].slug, 'post-1')
  body = await page('offset=10')
  t.match(body, { count: 0, total: 5, posts: [] })
  t.equal((await page('limit=100')).count, 5)
  for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'offset=-1']) {
    const res = await app.inject({ method: 'GET', url: `/api/blog/list?${q}` })
    t.equal(res.statusCode, 400, q)
    t.type(res.json().detail, 'string')
  }
})

t.test('list: without paging params every published post comes back, not a first page', async t => {
  const clock = manualClock('2025-03-01T10:00:00Z')
  const app = await build(t, { clock })
  for (let i = 1; i <= 25; i++) {
    await published(app, { title: `Post ${i}`, content: 'x' })
    clock.advance(1000)
  }
  const body = (await app.inject({ method: 'GET', url: '/api/blog/list' })).json()
  t.match(body, { count: 25, total: 25, limit: null, offset: 0 })
  t.equal(body.posts[0].slug, 'post-25')
  t.equal(body.posts[24].slug, 'post-1')
})

t.test('list: featured posts are pinned first (newest first among them), then the rest newest first', async t => {
  const clock = manualClock('2025-03-01T10:00:00Z')
  const app = await build(t, { clock })
  for (const [title, featured] of [['Old featured', true], ['Plain A', false], ['New featured', true], ['Plain B', false]] as const) {
    await published(app, { title, content: 'x', is_featured: featured })
    clock.advance(60_000)
  }
  await published(app, { title: 'Featured draft', content: 'x', is_featured: true, status: 'draft' })
  const slugs = async (q = '', headers = {}) => (await app.inject({ method: 'GET', url: `/api/blog/list${q}`, headers })).json().posts.map((p: { slug: string }) => p.slug)
  t.same(await slugs(), ['new-featured', 'old-featured', 'plain-b', 'plain-a'])
  t.same(await slugs('?limit=2&offset=1'), ['old-featured', 'plain-b'], 'paging keeps the pinned order')
  t.same(await slugs('', admin), ['featured-draft', 'new-featured', 'old-featured', 'plain-b', 'plain-a'])
  // Unpinning moves the post back into date order.
  await app.inject({ method: 'PUT', url: '/api/blog/post/new-featured', headers: admin, payload: { is_featured: false } })
  t.same(await slugs(), ['old-featured', 'plain-b', 'new-featured', 'plain-a'])
})

t.test('list: an empty blog is an empty list', async t => {
  const app = await build(t)
  t.same((await app.inject({ method: 'GET', url: '/api/blog/list' })).json(), { count: 0, total: 0, limit: null, offset: 0, posts: [] })
})

t.test('one post: published to anyone, a draft only to the admin key, unknown 404', async t => {
  const app = await build(t)
  await published(app, { title: 'Visible', content: '<p>full</p>' })
  await published(app, { title: 'Invisible', content: '<p>secret</p>', status: 'draft' })
  let res = await app.inject({ method: 'GET', url: '/api/blog/visible' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().post.content, '<p>full</p>')
  res = await app.inject({ method: 'GET', url: '/api/blog/invisible' })
  t.equal(res.statusCode, 404)
  t.notMatch(res.body, /secret/)
  res = await app.inject({ method: 'GET', url: '/api/blog/invisible', headers: admin })
  t.equal(res.statusCode, 200)
  t.equal(res.json().post.status, 'draft')
  res = await app.inject({ method: 'GET', url: '/api/blog/no-such-post' })
  t.equal(res.statusCode, 404)
  t.type(res.json().detail, 'string')
  res = await app.inject({ method: 'GET', url: '/api/blog/' + encodeURIComponent('Weird Slug!') })
  t.equal(res.statusCode, 404)
})
