// POST /api/blog/generate with an image model (LLM_IMAGE_MODEL): the featured
// image is made, stored under DATA_DIR and served by GET /api/blog/images/<name>;
// an image that fails leaves the post stored without one, and the answer says so.
import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { build, signup, tempDir } from '../helpers/build.ts'
import { admin, ARTICLE, callsToday, chatAnswer, json, llmEnv, llmServer, PNG_1PX, type LlmReply } from './_blog.ts'

const article: LlmReply = (_q, res) => json(res, 200, chatAnswer(JSON.stringify(ARTICLE)))
const imageEnv = (baseUrl: string, extra: Record<string, string> = {}) => llmEnv(baseUrl, { LLM_IMAGE_MODEL: 'test-image-model', ...extra })

async function generate (app: Awaited<ReturnType<typeof build>>, key: string) {
  return app.inject({ method: 'POST', url: '/api/blog/generate', headers: { 'x-api-key': key }, payload: { topic: 'Finding leads on maps' } })
}

t.test('a b64_json image is stored under DATA_DIR, served, and set as featured_image', async t => {
  const llm = await llmServer(t, article, (_q, res) => json(res, 200, { created: 1, data: [{ b64_json: PNG_1PX.toString('base64') }] }))
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, env: imageEnv(llm.baseUrl) })
  const user = await signup(app)
  const res = await generate(app, user.apiKey)
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.same(body.image, { status: 'generated', detail: null })
  t.match(body.post.featured_image, /^\/api\/blog\/images\/[0-9a-f-]{36}\.png$/)
  t.equal(body.post.image_url, body.post.featured_image, 'the alias shows the same value')
  t.equal(await callsToday(app, user.apiKey), 1, 'one call for the article and its image')

  // What the image model was asked.
  t.equal(llm.imageRequests.length, 1)
  const sent = llm.imageRequests[0]!
  t.equal(sent.body.model, 'test-image-model')
  t.match(sent.body.prompt, ARTICLE.title)
  t.equal(sent.headers.authorization, 'Bearer llm-test-key')

  // Stored as a file under DATA_DIR, served with its type.
  const name = body.post.featured_image.split('/').pop()
  t.ok(existsSync(join(dataDir, 'blog-images', name)))
  const served = await app.inject({ method: 'GET', url: body.post.featured_image })
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'image/png')
  t.same(served.rawPayload, PNG_1PX)

  // A post read back can be sent to PUT unchanged, its stored image included.
  const stored = (await app.inject({ method: 'GET', url: '/api/blog/list', headers: admin })).json().posts[0]
  const put = await app.inject({ method: 'PUT', url: `/api/blog/post/${stored.slug}`, headers: admin, payload: { ...stored, status: 'published' } })
  t.equal(put.statusCode, 200, put.body)
  t.equal(put.json().post.featured_image, body.post.featured_image)
})

t.test('an image answered as a url is downloaded and stored (provider links expire)', async t => {
  let origin = ''
  const llm = await llmServer(t, article, (_q, res) => json(res, 200, { data: [{ url: `${origin}/files/cover.png` }] }), { 'cover.png': PNG_1PX })
  origin = llm.origin
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, env: imageEnv(llm.baseUrl) })
  const user = await signup(app)
  const res = await generate(app, user.apiKey)
  t.equal(res.statusCode, 201)
  t.equal(res.json().image.status, 'generated')
  const path: string = res.json().post.featured_image
  t.match(path, /^\/api\/blog\/images\/.+\.png$/)
  t.same(readFileSync(join(dataDir, 'blog-images', path.split('/').pop()!)), PNG_1PX)
})

const imageFailures: Array<[string, LlmReply, RegExp]> = [
  ['HTTP 500', (_q, res) => json(res, 500, { error: { message: 'boom' } }), /HTTP 500/],
  ['no image in the answer', (_q, res) => json(res, 200, { data: [] }), /without an image/],
  ['bytes that are not an image', (_q, res) => json(res, 200, { data: [{ b64_json: Buffer.from('<svg onload=alert(1)>').toString('base64') }] }), /not a PNG/],
  ['a body that is not JSON', (_q, res) => { res.writeHead(200).end('<html>') }, /not JSON/],
  ['a url that is not there', (_q, res) => json(res, 200, { data: [{ url: 'http://127.0.0.1:1/nothing.png' }] }), /could not be reached/],
]

