// POST /api/blog/generate against a local OpenAI-compatible server: the draft it
// stores, the charge, and the refund on every way the model can fail.
import t from 'tap'
import { build, signup } from '../helpers/build.ts'
import { admin, ARTICLE, callsToday, chatAnswer, json, llmEnv, llmServer, type LlmReply } from './_blog.ts'

const generate = (app: Awaited<ReturnType<typeof build>>, key: string, payload: unknown = { topic: 'Finding leads on maps' }) =>
  app.inject({ method: 'POST', url: '/api/blog/generate', headers: { 'x-api-key': key }, payload: payload as object })

// The tests on the standard model settings share one app and one model server (each test
// signs up its own account and sets the model's answer): an app per test was most of this
// file's time. Tests that need other settings build their own.
let modelReply: LlmReply = (_q, res) => json(res, 200, chatAnswer(JSON.stringify(ARTICLE)))
const sharedLlm = await llmServer(t, (q, res) => modelReply(q, res))
const shared = await build(t, { env: llmEnv(sharedLlm.baseUrl) })
/** The shared model answers with `reply` from now on; `requests()` are the calls it gets from now on. */
function modelAnswers (reply: LlmReply) {
  modelReply = reply
  const from = sharedLlm.requests.length
  return { requests: () => sharedLlm.requests.slice(from) }
}
const storedPosts = async () => (await shared.inject({ method: 'GET', url: '/api/blog/list', headers: admin })).json().total as number

t.test('a generated article is stored as a draft with source generated, and charged once', async t => {
  const llm = modelAnswers((_req, res) => json(res, 200, chatAnswer(JSON.stringify(ARTICLE))))
  const app = shared
  const user = await signup(app)
  t.equal(await callsToday(app, user.apiKey), 0)
  const res = await generate(app, user.apiKey)
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.equal(body.status, 'success')
  t.equal(body.id, body.post.id)
  t.match(body.post, {
    slug: 'finding-b2b-leads-with-maps-data',
    title: ARTICLE.title,
    content: '<h2>Why maps</h2><p>Listings carry phones.</p><ul><li>one</li></ul>',
    excerpt: 'How <b>local listings</b> become a lead list.',
    meta_description: ARTICLE.meta_description,
    seo_keywords: ARTICLE.seo_keywords,
    status: 'draft',
    source: 'generated',
    category: 'Lead Generation',
    published_at: null,
    featured_image: null,
  })
  t.match(body.image, { status: 'not_configured' }, 'the answer says why there is no image')
  t.equal(await callsToday(app, user.apiKey), 1, 'one call charged')

  // What the model was asked.
  t.equal(llm.requests().length, 1)
  const sent = llm.requests()[0]!
  t.equal(sent.headers.authorization, 'Bearer llm-test-key')
  t.equal(sent.body.model, 'test-model')
  t.match(sent.body.messages?.at(-1)?.content, /Finding leads on maps/)
  t.match(sent.body.messages?.[0]?.content, /JSON/)

  // A draft: hidden from the public, visible to the admin, publishable.
  t.equal((await app.inject({ method: 'GET', url: '/api/blog/list' })).json().total, 0)
  t.equal((await app.inject({ method: 'GET', url: `/api/blog/${body.post.slug}` })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: '/api/blog/list', headers: admin })).json().total, 1)
  const pub = await app.inject({ method: 'PUT', url: `/api/blog/post/${body.post.slug}`, headers: admin, payload: { status: 'published' } })
  t.match(pub.json().post, { status: 'published', source: 'generated' })
})

t.test('answers the model wraps in prose or code fences are still read', async t => {
  const answers = [
    '```json\n' + JSON.stringify(ARTICLE) + '\n```',
    'Here is your article:\n' + JSON.stringify({ ...ARTICLE, seo_keywords: 'a, b' }) + '\nEnjoy!',
  ]
  let i = 0
  const llm = await llmServer(t, (_req, res) => json(res, 200, chatAnswer(answers[i++]!)))
  const app = await build(t, { env: llmEnv(llm.baseUrl) })
  const user = await signup(app)
  const first = await generate(app, user.apiKey)
  t.equal(first.statusCode, 201)
  const second = await generate(app, user.apiKey)
  t.equal(second.statusCode, 201)
  t.same(second.json().post.seo_keywords, ['a', 'b'])
  t.equal(second.json().post.slug, 'finding-b2b-leads-with-maps-data-2', 'same title, next free slug')
})

t.test('a model answer without an API key configured sends no Authorization header', async t => {
  const llm = await llmServer(t, (_req, res) => json(res, 200, chatAnswer(JSON.stringify(ARTICLE))))
  const app = await build(t, { env: { LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'local' } })
  const user = await signup(app)
  t.equal((await generate(app, user.apiKey)).statusCode, 201)
  t.equal(llm.requests[0]!.headers.authorization, undefined)
})

