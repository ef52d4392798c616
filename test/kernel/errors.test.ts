import t from 'tap'
import { build, signup, testDatabaseKind, PUBLIC_TOKEN, ADMIN_KEY } from '../helpers/build.ts'
import { errorHandler } from '../../core/http-errors.ts'
import type { Feature } from '../../core/feature.ts'
import { notFound } from '../../core/errors.ts'
import { isDetail } from './_kernel.ts'

t.test('a body over 1 MB is 413 {detail}', async t => {
  const app = await build(t)
  const big = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024) })
  const res = await app.inject({ method: 'POST', url: '/api/auth/signup', headers: { 'content-type': 'application/json' }, payload: big })
  t.equal(res.statusCode, 413)
  t.ok(isDetail(res.body))
  const under = await app.inject({ method: 'POST', url: '/api/auth/signup', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(900 * 1024) }) })
  t.equal(under.statusCode, 400, 'just under 1 MB reaches validation (password too long)')
})

t.test('malformed JSON is 400 {detail}', async t => {
  const app = await build(t)
  for (const payload of ['{"email":', '{bad json}', 'null', '[', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}']) {
    const res = await app.inject({ method: 'POST', url: '/api/auth/signup', headers: { 'content-type': 'application/json' }, payload })
    t.equal(res.statusCode, 400, payload)
    t.ok(isDetail(res.body), `${payload}: {detail}`)
  }
  const empty = await app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' }, payload: '' })
  t.equal(empty.statusCode, 400, 'empty JSON body')
})

t.test('unknown routes and methods are 404 {detail}', async t => {
  const app = await build(t)
  for (const [method, url] of [['GET', '/nope'], ['GET', '/api/auth/nope'], ['PUT', '/api/auth/me'], ['DELETE', '/api/auth/signup'], ['GET', '/api/auth/tokens/x/y']] as const) {
    const res = await app.inject({ method, url })
    t.equal(res.statusCode, 404, `${method} ${url}`)
    t.ok(isDetail(res.body))
  }
})

t.test('no 500 for anything a client can send to the kernel endpoints', async t => {
  const app = await build(t)
  const u = await signup(app)
  const keys = [undefined, u.apiKey, PUBLIC_TOKEN, ADMIN_KEY, 'sk-bad', 'scp-\u00e9\u00e9', 'pub-', 'Bearer', 'k'.repeat(4096)]
  const bodies: unknown[] = [
    undefined, {}, [], 'text', 42, null, true,
    { email: 'a\u0000@example.com', password: 'p\u0000ssword1', name: '\u0000' },
    { email: { $gt: '' }, password: { $ne: null } },
    { name: 'x'.repeat(10_000), tools: Array(1000).fill('maps') },
    { name: 't', tools: ['maps\u0000'], expires_in_days: 1e308 },
    { name: 't', tools: ['maps'], expires_in_days: -1 },
    { current_password: 'x', new_password: 'y'.repeat(2000) },
    { email: '\ud800@example.com', password: 'password123' },
  ]
  const routes: Array<['GET' | 'POST' | 'DELETE', string]> = [
    ['POST', '/api/auth/signup'], ['POST', '/api/auth/login'], ['GET', '/api/auth/me'], ['POST', '/api/auth/update'],
    ['POST', '/api/auth/claim-pro'], ['POST', '/api/auth/tokens'], ['GET', '/api/auth/tokens'],
    ['DELETE', '/api/auth/tokens/%00'], ['DELETE', '/api/auth/tokens/' + 'z'.repeat(65)], ['GET', '/api/health'],
  ]
  let checked = 0
  for (const [method, url] of routes) {
    for (const key of keys) {
      for (const body of method === 'GET' || method === 'DELETE' ? [undefined] : bodies) {
        const res = await app.inject({ method, url, headers: key === undefined ? {} : { 'x-api-key': key }, ...(body === undefined ? {} : { payload: body as object }) })
        checked++
        if (res.statusCode >= 500 || (res.statusCode >= 400 && !isDetail(res.body))) {
          t.fail(`${method} ${url} key=${String(key).slice(0, 10)} body=${JSON.stringify(body)?.slice(0, 60)} → ${res.statusCode} ${res.body.slice(0, 200)}`)
        }
      }
    }
  }
  t.ok(checked > 300, `${checked} requests, none a 500, every error {detail}`)
  // The regenerate-key route last (it rotates the key the loop used).
  const rot = await app.inject({ method: 'POST', url: '/api/auth/regenerate-key', headers: { 'x-api-key': u.apiKey }, payload: 'junk' })
  t.ok(rot.statusCode < 500)
})

