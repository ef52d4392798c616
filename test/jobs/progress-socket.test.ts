import t from 'tap'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, waitForEnd } from '../helpers/jobs.ts'
import { openSocket, type OpenedSocket } from '../helpers/socket.ts'

type Msg = Record<string, any>

async function collect (socket: OpenedSocket): Promise<{ messages: Msg[], code: number }> {
  const code = await socket.closed
  return { messages: socket.messages, code }
}

t.test('progress messages, then one done message with the status record, then close', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  // Rows 750 ms apart: the socket must be following before the last two rows, and on CI's
  // loaded machine opening it took longer than a 240 ms job (one progress message, then done).
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 4, delay_ms: 750 })).json()
  const ws = await openSocket(app, `/api/tool-run/${id}/ws`, { headers: { 'x-api-key': user.apiKey } })
  const { messages } = await collect(ws)
  const progress = messages.filter(m => m.type === 'progress')
  t.ok(progress.length >= 2, 'several progress messages')
  t.match(progress[0], { job_id: id, status: 'running' })
  const records = progress.map(m => m.records)
  t.same(records, [...records].sort((a, b) => a - b), 'records never go down')
  const last = messages[messages.length - 1]!
  t.match(last, { type: 'done', job: { job_id: id, status: 'done', records: 4 } })
  t.equal(messages.filter(m => m.type !== 'progress').length, 1, 'exactly one final message')
})

t.test('auth by first message; a finished job answers at once; errors for bad keys and unknown jobs', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 1 })).json()
  await waitForEnd(app, user.apiKey, id)
  const ws = await openSocket(app, `/api/tool-run/${id}/ws`)
  const done = collect(ws)
  ws.ws.send(JSON.stringify({ type: 'auth', api_key: user.apiKey }))
  const { messages } = await done
  t.equal(messages.length, 1)
  t.match(messages[0], { type: 'done', job: { status: 'done' } })

  const bad = await openSocket(app, `/api/tool-run/${id}/ws`)
  const badDone = collect(bad)
  bad.ws.send(JSON.stringify({ type: 'auth', api_key: 'sk-wrong' }))
  const b = await badDone
  t.equal(b.code, 4401)
  t.match(b.messages[0], { type: 'error' })

  const other = await signup(app)
  const foreign = await openSocket(app, `/api/tool-run/${id}/ws`, { headers: { 'x-api-key': other.apiKey } })
  const f = await collect(foreign)
  t.equal(f.code, 4404)
})

t.test('a failing job ends with an error message', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 5, delay_ms: 50, outcome: 'blocked' })).json()
  const ws = await openSocket(app, `/api/tool-run/${id}/ws`, { headers: { 'x-api-key': user.apiKey } })
  const { messages } = await collect(ws)
  t.match(messages[messages.length - 1], { type: 'error', job: { status: 'error', blocked: true, refunded: true } })
})
