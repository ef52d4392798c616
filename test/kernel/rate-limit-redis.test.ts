// The per-client rate limit with REDIS_URL: one sliding window per client in
// Redis, shared by every API process (two apps here), with the same client
// key (IPv4, an IPv6 /64, IPv4-mapped as IPv4); while Redis is away each
// process limits on its own and nothing fails.
import t from 'tap'
import pino from 'pino'
import type { FastifyInstance } from 'fastify'
import { build, PUBLIC_TOKEN } from '../helpers/build.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { isDetail } from './_kernel.ts'
import { RedisConnections } from '../../core/redis/redis-connections.ts'
import { RedisRateLimiter } from '../../core/quotas/redis-rate-limiter.ts'
import { RateLimiter } from '../../core/quotas/rate-limiter.ts'

const me = (app: FastifyInstance, ip: string) =>
  app.inject({ method: 'GET', url: '/api/auth/me', remoteAddress: ip, headers: { 'x-api-key': PUBLIC_TOKEN } })

t.test('two API processes share one window per client: the second answers 429 once the first used it', async t => {
  const redis = await startRedis(t)
  const env = { REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '5' }
  const a = await build(t, { env })
  const b = await build(t, { env })
  for (let i = 0; i < 3; i++) t.equal((await me(a, '10.9.0.1')).statusCode, 200, `request ${i + 1} on A`)
  for (let i = 0; i < 2; i++) t.equal((await me(b, '10.9.0.1')).statusCode, 200, `request ${i + 4} on B`)
  const over = await me(b, '10.9.0.1')
  t.equal(over.statusCode, 429, 'the sixth, on B, is over the limit the two counted together')
  t.ok(isDetail(over.body))
  const retry = Number(over.headers['retry-after'])
  t.ok(retry >= 1 && retry <= 60, `Retry-After ${retry} s: until the oldest request leaves the window`)
  t.equal((await me(a, '10.9.0.1')).statusCode, 429, 'A refuses it too')
  t.equal((await me(a, '10.9.0.2')).statusCode, 200, 'another client is not affected')

  // The client key is the same as in memory: an IPv6 /64 is one client, an IPv4-mapped address is its IPv4 address.
  for (let i = 0; i < 5; i++) t.equal((await me(i % 2 ? a : b, `2001:db8:1:2::${i + 1}`)).statusCode, 200)
  t.equal((await me(a, '2001:db8:1:2:ffff::9')).statusCode, 429, 'another address of the same /64, on the other process')
  t.equal((await me(b, '2001:db8:1:3::1')).statusCode, 200, 'the next /64 is another client')
  for (let i = 0; i < 5; i++) await me(a, '10.9.0.3')
  t.equal((await me(b, '::ffff:10.9.0.3')).statusCode, 429, 'an IPv4-mapped address is its IPv4 client')
})

t.test('sliding window: a refused request is not counted, a hit leaves the window a window after it came', async t => {
  const redis = await startRedis(t)
  const connections = new RedisConnections(redis.url, pino({ level: 'silent' }))
  t.teardown(() => connections.close())
  const limiter = new RedisRateLimiter(connections, new RateLimiter(() => new Date()), 400)
  const other = new RedisRateLimiter(connections, new RateLimiter(() => new Date()), 400)
  t.ok(await connections.ready(5000))
  t.equal(await limiter.hit('10.8.0.1', 2), 0)
  t.equal(await other.hit('10.8.0.1', 2), 0)
  t.equal(await limiter.hit('10.8.0.1', 2), 1, 'over: wait (at least) a second')
  t.equal(await other.hit('10.8.0.1', 2, 3), 1, 'a weight over the limit is refused whole')
  await new Promise(resolve => setTimeout(resolve, 450))
  t.equal(await limiter.hit('10.8.0.1', 2, 2), 0, 'a window later both hits have left it; the refused ones never counted')
  t.equal(await other.hit('10.8.0.1', 2), 1)
})

t.test('Redis away: each process limits on its own, nothing fails; shared again when Redis is back', async t => {
  const redis = await startRedis(t)
  const env = { REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '3' }
  const a = await build(t, { env })
  const b = await build(t, { env })
  await redis.stop()
  const codes: number[] = []
  for (let i = 0; i < 4; i++) codes.push((await me(a, '10.7.0.1')).statusCode)
  t.same(codes, [200, 200, 200, 429], 'A counts in its own memory')
  t.equal((await me(b, '10.7.0.1')).statusCode, 200, 'B has its own window meanwhile')
  await redis.start()
  const services = [a, b].map(app => app.services.redis!)
  t.ok((await Promise.all(services.map(s => s.ready(5000)))).every(Boolean), 'both reconnected')
  for (let i = 0; i < 3; i++) t.equal((await me(a, '10.7.0.9')).statusCode, 200)
  t.equal((await me(b, '10.7.0.9')).statusCode, 429, 'one window again')
})
