import t from 'tap'
import { build, signup, ADMIN_KEY, PUBLIC_TOKEN } from '../helpers/build.ts'

t.test('GET /api/health answers 200 with the database state', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/health' })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { status: 'ok', database: 'ok' })
})

t.test('GET /api/health with the database down: still 200, with any key or none, and the body says what is down', async t => {
  const app = await build(t)
  const user = await signup(app)
  // The database goes away: every query fails as a driver does when the server is unreachable.
  const down = async () => { throw Object.assign(new Error("Can't reach database server"), { code: 'P1001' }) }
  const { database, db } = app.services
  const hotSelect = database.hot.select
  const hotSelectUnchanged = database.hot.selectUnchanged
  const queryRaw = db.$queryRaw
  database.hot.select = down
  database.hot.selectUnchanged = down
  ;(db as unknown as { $queryRaw: unknown }).$queryRaw = down
  t.teardown(() => { database.hot.select = hotSelect; database.hot.selectUnchanged = hotSelectUnchanged; (db as unknown as { $queryRaw: unknown }).$queryRaw = queryRaw })

  for (const key of [undefined, user.apiKey, 'sk-not-a-real-key', 'scp-whatever', ADMIN_KEY, PUBLIC_TOKEN]) {
    const res = await app.inject({ method: 'GET', url: '/api/health', headers: key ? { 'x-api-key': key } : {} })
    t.equal(res.statusCode, 200, `key ${key?.slice(0, 4) ?? 'none'}`)
    t.match(res.json(), { status: 'degraded', database: 'unavailable' })
  }
  // Elsewhere the same outage is a 503 {detail}, as the spec's error table says.
  const me = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': user.apiKey } })
  t.equal(me.statusCode, 503)
  t.type(me.json().detail, 'string')
})

t.test('unknown route is a 404 {detail}', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/nope' })
  t.equal(res.statusCode, 404)
  t.type(res.json().detail, 'string')
})
