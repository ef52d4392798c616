// Uploads past the tier's one-file cap or past the account's budget for the
// uploads it holds at once (its unfinished jobs' and those arriving): 413 or
// 429 before the bytes pass it, nothing kept on disk, nothing charged.
import t from 'tap'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { connect, type AddressInfo } from 'node:net'
import { once } from 'node:events'
import type { FastifyInstance } from 'fastify'
import { MB, tierLimits } from '../../core/quotas/tiers.ts'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, usageOf, waitForEnd } from '../helpers/jobs.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { multipartBody, type FormFile } from './multipart.ts'

/** A start with a file; `declare` sends the body's Content-Length (else it streams with none). */
const send = async (app: FastifyInstance, key: string, fields: Array<[string, string]>, file?: FormFile, options: { fileFirst?: boolean, declare?: boolean } = {}) => {
  const body = multipartBody(fields, file, options)
  const headers = { ...body.headers, 'x-api-key': key, ...(options.declare ? { 'content-length': String(body.length) } : {}) }
  const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers, payload: body.payload })
  return Object.assign(res, { pulled: body.pulled() })
}
const post = (app: FastifyInstance, key: string, fields: Array<[string, string]>, file?: FormFile, options?: { fileFirst?: boolean }) => send(app, key, fields, file, options)

const leftovers = (app: FastifyInstance) => {
  const work = join(app.services.config.dataDir, 'work')
  const incoming = join(work, '.incoming')
  return existsSync(incoming) ? readdirSync(incoming) : []
}

/** Bytes of the uploads on disk that jobs hold. */
const uploadsOnDisk = (app: FastifyInstance) => {
  const work = join(app.services.config.dataDir, 'work')
  let bytes = 0
  for (const id of existsSync(work) ? readdirSync(work) : []) {
    const file = join(work, id, 'upload', 'file')
    if (!id.startsWith('.') && existsSync(file)) bytes += statSync(file).size
  }
  return bytes
}

const clip = (size: number): FormFile => ({ name: 'clip.mp4', type: 'video/mp4', size })
const FILES = [['tool', 'files'], ['params', '{"files":0}']] as Array<[string, string]>

t.test('an upload past the tier cap is 413, removed, not charged', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const before = (await usageOf(app, user.apiKey)).calls_today
  const res = await post(app, user.apiKey, [['tool', 'files']], { name: 'big.mp4', type: 'video/mp4', size: 100 * MB + 1 })
  t.equal(res.statusCode, 413)
  t.match(res.json(), { detail: /larger than the 100 MB upload limit of the registered tier; nothing was charged/ })
  // Declared past the cap: refused before the file is read.
  const declared = await send(app, user.apiKey, [['tool', 'files']], clip(110 * MB), { declare: true })
  t.equal(declared.statusCode, 413)
  t.match(declared.json(), { detail: /larger than the 100 MB upload limit/ })
  t.ok(declared.pulled < 2 * MB, `the body was not read (${declared.pulled} bytes pulled)`)
  t.equal(declared.headers.connection, 'close', 'the rest of the body is not read either')
  t.equal((await usageOf(app, user.apiKey)).calls_today, before)
  t.same(leftovers(app), [])
})

t.test('over a connection, a body declared past the cap is answered before it is sent, and the connection closes', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const socket = connect(port, '127.0.0.1')
  await once(socket, 'connect')
  const boundary = 'b0undary'
  socket.write(`POST /api/tool-run HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${user.apiKey}\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${200 * MB}\r\n\r\n`)
  socket.write(`--${boundary}\r\nContent-Disposition: form-data; name="tool"\r\n\r\nfiles\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`)
  let answer = ''
  socket.setEncoding('utf8')
  socket.on('data', (text: string) => { answer += text })
  // Nothing more of the 200 MB is sent: the server answers and closes without waiting for it.
  await once(socket, 'close')
  t.match(answer, /^HTTP\/1\.1 413 /, answer.split('\r\n')[0])
  t.match(answer, /connection: close/i)
  t.match(answer, /larger than the 100 MB upload limit of the registered tier; nothing was charged/)
  t.same(leftovers(app), [])
})

