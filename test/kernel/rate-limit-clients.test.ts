// Who a client is for the rate limit: TRUST_PROXY hops and lists (a client
// cannot rotate its own X-Forwarded-For), IPv6 by /64, IPv4-mapped as IPv4, a
// bounded memory whatever the number of addresses, and JSON-RPC batches that
// count every message.
import t from 'tap'
import { build, signup, PUBLIC_TOKEN } from '../helpers/build.ts'
import { manualClock } from '../../core/clock.ts'
import { clientKey, DEFAULT_MAX_CLIENTS, RateLimiter } from '../../core/quotas/rate-limiter.ts'
import { isDetail } from './_kernel.ts'

type App = Awaited<ReturnType<typeof build>>
const me = (app: App, remoteAddress: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: '/api/auth/me', remoteAddress, headers: { 'x-api-key': PUBLIC_TOKEN, ...headers } })

/** How many requests pass before the first 429 (at most `max`). */
async function passes (max: number, send: (i: number) => Promise<{ statusCode: number }>): Promise<number> {
  for (let i = 0; i < max; i++) if ((await send(i)).statusCode === 429) return i
  return max
}

t.test('clientKey: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', async t => {
  t.equal(clientKey('203.0.113.9'), '203.0.113.9')
  t.equal(clientKey('::ffff:203.0.113.9'), '203.0.113.9')
  t.equal(clientKey('2001:db8:1:2::1'), '2001:db8:1:2::/64')
  t.equal(clientKey('2001:0db8:0001:0002:ffff:ffff:ffff:fffe'), '2001:db8:1:2::/64')
  t.not(clientKey('2001:db8:1:3::1'), clientKey('2001:db8:1:2::1'))
  t.equal(clientKey('not-an-ip'), 'not-an-ip')
})

t.test('a million distinct addresses keep the limiter within its bound', async t => {
  const clock = manualClock('2026-01-01T00:00:00Z')
  const limiter = new RateLimiter(clock)
  let peak = 0
  for (let i = 0; i < 1_000_000; i++) {
    limiter.hit(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 60)
    if ((i & 0xffff) === 0) peak = Math.max(peak, limiter.size)
  }
  peak = Math.max(peak, limiter.size)
  t.ok(peak <= DEFAULT_MAX_CLIENTS, `at most ${DEFAULT_MAX_CLIENTS} windows held (peak ${peak})`)
  t.ok(limiter.size >= DEFAULT_MAX_CLIENTS / 2, 'recent clients are still held')

  const small = new RateLimiter(clock, 60_000, 4)
  for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) small.hit(ip, 1)
  t.ok(small.hit('10.0.0.1', 1) > 0, 'a client seen recently keeps its window')
  small.hit('10.0.0.4', 1)
  t.ok(small.size <= 4)
  t.ok(small.hit('10.0.0.1', 1) > 0, 'a client seen in the last generation is still limited')
  t.equal(small.hit('10.0.0.2', 1), 0, 'a client unseen for a whole generation was forgotten')
})

t.test('TRUST_PROXY=1: the address the nearest proxy saw; rotating the leftmost X-Forwarded-For does not escape', async t => {
  const app = await build(t, { env: { TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '3' } })
  const viaProxy = (xff: string) => me(app, '10.9.0.1', { 'x-forwarded-for': xff })
  const n = await passes(10, i => viaProxy(`198.18.${i}.${i + 1}, 203.0.113.7`))
  t.equal(n, 3, 'three requests, whatever the client wrote on the left')
  const over = await viaProxy('1.2.3.4, 203.0.113.7')
  t.equal(over.statusCode, 429)
  t.ok(isDetail(over.body))
  t.ok(Number(over.headers['retry-after']) >= 1, 'Retry-After')
  t.equal((await viaProxy('203.0.113.7, 203.0.113.8')).statusCode, 200, 'another client behind the same proxy has its own window')
  t.equal((await me(app, '10.9.0.1')).statusCode, 200, 'without the header the proxy itself is the client')
})

t.test('TRUST_PROXY=0 ignores X-Forwarded-For; a list trusts only the proxies named', async t => {
  const none = await build(t, { env: { RATE_LIMIT_PER_MINUTE: '2' } })
  t.equal(await passes(5, i => me(none, '10.8.0.1', { 'x-forwarded-for': `198.18.0.${i}` })), 2, 'keyed by the socket address')

  const listed = await build(t, { env: { TRUST_PROXY: '10.7.0.0/16, 192.0.2.1', RATE_LIMIT_PER_MINUTE: '2' } })
  t.equal(await passes(5, i => me(listed, '10.7.3.3', { 'x-forwarded-for': `198.18.1.${i}, 203.0.113.50, 192.0.2.1` })), 2,
    'through two listed proxies the client is the first address not listed, however the left side rotates')
  t.equal(await passes(5, i => me(listed, '10.6.0.9', { 'x-forwarded-for': `198.18.2.${i}` })), 2, 'a peer not listed is the client itself')
})

t.test('IPv6 clients share a window per /64; IPv4-mapped addresses count as IPv4', async t => {
  const app = await build(t, { env: { RATE_LIMIT_PER_MINUTE: '4' } })
  t.equal((await me(app, '2001:db8:a:b::1')).statusCode, 200)
  t.equal((await me(app, '2001:db8:a:b::2')).statusCode, 200)
  t.equal((await me(app, '2001:db8:a:b:1234:5678:9abc:def0')).statusCode, 200)
  t.equal((await me(app, '2001:db8:a:b:ffff::')).statusCode, 200)
  t.equal((await me(app, '2001:db8:a:b::99')).statusCode, 429, 'the fifth address of the /64 is over the limit')
  t.equal((await me(app, '2001:db8:a:c::1')).statusCode, 200, 'the next /64 is another client')

  for (let i = 0; i < 4; i++) await me(app, '192.0.2.44')
  t.equal((await me(app, '::ffff:192.0.2.44')).statusCode, 429, 'IPv4-mapped IPv6 shares the IPv4 window')
})

t.test('every message of a JSON-RPC batch on /mcp counts against the limit', async t => {
  const app = await build(t, { env: { RATE_LIMIT_PER_MINUTE: '5' } })
  const user = await signup(app)
  const batch = (n: number, ip: string) => app.inject({
    method: 'POST',
    url: '/mcp',
    remoteAddress: ip,
    headers: { authorization: `Bearer ${user.apiKey}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    payload: Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' })),
  })
  const first = await batch(5, '10.20.0.1')
  t.not(first.statusCode, 429, 'a batch of 5 fits a limit of 5')
  t.equal((await me(app, '10.20.0.1')).statusCode, 429, 'and uses the whole window')

  const big = await batch(100, '10.20.0.2')
  t.equal(big.statusCode, 429, 'a batch of 100 is refused whole')
  t.ok(isDetail(big.body))
  t.ok(big.headers['retry-after'])
})
