// POST /api/blog/post: every accepted field, the defaults, and every refusal.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../helpers/build.ts'
import { publish, published } from './_blog.ts'

const VIEW_FIELDS = ['id', 'slug', 'title', 'content', 'excerpt', 'category', 'status', 'is_featured', 'meta_description', 'seo_keywords', 'featured_image', 'image_url', 'source', 'created_at', 'updated_at', 'published_at']

// One app for the file: every test writes posts under titles and slugs of its own, and none lists or counts the blog.
// The app is the parent test's, not a root hook's, so the file can share a test process (test/groups/).
t.test('POST /api/blog/post, on one app', async t => {
  const app: FastifyInstance = await build(t)

  t.test('every field is stored and shown', async t => {
    const res = await publish(app, {
      title: 'Ten Ways to Find Leads',
      content: '<h2>One</h2><p>Use <a href="https://example.com/maps">maps</a>.</p>',
      slug: 'ten-ways',
      excerpt: 'A <em>short</em> list.',
      category: 'Guides',
      status: 'published',
      is_featured: true,
      meta_description: 'Ten practical ways to find B2B leads.',
      seo_keywords: ['leads', 'b2b'],
      featured_image: 'https://cdn.example.com/ten.png',
      source: 'ignored',
    })
    t.equal(res.statusCode, 201)
    const body = res.json()
    t.equal(body.status, 'success')
    t.same(Object.keys(body.post).sort(), [...VIEW_FIELDS].sort())
    t.match(body.post, {
      slug: 'ten-ways',
      title: 'Ten Ways to Find Leads',
      content: '<h2>One</h2><p>Use <a href="https://example.com/maps">maps</a>.</p>',
      excerpt: 'A <em>short</em> list.',
      category: 'Guides',
      status: 'published',
      is_featured: true,
      meta_description: 'Ten practical ways to find B2B leads.',
      seo_keywords: ['leads', 'b2b'],
      featured_image: 'https://cdn.example.com/ten.png',
      image_url: 'https://cdn.example.com/ten.png',
      source: 'api',
    })
    t.match(body.post.id, /^[0-9a-f-]{36}$/)
    t.equal(body.post.published_at, body.post.created_at)
    const read = await app.inject({ method: 'GET', url: '/api/blog/ten-ways' })
    t.same(read.json().post, body.post, 'GET returns what POST returned')
  })

  t.test('defaults: published, Lead Generation, not featured, empty extras, source api', async t => {
    const post = await published(app, { title: 'Bare', content: 'Just text & more' })
    t.match(post, { slug: 'bare', status: 'published', category: 'Lead Generation', is_featured: false, excerpt: '', meta_description: '', seo_keywords: [], featured_image: null, image_url: null, source: 'api' })
    t.equal(post.content, 'Just text &amp; more', 'plain text is kept, HTML-escaped')
    t.type(post.published_at, 'string')
  })

  t.test('a draft has no published_at', async t => {
    const post = await published(app, { title: 'Draft one', content: 'x', status: 'draft' })
    t.equal(post.status, 'draft')
    t.equal(post.published_at, null)
  })

  t.test('seo_keywords: comma-separated or array, trimmed, de-duplicated, tags stripped', async t => {
    let post = await published(app, { title: 'K1', content: 'x', seo_keywords: ' leads, B2B ,,leads, <b>maps</b> ' })
    t.same(post.seo_keywords, ['leads', 'B2B', 'maps'])
    post = await published(app, { title: 'K2', content: 'x', seo_keywords: ['one', ' two ', '', 'ONE'] })
    t.same(post.seo_keywords, ['one', 'two'])
    const res = await publish(app, { title: 'K3', content: 'x', seo_keywords: 5 })
    t.equal(res.statusCode, 400)
    t.match(res.json().detail, /seo_keywords/)
  })

  t.test('image_url is an alias of featured_image', async t => {
    let post = await published(app, { title: 'Img alias', content: 'x', image_url: 'https://cdn.example.com/a.jpg' })
    t.equal(post.featured_image, 'https://cdn.example.com/a.jpg')
    t.equal(post.image_url, 'https://cdn.example.com/a.jpg')
    post = await published(app, { title: 'Img both', content: 'x', image_url: 'https://cdn.example.com/b.jpg', featured_image: 'https://cdn.example.com/b.jpg' })
    t.equal(post.featured_image, 'https://cdn.example.com/b.jpg')
    const res = await publish(app, { title: 'Img clash', content: 'x', image_url: 'https://cdn.example.com/b.jpg', featured_image: 'https://cdn.example.com/c.jpg' })
    t.equal(res.statusCode, 400)
    t.match(res.json().detail, /image_url/)
  })

  t.test('featured_image must be an absolute http(s) URL', async t => {
    for (const bad of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'not a url', '/relative.png', 'ftp://x.example/a.png']) {
      const res = await publish(app, { title: `bad image ${bad}`, content: 'x', featured_image: bad })
      t.equal(res.statusCode, 400, bad)
      t.match(res.json().detail, /featured_image/)
    }
  })

  t.test('validation: each missing or malformed field is a 400 {detail} naming it', async t => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ content: 'x' }, /title is required/],
      [{ title: 'x' }, /content is required/],
      [{ title: '', content: 'x' }, /title/],
      [{ title: 'x', content: '' }, /content/],
      [{ title: 'x', content: 'y', status: 'live' }, /status/],
      [{ title: 'x', content: 'y', is_featured: 'yes' }, /is_featured/],
      [{ title: 'x', content: 'y', slug: 'Not A Slug' }, /slug/],
      [{ title: 'x', content: 'y', slug: 'a'.repeat(81) }, /slug/],
      [{ title: 'x', content: 'y', category: 5 }, /category/],
      [{ title: 'x', content: 'y', excerpt: ['no'] }, /excerpt/],
      [{ title: 'x', content: 'y', meta_description: false }, /meta_description/],
      [{ title: 'x'.repeat(301), content: 'y' }, /title/],
      [{ title: '<b></b>', content: 'y' }, /title is empty/],
      [{ title: 'x', content: '<script>alert(1)</script>' }, /content is empty/],
    ]
    for (const [body, detail] of cases) {
      const res = await publish(app, body)
      t.equal(res.statusCode, 400, JSON.stringify(body).slice(0, 60))
      t.match(res.json(), { detail }, JSON.stringify(body).slice(0, 60))
    }
    const notJson = await app.inject({ method: 'POST', url: '/api/blog/post', headers: { 'x-api-key': 'admin-test-key-0123456789abcdef', 'content-type': 'application/json' }, payload: '{"title":' })
    t.equal(notJson.statusCode, 400)
    t.type(notJson.json().detail, 'string')
  })

  t.test('an explicit slug that is taken or reserved is a 409', async t => {
    await published(app, { title: 'First', slug: 'same', content: 'x' })
    let res = await publish(app, { title: 'Second', slug: 'same', content: 'y' })
    t.equal(res.statusCode, 409)
    t.match(res.json().detail, /same/)
    for (const reserved of ['list', 'post', 'generate']) {
      res = await publish(app, { title: 'Route name', slug: reserved, content: 'y' })
      t.equal(res.statusCode, 409, reserved)
      t.match(res.json().detail, /reserved/)
    }
  })
})