const failures: Array<[string, LlmReply, RegExp]> = [
  ['malformed content (not JSON)', (_q, res) => json(res, 200, chatAnswer('Sorry, I cannot write that article.')), /could not be read/],
  ['JSON without a title', (_q, res) => json(res, 200, chatAnswer(JSON.stringify({ content: '<p>x</p>' }))), /could not be read/],
  ['JSON without content', (_q, res) => json(res, 200, chatAnswer(JSON.stringify({ title: 'x', content: '' }))), /could not be read/],
  ['content that cleans to nothing', (_q, res) => json(res, 200, chatAnswer(JSON.stringify({ title: 'x', content: '<script>alert(1)</script>' }))), /could not be used/],
  ['no choices', (_q, res) => json(res, 200, { choices: [] }), /could not be read/],
  ['a body that is not JSON', (_q, res) => { res.writeHead(200, { 'content-type': 'text/html' }).end('<html>gateway</html>') }, /could not be read/],
  ['HTTP 500', (_q, res) => json(res, 500, { error: { message: 'boom' } }), /HTTP 500/],
  ['HTTP 401 (bad model key)', (_q, res) => json(res, 401, { error: { message: 'bad key' } }), /HTTP 401/],
  ['HTTP 429 from the model', (_q, res) => json(res, 429, { error: { message: 'slow down' } }), /HTTP 429/],
]

for (const [name, reply, detail] of failures) {
  t.test(`model failure: ${name} → 503, refunded`, async t => {
    const llm = modelAnswers(reply)
    const app = shared
    const user = await signup(app)
    const before = await callsToday(app, user.apiKey)
    const postsBefore = await storedPosts()
    const res = await generate(app, user.apiKey)
    t.equal(res.statusCode, 503)
    t.match(res.json(), { detail })
    t.notMatch(res.body, /boom|bad key|slow down|gateway/, 'the upstream body is not echoed')
    t.equal(llm.requests().length, 1)
    t.equal(await callsToday(app, user.apiKey), before, 'calls_today is back to its previous value')
    t.equal(await storedPosts(), postsBefore, 'nothing stored')
  })
}

t.test('a slow model times out (LLM_TIMEOUT_MS) → 503, refunded, quickly', async t => {
  // The model never answers (the teardown closes the connection): only the timeout can end the call.
  const llm = await llmServer(t, () => {})
  const app = await build(t, { env: llmEnv(llm.baseUrl, { LLM_TIMEOUT_MS: '200' }) })
  const user = await signup(app)
  const started = Date.now()
  const res = await generate(app, user.apiKey)
  const took = Date.now() - started
  t.equal(res.statusCode, 503)
  t.match(res.json().detail, /did not answer within/)
  t.ok(took < 10_000, `answered in ${took} ms, long before a hang would end`)
  t.equal(await callsToday(app, user.apiKey), 0)
})

t.test('an unreachable model → 503, refunded', async t => {
  const llm = await llmServer(t, (_q, res) => json(res, 200, {}))
  const url = llm.baseUrl.replace(/:\d+\//, ':1/') // port 1: nothing listens there
  const app = await build(t, { env: llmEnv(url) })
  const user = await signup(app)
  const res = await generate(app, user.apiKey)
  t.equal(res.statusCode, 503)
  t.match(res.json().detail, /could not be reached/)
  t.equal(await callsToday(app, user.apiKey), 0)
})

t.test('no model configured → 503, nothing charged', async t => {
  for (const env of [{}, { LLM_BASE_URL: 'http://127.0.0.1:9/v1' }, { LLM_MODEL: 'm' }]) {
    const app = await build(t, { env })
    const user = await signup(app)
    const res = await generate(app, user.apiKey)
    t.equal(res.statusCode, 503, JSON.stringify(env))
    t.match(res.json().detail, /no language model is configured/)
    t.equal(await callsToday(app, user.apiKey), 0)
  }
})

t.test('quota spent → 429 with Retry-After, the model is not called', async t => {
  const llm = modelAnswers((_q, res) => json(res, 200, chatAnswer(JSON.stringify(ARTICLE))))
  const app = shared
  const user = await signup(app)
  for (let i = 0; i < 50; i++) await app.services.quotas.charge(user.id, 'registered')
  const res = await generate(app, user.apiKey)
  t.equal(res.statusCode, 429)
  t.ok(Number(res.headers['retry-after']) > 0)
  t.type(res.json().detail, 'string')
  t.equal(llm.requests().length, 0)
  t.equal(await callsToday(app, user.apiKey), 50)
})

t.test('topic is required and bounded; refusals are not charged', async t => {
  const llm = modelAnswers((_q, res) => json(res, 200, chatAnswer(JSON.stringify(ARTICLE))))
  const app = shared
  const user = await signup(app)
  for (const payload of [{}, { topic: '' }, { topic: 5 }, { topic: 'x'.repeat(501) }]) {
    const res = await generate(app, user.apiKey, payload)
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 40))
    t.match(res.json().detail, /topic/)
  }
  t.equal(await callsToday(app, user.apiKey), 0)
  t.equal(llm.requests().length, 0)
})

t.test('a bad LLM_TIMEOUT_MS stops the boot', async t => {
  await t.rejects(build(t, { env: { LLM_TIMEOUT_MS: 'soon' } }), /LLM_TIMEOUT_MS/)
})
