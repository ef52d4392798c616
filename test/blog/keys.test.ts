// Every kind of key against every blog endpoint: one table, one row per cell.
import t from 'tap'
import { build, PUBLIC_TOKEN } from '../helpers/build.ts'
import { admin, chatAnswer, json, keysFor, KEY_KINDS, llmEnv, llmServer, published, ARTICLE, type KeyKind } from './_blog.ts'

type Expect = Record<KeyKind, number>

const endpoints: Array<{ name: string, expect: Expect, request: (n: number) => { method: 'GET' | 'POST' | 'PUT', url: string, payload?: object } }> = [
  {
    name: 'POST /api/blog/post',
    expect: { admin: 201, blog: 201, personal: 403, scoped: 403, guest: 403, bad: 401, none: 401 },
    request: n => ({ method: 'POST', url: '/api/blog/post', payload: { title: `Key table ${n}`, content: '<p>x</p>' } }),
  },
  {
    name: 'PUT /api/blog/post/<slug>',
    expect: { admin: 200, blog: 200, personal: 403, scoped: 403, guest: 403, bad: 401, none: 401 },
    request: () => ({ method: 'PUT', url: '/api/blog/post/target', payload: { is_featured: true } }),
  },
  {
    name: 'GET /api/blog/list',
    expect: { admin: 200, blog: 200, personal: 200, scoped: 200, guest: 200, bad: 401, none: 200 },
    request: () => ({ method: 'GET', url: '/api/blog/list' }),
  },
  {
    name: 'GET /api/blog/<slug> (published)',
    expect: { admin: 200, blog: 200, personal: 200, scoped: 200, guest: 200, bad: 401, none: 200 },
    request: () => ({ method: 'GET', url: '/api/blog/target' }),
  },
  {
    name: 'GET /api/blog/<slug> (draft)',
    expect: { admin: 200, blog: 404, personal: 404, scoped: 404, guest: 404, bad: 401, none: 404 },
    request: () => ({ method: 'GET', url: '/api/blog/hidden' }),
  },
  {
    name: 'GET /api/blog/images/<name> (never stored)',
    expect: { admin: 404, blog: 404, personal: 404, scoped: 404, guest: 404, bad: 401, none: 404 },
    request: () => ({ method: 'GET', url: '/api/blog/images/00000000-0000-4000-8000-000000000000.png' }),
  },
  {
    name: 'POST /api/blog/generate',
    // The spec: "any valid user key"; a scoped token is one (guest and admin keys belong to no account).
    expect: { admin: 403, blog: 401, personal: 201, scoped: 201, guest: 403, bad: 401, none: 401 },
    request: () => ({ method: 'POST', url: '/api/blog/generate', payload: { topic: 'maps leads' } }),
  },
]

t.test('key kinds on every blog endpoint', async t => {
  const llm = await llmServer(t, (_req, res) => json(res, 200, chatAnswer(JSON.stringify(ARTICLE))))
  const app = await build(t, { env: llmEnv(llm.baseUrl) })
  const keys = await keysFor(app)
  await published(app, { title: 'Target', slug: 'target', content: '<p>t</p>' })
  await published(app, { title: 'Hidden', slug: 'hidden', content: '<p>h</p>', status: 'draft' })
  let n = 0
  for (const endpoint of endpoints) {
    for (const kind of KEY_KINDS) {
      const res = await app.inject({ ...endpoint.request(++n), headers: keys.headers(kind) })
      t.equal(res.statusCode, endpoint.expect[kind], `${endpoint.name} with ${kind} key`)
      if (res.statusCode >= 400) t.type(res.json().detail, 'string', `${endpoint.name} with ${kind} key answers {detail}`)
    }
  }
})

t.test('X-Blog-Key: a wrong value is 401; a good admin key beside it still works; it is not accepted in x-api-key', async t => {
  const app = await build(t)
  const body = { title: 'Blog key rules', content: '<p>x</p>' }
  let res = await app.inject({ method: 'POST', url: '/api/blog/post', headers: { 'x-blog-key': 'wrong-blog-key' }, payload: body })
  t.equal(res.statusCode, 401)
  t.match(res.json().detail, /X-Blog-Key/)
  res = await app.inject({ method: 'POST', url: '/api/blog/post', headers: { ...admin, 'x-blog-key': 'wrong-blog-key' }, payload: body })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'POST', url: '/api/blog/post', headers: { 'x-api-key': 'blog-test-key-0123456789' }, payload: body })
  t.equal(res.statusCode, 401, 'the blog key is not an x-api-key')
  res = await app.inject({ method: 'POST', url: '/api/blog/post', headers: { 'X-Blog-Key': 'blog-test-key-0123456789', 'x-api-key': PUBLIC_TOKEN }, payload: { ...body, title: 'Blog key beside a guest key' } })
  t.equal(res.statusCode, 201, 'header name is case-insensitive and the blog key is enough')
})

t.test('the blog key does not reveal drafts on reads', async t => {
  const app = await build(t)
  await published(app, { title: 'Secret draft', content: '<p>d</p>', status: 'draft' })
  const res = await app.inject({ method: 'GET', url: '/api/blog/list', headers: { 'x-blog-key': 'blog-test-key-0123456789' } })
  t.equal(res.json().count, 0)
})

t.test('no admin key configured: writes answer 403; no blog key configured: X-Blog-Key is 401', async t => {
  const app = await build(t, { env: { ADMIN_API_KEY: '', BLOG_API_KEY: '' } })
  let res = await app.inject({ method: 'POST', url: '/api/blog/post', payload: { title: 'x', content: 'y' } })
  t.equal(res.statusCode, 403)
  t.match(res.json().detail, /ADMIN_API_KEY/)
  res = await app.inject({ method: 'POST', url: '/api/blog/post', headers: { 'x-blog-key': 'blog-test-key-0123456789' }, payload: { title: 'x', content: 'y' } })
  t.equal(res.statusCode, 401)
})

t.test('keys are checked before the body is validated', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'POST', url: '/api/blog/post', payload: { nope: true } })
  t.equal(res.statusCode, 401)
})
