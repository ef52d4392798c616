// Uploads: POST /api/tool-run as multipart/form-data for a tool that declares
// `upload`. The file is streamed to disk under the tier cap, handed to the run
// as ctx.upload, and removed when the job ends; every refusal (400, 413, 415)
// leaves no file and charges nothing.
import t from 'tap'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, usageOf, waitForEnd } from '../helpers/jobs.ts'
import { multipartBody, type FormFile } from './multipart.ts'

const post = (app: FastifyInstance, key: string, fields: Array<[string, string]>, file?: FormFile, options?: { fileFirst?: boolean }) => {
  const { payload, headers } = multipartBody(fields, file, options)
  return app.inject({ method: 'POST', url: '/api/tool-run', headers: { ...headers, 'x-api-key': key }, payload })
}

const leftovers = (app: FastifyInstance) => {
  const work = join(app.services.config.dataDir, 'work')
  const incoming = join(work, '.incoming')
  return existsSync(incoming) ? readdirSync(incoming) : []
}

t.test('an uploaded file reaches the run as ctx.upload and goes when the job ends', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const headers = { 'x-api-key': user.apiKey }
  const data = Buffer.from('line one\nline two\n'.repeat(1000))
  for (const fileFirst of [false, true]) {
    const res = await post(app, user.apiKey, [['tool', 'files'], ['params', JSON.stringify({ files: 0 })]], { name: 'notes.txt', type: 'text/plain', data }, { fileFirst })
    t.equal(res.statusCode, 202, res.body)
    const id = res.json().job_id
    const end = await waitForEnd(app, user.apiKey, id, 60_000)
    t.equal(end.status, 'done')
    const [row] = (await app.inject({ url: `/api/tool-run/${id}/results`, headers })).json().results
    t.same(row.upload, { name: 'notes.txt', size: data.length, content_type: 'text/plain', sha256: createHash('sha256').update(data).digest('hex'), source: 'upload://notes.txt' }, 'the run read the whole file; its param says upload://')
    const copy = await app.inject({ url: row.url, headers })
    t.equal(copy.body, data.toString(), 'a file the run stored from the upload')
    t.notOk(existsSync(join(app.services.config.dataDir, 'work', id)), 'the upload is removed at the ending')
    const job = await app.services.db.job.findUniqueOrThrow({ where: { id } })
    t.match(JSON.parse(job.input), { source: 'upload://notes.txt' }, 'the stored input shows the upload')
  }
  t.same(leftovers(app), [])
})

t.test('refusals: no file kept, nothing charged', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const before = (await usageOf(app, user.apiKey)).calls_today
  const file = { name: 'clip.mp4', type: 'video/mp4', data: Buffer.from('not really a video') }
  const cases: Array<[string, Array<[string, string]>, FormFile | undefined, number, RegExp]> = [
    ['a tool that takes no upload', [['tool', 'counter']], file, 400, /takes no uploaded file/],
    ['a type the tool does not take', [['tool', 'files']], { name: 'a.png', type: 'image/png', data: Buffer.from('png') }, 415, /takes video\/\*, text\/plain files, not image\/png/],
    ['the file and its param both', [['tool', 'files'], ['params', '{"source":"https://example.com/a.mp4"}']], file, 400, /either source or a file/],
    ['no tool field', [['params', '{}']], file, 400, /no tool field/],
    ['params that are not JSON', [['tool', 'files'], ['params', '{oops']], file, 400, /params field is not valid JSON/],
    ['params that are not an object', [['tool', 'files'], ['params', '[1]']], file, 400, /must be a JSON object/],
    ['an unknown field', [['tool', 'files'], ['extra', 'x']], file, 400, /Unknown form field/],
    ['bad params for the tool', [['tool', 'files'], ['params', '{"files":-1}']], file, 400, /files/],
    ['an unknown tool', [['tool', 'nope']], file, 400, /nope/],
  ]
  for (const [what, fields, f, status, detail] of cases) {
    const res = await post(app, user.apiKey, fields, f)
    t.equal(res.statusCode, status, `${what}: ${res.body}`)
    t.match(res.json(), { detail }, what)
  }
  const marker = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'files', params: { source: 'upload://clip.mp4' } } })
  t.equal(marker.statusCode, 400, 'upload:// without a file (JSON, the agent endpoint) is refused')
  t.match(marker.json(), { detail: /no file was sent/ })
  // The file arrives before the tool: it is read, then refused, then removed.
  const late = await post(app, user.apiKey, [['tool', 'counter']], file, { fileFirst: true })
  t.equal(late.statusCode, 400)
  const two = multipartBody([['tool', 'files']], file)
  const cut = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { ...two.headers, 'x-api-key': user.apiKey }, payload: 'garbage without a boundary' })
  t.equal(cut.statusCode, 400, 'a malformed body is 400, not 500')
  t.ok(cut.json().detail)
  const noKey = await post(app, '', [['tool', 'files']], file)
  t.equal(noKey.statusCode, 401)
  t.equal((await usageOf(app, user.apiKey)).calls_today, before, 'nothing charged')
  t.same(leftovers(app), [], 'no upload left on disk')
})

t.test('cancel of a queued job with an upload removes the upload', async t => {
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '1' } })
  const user = await signup(app)
  const headers = { 'x-api-key': user.apiKey }
  // Hold the only slot so the upload's job waits in the queue.
  const blocker = (await post(app, user.apiKey, [['tool', 'files'], ['params', '{"files":0,"hold_ms":60000}']])).json().job_id
  const res = await post(app, user.apiKey, [['tool', 'files'], ['params', '{"files":0}']], { name: 'clip.mp4', type: 'video/mp4', data: Buffer.from('frames') })
  t.equal(res.statusCode, 202)
  const id = res.json().job_id
  t.ok(existsSync(join(app.services.config.dataDir, 'work', id, 'upload', 'file')), 'the queued job holds its upload')
  const cancelled = await app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers })
  t.equal(cancelled.json().error, 'cancelled')
  t.notOk(existsSync(join(app.services.config.dataDir, 'work', id)), 'removed at the ending')
  await app.inject({ method: 'DELETE', url: `/api/tool-run/${blocker}`, headers })
})
