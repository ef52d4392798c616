import t from 'tap'
import { createServer } from 'node:http'
import { createHmac } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, usageOf, waitForEnd } from '../helpers/jobs.ts'

t.test('Idempotency-Key: the same body returns the first job and charges once; another body is 409', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const h = { 'idempotency-key': 'abc-123' }
  const first = await startJob(app, user.apiKey, { max_results: 2 }, 'counter', h)
  const second = await startJob(app, user.apiKey, { max_results: 2 }, 'counter', h)
  t.equal(first.statusCode, 202)
  t.equal(second.statusCode, 200)
  t.equal(second.json().job_id, first.json().job_id)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1)
  const conflict = await startJob(app, user.apiKey, { max_results: 3 }, 'counter', h)
  t.equal(conflict.statusCode, 409)
  const parallel = await Promise.all(Array.from({ length: 10 }, () => startJob(app, user.apiKey, { max_results: 1 }, 'counter', { 'idempotency-key': 'par' })))
  t.equal(new Set(parallel.map(r => r.json().job_id)).size, 1, 'ten parallel starts, one job')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 2)
  await waitForEnd(app, user.apiKey, first.json().job_id)
})

t.test('webhooks are signed, retried, and refused for private targets unless allowed', async t => {
  const received: Array<{ body: string, signature: string | undefined }> = []
  let failures = 2
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', c => { body += c })
    req.on('end', () => {
      if (failures-- > 0) { res.statusCode = 500; res.end(); return }
      received.push({ body, signature: req.headers['x-signature'] as string | undefined })
      res.end('ok')
    })
  })
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  t.teardown(() => server.close())
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`

  const app = await buildWithCounter(t, { distributed: false, env: { ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_RETRY_BASE_MS: '20' } })
  const user = await signup(app)
  // Waits on the delivery service's attempt hook (core/webhooks), not on a timer.
  const delivered = new Promise<void>(resolve => app.services.webhooks.onAttempt(o => { if (o.outcome === 'delivered') resolve() }))
  const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey }, payload: { tool: 'counter', params: { max_results: 2 }, webhook: { url, secret: 's3cret' } } })
  t.equal(res.statusCode, 202)
  await waitForEnd(app, user.apiKey, res.json().job_id)
  await delivered
  t.equal(received.length, 1, 'delivered after two failures')
  const { body, signature } = received[0]!
  t.equal(signature, `sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`)
  t.match(JSON.parse(body), { event: 'job.done', job: { job_id: res.json().job_id, status: 'done', records: 2 } })

  const guarded = await buildWithCounter(t, { distributed: false, env: { WEBHOOK_RETRY_BASE_MS: '5' } })
  const u2 = await signup(guarded)
  received.length = 0
  failures = 0
  const attempted = new Promise<void>(resolve => guarded.services.webhooks.onAttempt(() => resolve()))
  const r2 = await guarded.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': u2.apiKey }, payload: { tool: 'counter', params: { max_results: 1 }, webhook: { url } } })
  await waitForEnd(guarded, u2.apiKey, r2.json().job_id)
  await attempted
  t.equal(received.length, 0, 'loopback webhook refused by the guard')
  const [refused] = (await guarded.inject({ method: 'GET', url: `/api/jobs/${r2.json().job_id}/webhooks`, headers: { 'x-api-key': u2.apiKey } })).json().deliveries
  t.match(refused.attempt_log.at(-1), { http_status: null, error: /Refused to connect/ }, 'the refusal is the attempt\'s error')

  const bad = await guarded.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': u2.apiKey }, payload: { tool: 'counter', params: {}, webhook: { url: 'ftp://x' } } })
  t.equal(bad.statusCode, 400)
})