t.test('odd content types never give a 500', async t => {
  const app = await build(t)
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1']) {
    const res = await app.inject({ method: 'POST', url: '/api/auth/signup', headers: { 'content-type': type }, payload: 'email=a@example.com&password=12345678' })
    t.ok(res.statusCode >= 400 && res.statusCode < 500, `${type} → ${res.statusCode}`)
    t.ok(isDetail(res.body), `${type}: {detail}`)
  }
})

t.test('a malformed URL escape is a 400 {detail}', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/auth/tokens/%E0%A4%A' })
  t.equal(res.statusCode, 400)
  t.ok(isDetail(res.body), res.body)
})

t.test('a NUL character refused by PostgreSQL maps to a 400, not a 500', async t => {
  const app = await build(t)
  // The error as PostgreSQL raises it through Prisma, or (on SQLite, which stores NUL) its shape.
  let error: unknown = Object.assign(new Error('Invalid invocation\nDatabase error. Code: `22021`. Message: `invalid byte sequence for encoding "UTF8": 0x00`'), { code: 'P2039' })
  if (testDatabaseKind() === 'postgresql') {
    try { await app.services.db.account.findUnique({ where: { email: 'a\u0000b' } }) } catch (err) { error = err }
  }
  const sent: { status?: number, body?: unknown } = {}
  const reply = { code (s: number) { sent.status = s; return reply }, headers () { return reply }, send (b: unknown) { sent.body = b; return reply } }
  errorHandler(error as never, { log: app.log } as never, reply as never)
  t.equal(sent.status, 400)
  t.type((sent.body as { detail?: string }).detail, 'string')
})

t.test('the kernel alone answers browsers {detail}: an HTML error page is a feature\'s (core/feature.ts)', async t => {
  const browser = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' }
  const kernel = await build(t, { features: [] })
  for (const url of ['/nope', '/blog', '/app', '/docs']) {
    const res = await kernel.inject({ url, headers: browser })
    t.equal(res.statusCode, 404, `${url}: no feature, no route`)
    t.match(res.headers['content-type'], /^application\/json/, `${url}: JSON`)
    t.ok(isDetail(res.body), `${url}: {detail}`)
  }
  t.equal((await kernel.inject({ url: '/openapi.json' })).statusCode, 200, 'the OpenAPI document is the kernel\'s')

  // A feature of the test's own: a page route whose errors a browser gets as the feature's page.
  const pages: Feature = {
    name: 'test-pages',
    async register (app, host) {
      host.setHtmlErrorPage((status, detail) => `<!doctype html><h1>${status}</h1><p class="lead">${detail}</p>`)
      app.get('/page', { config: { auth: 'none', webPage: true } }, async () => { throw notFound('No such page.') })
    },
  }
  const app = await build(t, { features: [pages] })
  const page = await app.inject({ url: '/page', headers: browser })
  t.equal(page.statusCode, 404)
  t.match(page.headers['content-type'], /^text\/html/)
  t.equal(page.body, '<!doctype html><h1>404</h1><p class="lead">No such page.</p>', 'the feature\'s page, with the detail')
  t.equal(page.headers.vary, 'accept')
  t.ok(isDetail((await app.inject({ url: '/page' })).body), 'a client that does not ask for HTML: {detail}')
  const unknown = await app.inject({ url: '/elsewhere', headers: browser })
  t.match(unknown.headers['content-type'], /^text\/html/, 'an unknown address outside the API: the page')
  t.ok(isDetail((await app.inject({ url: '/api/elsewhere', headers: browser })).body), 'the API stays JSON')

  await t.rejects(build(t, { features: [pages, { ...pages, name: 'second-pages', register: async (_app, host) => host.setHtmlErrorPage(() => '') }] }), /already set the HTML error page/, 'one error page per app')
})