t.test('uploads held by unfinished jobs share the account\'s budget: refused before the bytes pass it, freed by a cancel', async t => {
  const app = await buildWithCounter(t, { env: { JOB_CONCURRENCY: '1' } })
  const user = await signup(app)
  const headers = { 'x-api-key': user.apiKey }
  const budget = tierLimits('registered').max_pending_uploads_mb * MB
  t.equal(budget, 300 * MB)
  // Hold the only slot so every upload's job waits in the queue.
  const blocker = (await post(app, user.apiKey, [['tool', 'files'], ['params', '{"files":0,"hold_ms":60000}']])).json().job_id
  const parked: string[] = []
  for (let i = 0; i < 3; i++) {
    const res = await send(app, user.apiKey, FILES, clip(99 * MB), { declare: i % 2 === 0 })
    t.equal(res.statusCode, 202, res.body)
    parked.push(res.json().job_id)
  }
  const charged = (await usageOf(app, user.apiKey)).calls_today
  t.equal(await app.services.uploadBudget.heldByJobs(user.id), 297 * MB, 'the queued jobs hold their uploads')

  // 3 MB left: a file declared larger is refused unread.
  const declared = await send(app, user.apiKey, FILES, clip(10 * MB), { declare: true })
  t.equal(declared.statusCode, 413, declared.body)
  t.match(declared.json(), { detail: /larger than the 3 MB left of this account's 300 MB budget of the registered tier for uploads held at once .*nothing was charged/ })
  t.ok(declared.pulled < 2 * MB, `the body was not read (${declared.pulled} bytes pulled)`)
  t.equal(declared.headers.connection, 'close')
  // Streamed without a length: the writer stops at what is left.
  const streamed = await send(app, user.apiKey, FILES, clip(10 * MB))
  t.equal(streamed.statusCode, 413, streamed.body)
  t.match(streamed.json(), { detail: /larger than the 3 MB left/ })
  t.same(leftovers(app), [], 'the cut file is gone')

  // Exactly what is left fits; then the budget is full: 429, unread when declared.
  const last = await send(app, user.apiKey, FILES, clip(3 * MB), { declare: true })
  t.equal(last.statusCode, 202, last.body)
  parked.push(last.json().job_id)
  t.equal(uploadsOnDisk(app), budget, 'the uploads on disk fill the budget, no more')
  for (const declare of [false, true]) {
    const full = await send(app, user.apiKey, FILES, clip(declare ? 10 * MB : 1024), { declare })
    t.equal(full.statusCode, 429, full.body)
    t.equal(full.headers['retry-after'], '10')
    t.match(full.json(), { detail: /uploads already fill its 300 MB budget .*when one of its jobs ends, or cancel one; nothing was charged/ })
    if (declare) t.ok(full.pulled < 2 * MB, `the body was not read (${full.pulled} bytes pulled)`)
  }
  const json = await app.inject({ method: 'POST', url: '/api/tool-run', headers, payload: { tool: 'files', params: { files: 0 } } })
  t.equal(json.statusCode, 202, 'a start without a file is not held back')
  parked.push(json.json().job_id)
  t.equal((await usageOf(app, user.apiKey)).calls_today, charged + 2, 'refusals were not charged')
  t.same(leftovers(app), [], 'no refused upload left on disk')

  // A cancel removes the queued job's upload before it answers, and frees its share at once.
  const cancelled = await app.inject({ method: 'DELETE', url: `/api/tool-run/${parked[0]}`, headers })
  t.equal(cancelled.json().error, 'cancelled')
  t.notOk(existsSync(join(app.services.config.dataDir, 'work', parked[0]!, 'upload', 'file')), 'the upload is gone')
  t.equal(await app.services.uploadBudget.heldByJobs(user.id), 201 * MB)

  // Two uploads at once that would pass what is left together: one is kept.
  const both = await Promise.all([0, 1].map(() => send(app, user.apiKey, FILES, clip(60 * MB), { declare: true })))
  t.same(both.map(r => r.statusCode).sort(), [202, 413], both.map(r => r.body).join(' '))
  parked.push(both.find(r => r.statusCode === 202)!.json().job_id)
  t.equal(await app.services.uploadBudget.heldByJobs(user.id), 261 * MB)
  t.equal(await app.services.uploadBudget.left({ account: { id: user.id }, tier: 'registered' }), 39 * MB, 'no hold outlives its request')
  t.same(leftovers(app), [])

  // The queued ones first: none of them starts while the blocker holds the slot.
  for (const id of [...parked.slice(1), blocker]) await app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers })
  t.equal(uploadsOnDisk(app), 0, 'every ended job\'s upload is gone')
})

t.test('with REDIS_URL an upload arriving at one API process counts at the others', async t => {
  const redis = await startRedis(t)
  const env = { REDIS_URL: redis.url, WORKER_SHUTDOWN_GRACE_MS: '0' }
  const a = await buildWithCounter(t, { env })
  const { dataDir, databaseUrl } = a.services.config
  const b = await buildWithCounter(t, { dataDir, databaseUrl, env })
  const user = await signup(a)
  const budget = tierLimits('registered').max_pending_uploads_mb * MB
  // A file arriving at a: its hold takes the whole budget while its size is unknown.
  const hold = await a.services.uploadBudget.hold({ account: { id: user.id }, tier: 'registered' }, { atLeast: 0, atMost: budget })
  t.equal(hold.bytes, budget)
  const full = await send(b, user.apiKey, FILES, clip(1024), { declare: true })
  t.equal(full.statusCode, 429, full.body)
  // Whole at 299 MB: 1 MB left, at b too.
  await hold.settle(budget - MB)
  const over = await send(b, user.apiKey, FILES, clip(2 * MB), { declare: true })
  t.equal(over.statusCode, 413, over.body)
  t.match(over.json(), { detail: /larger than the 1 MB left/ })
  await hold.release()
  const fits = await send(b, user.apiKey, FILES, clip(2 * MB), { declare: true })
  t.equal(fits.statusCode, 202, fits.body)
  t.equal((await usageOf(a, user.apiKey)).calls_today, 1, 'only the start that fit was charged')
  t.equal((await waitForEnd(b, user.apiKey, fits.json().job_id)).status, 'done')
  t.same(leftovers(b), [])
})
