import t from 'tap'
import { build, signup, PUBLIC_TOKEN } from '../helpers/build.ts'
import { manualClock } from '../../core/clock.ts'
import { me, mintToken } from './_kernel.ts'

const LIMIT_KEYS = ['max_records_per_run', 'calls_per_day', 'calls_per_month', 'retention_hours', 'rate_limit_per_minute', 'max_running_jobs', 'max_queued_jobs', 'max_file_mb', 'max_job_files_mb', 'max_pending_uploads_mb', 'max_monitors', 'min_monitor_interval_minutes']

t.test('me with the personal key: user (with api_key), tier, limits, usage', async t => {
  const app = await build(t, { env: { RATE_LIMIT_PER_MINUTE: '77' } })
  const u = await signup(app)
  const res = await me(app, u.apiKey)
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.match(body.user, { id: u.id, email: u.email, api_key: u.apiKey, tier: 'registered', pro_eligible: true, pro_expires_at: null })
  t.equal(body.tier, 'registered')
  t.same(Object.keys(body.limits).sort(), [...LIMIT_KEYS].sort())
  t.same(body.limits, { max_records_per_run: 200, calls_per_day: 50, calls_per_month: 1500, retention_hours: 6, rate_limit_per_minute: 77, max_running_jobs: 2, max_queued_jobs: 20, max_file_mb: 100, max_job_files_mb: 250, max_pending_uploads_mb: 300, max_monitors: 10, min_monitor_interval_minutes: 60 })
  t.same(body.usage, { calls_today: 0, calls_this_month: 0, records_today: 0, jobs_running: 0, jobs_queued: 0 })
})

t.test('the x-api-key header name is case-insensitive; Bearer works too', async t => {
  const app = await build(t)
  const u = await signup(app)
  for (const headers of [{ 'X-API-Key': u.apiKey }, { 'X-API-KEY': u.apiKey }, { authorization: `Bearer ${u.apiKey}` }]) {
    const res = await app.inject({ method: 'GET', url: '/api/auth/me', headers })
    t.equal(res.statusCode, 200, Object.keys(headers)[0]!)
  }
})

t.test('usage reflects charges and records of today', async t => {
  const clock = manualClock('2026-03-10T12:00:00Z')
  const app = await build(t, { clock })
  const u = await signup(app)
  await app.services.quotas.charge(u.id, 'registered')
  await app.services.quotas.charge(u.id, 'registered')
  await app.services.quotas.addRecords(u.id, 7)
  const body = (await me(app, u.apiKey)).json()
  t.same(body.usage, { calls_today: 2, calls_this_month: 2, records_today: 7, jobs_running: 0, jobs_queued: 0 })
})

t.test('a scoped token reads its account without revealing the personal key', async t => {
  const app = await build(t)
  const u = await signup(app)
  const tok = await mintToken(app, u.apiKey)
  const res = await me(app, tok.token)
  t.equal(res.statusCode, 200)
  t.equal(res.json().user.id, u.id)
  t.notOk('api_key' in res.json().user, 'no api_key for a scoped token')
  t.notMatch(res.body, u.apiKey)
})

t.test('the guest token gets the guest tier and no user', async t => {
  const app = await build(t, { env: { RATE_LIMIT_PER_MINUTE: '60' } })
  const res = await me(app, PUBLIC_TOKEN)
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    user: null,
    tier: 'guest',
    limits: { max_records_per_run: 20, calls_per_day: 5, calls_per_month: 150, retention_hours: 2, rate_limit_per_minute: 60, max_running_jobs: 1, max_queued_jobs: 2, max_file_mb: 25, max_job_files_mb: 50, max_pending_uploads_mb: 50, max_monitors: 0, min_monitor_interval_minutes: 0 },
    usage: null,
  })
})

t.test('me without a key or with a bad key is 401', async t => {
  const app = await build(t)
  for (const key of [undefined, 'sk-nope', 'scp-nope', 'pub-nope', 'garbage', 'x'.repeat(600)]) {
    const res = await me(app, key)
    t.equal(res.statusCode, 401, String(key).slice(0, 12))
    t.type(res.json().detail, 'string')
  }
})

t.test('response serializers: a "this or null" union is serialized without running a validator, as before', async t => {
  const { Type } = await import('typebox')
  const { serializableSchema, responseSerializerCompiler } = await import('../../core/response-serializer.ts')
  const { MeResponse } = await import('../../core/accounts/schemas.ts')
  const nullableObject = Type.Union([Type.Object({ a: Type.String() }), Type.Null()], { description: 'd' })
  const before = JSON.stringify(nullableObject)
  t.same(serializableSchema(nullableObject), { description: 'd', type: 'object', required: ['a'], properties: { a: { type: 'string' } }, nullable: true })
  t.equal(JSON.stringify(nullableObject), before, 'the route\'s own schema is left as it was')
  t.same(serializableSchema(Type.Union([Type.Null(), Type.String()])), { type: 'string', nullable: true }, 'either order')
  const three = Type.Union([Type.String(), Type.Integer(), Type.Null()])
  t.same(serializableSchema(three), JSON.parse(JSON.stringify(three)), 'other unions are left to the validator')
  const twoTypes = Type.Union([Type.String(), Type.Integer()])
  t.same(serializableSchema(twoTypes), JSON.parse(JSON.stringify(twoTypes)))
  t.same(serializableSchema(Type.Object({ list: Type.Array(Type.Union([Type.Integer(), Type.Null()])) })),
    { type: 'object', required: ['list'], properties: { list: { type: 'array', items: { type: 'integer', nullable: true } } } }, 'nested ones too')

  // me's answers, both shapes, serialized exactly as JSON.stringify writes them.
  const serialize = responseSerializerCompiler({ schema: MeResponse })
  const limits = { max_records_per_run: 1, calls_per_day: 2, calls_per_month: 3, retention_hours: 4, rate_limit_per_minute: 5, max_running_jobs: 6, max_queued_jobs: 7, max_file_mb: 8, max_job_files_mb: 9, max_pending_uploads_mb: 10, max_monitors: 11, min_monitor_interval_minutes: 12 }
  const guest = { user: null, tier: 'guest', limits, usage: null }
  t.equal(serialize(guest), JSON.stringify(guest))
  const app = await build(t)
  const u = await signup(app)
  const me = (await app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': u.apiKey } })).json()
  t.ok(me.user && me.usage, 'a user with usage')
  t.equal(serialize(me), JSON.stringify(me))
})
