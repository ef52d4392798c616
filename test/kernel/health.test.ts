import t from 'tap'
import { build } from '../helpers/build.ts'

t.test('GET /api/health answers 200 with the database state', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/health' })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { status: 'ok', database: 'ok' })
})

t.test('unknown route is a 404 {detail}', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/nope' })
  t.equal(res.statusCode, 404)
  t.type(res.json().detail, 'string')
})
