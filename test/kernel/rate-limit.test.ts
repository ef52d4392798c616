import t from 'tap'
import { build, signup, PUBLIC_TOKEN } from '../helpers/build.ts'
import { manualClock } from '../../core/clock.ts'
import { call, isDetail } from './_kernel.ts'

const fromIp = (app: Awaited<ReturnType<typeof build>>, ip: string, key?: string) =>
  app.inject({ method: 'GET', url: '/api/auth/me', remoteAddress: ip, headers: key ? { 'x-api-key': key } : {} })

t.test('per-IP limit: 429 with Retry-After after RATE_LIMIT_PER_MINUTE, reset after the window', async t => {
  const clock = manualClock('2026-01-01T00:00:10Z')
  const app = await build(t, { clock, env: { RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_PRO_PER_MINUTE: '8' } })
  for (let i = 0; i < 5; i++) t.equal((await fromIp(app, '10.0.0.1', PUBLIC_TOKEN)).statusCode, 200, `request ${i + 1}`)
  const over = await fromIp(app, '10.0.0.1', PUBLIC_TOKEN)
  t.equal(over.statusCode, 429)
  t.ok(isDetail(over.body))
  t.equal(over.headers['retry-after'], '60')
  t.equal((await fromIp(app, '10.0.0.2', PUBLIC_TOKEN)).statusCode, 200, 'another IP is not affected')
  clock.advance(20_000)
  t.equal((await fromIp(app, '10.0.0.1', PUBLIC_TOKEN)).headers['retry-after'], '40', 'Retry-After counts down')
  clock.advance(40_000)
  t.equal((await fromIp(app, '10.0.0.1', PUBLIC_TOKEN)).statusCode, 200, 'a new window')
})

t.test('the limit counts every endpoint (and no key) but not /api/health', async t => {
  const app = await build(t, { env: { RATE_LIMIT_PER_MINUTE: '3' } })
  for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: '/api/auth/me', remoteAddress: '10.1.0.1' })
  const signup = await app.inject({ method: 'POST', url: '/api/auth/signup', remoteAddress: '10.1.0.1', payload: { email: 'r@example.com', password: 'password123' } })
  t.equal(signup.statusCode, 429, 'signup is limited too')
  t.equal((await app.inject({ method: 'GET', url: '/api/nope', remoteAddress: '10.1.0.1' })).statusCode, 429, 'so is an unknown route')
  for (let i = 0; i < 10; i++) {
    const h = await app.inject({ method: 'GET', url: '/api/health', remoteAddress: '10.1.0.1' })
    if (h.statusCode !== 200) { t.fail('health was limited'); break }
  }
  t.equal((await app.inject({ method: 'GET', url: '/api/health?x=1', remoteAddress: '10.1.0.1' })).statusCode, 200, 'health with a query string')
})

t.test('a Pro key gets RATE_LIMIT_PRO_PER_MINUTE', async t => {
  const app = await build(t, { env: { RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PRO_PER_MINUTE: '7' } })
  const reg = await signup(app)
  const pro = await signup(app)
  await call(app, 'POST', '/api/auth/claim-pro', pro.apiKey)
  let n = 0
  while (n < 20 && (await fromIp(app, '10.2.0.1', reg.apiKey)).statusCode === 200) n++
  t.equal(n, 3, 'registered: 3 a minute')
  n = 0
  while (n < 20 && (await fromIp(app, '10.3.0.1', pro.apiKey)).statusCode === 200) n++
  t.equal(n, 7, 'pro: 7 a minute')
  const body = (await fromIp(app, '10.4.0.1', pro.apiKey)).json()
  t.equal(body.limits.rate_limit_per_minute, 7, 'me reports the Pro rate limit')
})

t.test('the defaults are 60 and 600 a minute', async t => {
  const app = await build(t, { env: { RATE_LIMIT_PER_MINUTE: undefined, RATE_LIMIT_PRO_PER_MINUTE: undefined } })
  t.equal(app.services.config.rateLimitPerMinute, 60)
  t.equal(app.services.config.rateLimitProPerMinute, 600)
  let n = 0
  while (n < 100 && (await app.inject({ method: 'GET', url: '/api/auth/me', remoteAddress: '10.5.0.1' })).statusCode !== 429) n++
  t.equal(n, 60)
})