for (const [name, reply, why] of imageFailures) {
  t.test(`image failure: ${name} → the post is stored without an image, and the answer says so`, async t => {
    const llm = await llmServer(t, article, reply)
    const dataDir = tempDir(t)
    const app = await build(t, { dataDir, env: imageEnv(llm.baseUrl) })
    const user = await signup(app)
    const res = await generate(app, user.apiKey)
    t.equal(res.statusCode, 201)
    const body = res.json()
    t.equal(body.image.status, 'failed')
    t.match(body.image.detail, why)
    t.match(body.image.detail, /stored without one/)
    t.notMatch(body.image.detail, /boom/, 'the upstream body is not echoed')
    t.equal(body.post.featured_image, null)
    t.equal((await app.inject({ method: 'GET', url: '/api/blog/list', headers: admin })).json().total, 1, 'the article is stored')
    t.equal(await callsToday(app, user.apiKey), 1, 'charged: the article was delivered')
    t.notOk(existsSync(join(dataDir, 'blog-images')) && readdirSync(join(dataDir, 'blog-images')).length > 0, 'no file stored')
  })
}

t.test('a slow image model times out (LLM_TIMEOUT_MS): the post is stored without an image', async t => {
  const llm = await llmServer(t, article, (_q, res) => { setTimeout(() => json(res, 200, { data: [{ b64_json: PNG_1PX.toString('base64') }] }), 3000) })
  const app = await build(t, { env: imageEnv(llm.baseUrl, { LLM_TIMEOUT_MS: '300' }) })
  const user = await signup(app)
  const res = await generate(app, user.apiKey)
  t.equal(res.statusCode, 201)
  t.match(res.json().image, { status: 'failed', detail: /did not answer within/ })
})

t.test('no image model configured: no image call, and the answer says why there is no image', async t => {
  const llm = await llmServer(t, article, (_q, res) => json(res, 200, { data: [{ b64_json: PNG_1PX.toString('base64') }] }))
  const app = await build(t, { env: llmEnv(llm.baseUrl) })
  const user = await signup(app)
  const res = await generate(app, user.apiKey)
  t.equal(res.statusCode, 201)
  t.match(res.json().image, { status: 'not_configured', detail: /LLM_IMAGE_MODEL/ })
  t.equal(res.json().post.featured_image, null)
  t.equal(llm.imageRequests.length, 0)
})

t.test('an article the model botched is refused before any image is made', async t => {
  const llm = await llmServer(t, (_q, res) => json(res, 200, chatAnswer(JSON.stringify({ title: 'x', content: '<script>alert(1)</script>' }))),
    (_q, res) => json(res, 200, { data: [{ b64_json: PNG_1PX.toString('base64') }] }))
  const app = await build(t, { env: imageEnv(llm.baseUrl) })
  const user = await signup(app)
  const res = await generate(app, user.apiKey)
  t.equal(res.statusCode, 503)
  t.equal(llm.imageRequests.length, 0)
  t.equal(await callsToday(app, user.apiKey), 0, 'refunded')
})

t.test('the image route serves only names the store gave out', async t => {
  const app = await build(t)
  for (const name of ['..%2F..%2Fsecret.key', 'secret.key', '%2E%2E', 'x.png', '00000000-0000-4000-8000-000000000000.svg']) {
    const res = await app.inject({ method: 'GET', url: `/api/blog/images/${name}` })
    t.equal(res.statusCode, 404, name)
    t.type(res.json().detail, 'string')
  }
})

t.test('a publish may not point featured_image at a path that is not a stored image', async t => {
  const app = await build(t)
  for (const featured of ['/api/blog/images/../../secret.key', '/etc/passwd', '/api/blog/images/x.png']) {
    const res = await app.inject({ method: 'POST', url: '/api/blog/post', headers: admin, payload: { title: 'x', content: 'y', featured_image: featured } })
    t.equal(res.statusCode, 400, featured)
  }
})
