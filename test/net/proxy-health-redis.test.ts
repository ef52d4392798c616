// The proxies' health shared over Redis (core/net/redis-proxy-health.ts): two
// pools over one Redis count failures together, a cool-down begun by one is
// seen by the other (and by a process that starts later), a success anywhere
// ends it everywhere, and the metrics count a cool-down once, where it began.
// Through the kernel: two apps (an API process and a worker) with one Redis,
// the worker's dead proxy shown in the other's search status record and metrics.
import t from 'tap'
import pino from 'pino'
import { manualClock } from '../../core/clock.ts'
import { ProxyPool } from '../../core/net/proxy-pool.ts'
import { RedisProxyHealth } from '../../core/net/redis-proxy-health.ts'
import { RedisConnections } from '../../core/redis/redis-connections.ts'
import { ADMIN_KEY, build, signup } from '../helpers/build.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { scrape, valueOf } from '../helpers/metrics.ts'
import { call } from '../kernel/_kernel.ts'

const DEAD = 'http://user:secret@127.0.0.1:9'
const LIVE = 'http://127.0.0.1:10'
const OPTIONS = { rotation: 'request' as const, failureLimit: 2, cooldownMs: 60_000 }

/** Polls `check` until it holds (pub/sub is asynchronous), at most 5 s. */
async function until (check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

async function processOver (t: Parameters<typeof build>[0], url: string) {
  const connections = new RedisConnections(url, pino({ level: 'silent' }))
  t.teardown(() => connections.close())
  const pool = new ProxyPool([DEAD, LIVE], { ...OPTIONS, clock: manualClock() })
  const sync = new RedisProxyHealth(pool, connections, { ...OPTIONS, logger: pino({ level: 'silent' }) })
  t.teardown(() => sync.close())
  await sync.ready
  const begun: number[] = []
  pool.onHealthChange((health, index, here) => { if (health.cooling_down && here) begun.push(index) })
  return { pool, sync, begun }
}

t.test('two pools over one Redis: failures counted together, a cool-down shared, a success ends it for both', async t => {
  const redis = await startRedis(t)
  const a = await processOver(t, redis.url)
  const b = await processOver(t, redis.url)

  a.pool.chooser()!.failed(DEAD, 'could not connect')
  await until(() => b.pool.health()[0]!.consecutive_failures === 1, 'B to hear A\'s failure')
  t.match(b.pool.health()[0], { ok: false, cooling_down: false, failures: 1, last_error: 'could not connect' })

  // The second failure in a row, in the other process: the cluster's count reaches the limit.
  b.pool.chooser()!.failed(DEAD, 'connection reset')
  await until(() => a.pool.health()[0]!.cooling_down, 'A to see the cool-down B began')
  await until(() => b.pool.health()[0]!.cooling_down, 'B to have its answer')
  for (const { pool } of [a, b]) {
    t.match(pool.health()[0], { ok: false, consecutive_failures: 2, failures: 2, cooling_down: true, cooldown_remaining_s: 60, last_error: 'connection reset' })
    const chooser = pool.chooser()!
    t.same([chooser.pick(), chooser.pick()], [LIVE, LIVE], 'the dead proxy is skipped in both processes')
  }
  t.same(b.begun, [0], 'the cool-down counted where it began')
  t.same(a.begun, [], 'and not again where it was heard')
  t.same(a.pool.health()[0]!.requests, 0, 'requests are each process\'s own count')

  // A process that starts now reads the cool-down in progress.
  const late = await processOver(t, redis.url)
  t.match(late.pool.health()[0], { cooling_down: true, consecutive_failures: 2, failures: 2 })

  // One answer through it anywhere resets it everywhere.
  a.pool.chooser()!.succeeded(DEAD)
  await until(() => !b.pool.health()[0]!.cooling_down && !late.pool.health()[0]!.cooling_down, 'the recovery to reach B and the late one')
  t.match(b.pool.health()[0], { ok: true, consecutive_failures: 0, failures: 2 })

  // Closed: its own view again, nothing sent.
  b.sync.close()
  b.pool.chooser()!.failed(DEAD, 'could not connect')
  await new Promise(resolve => setTimeout(resolve, 100))
  t.equal(a.pool.health()[0]!.consecutive_failures, 0, 'a closed sync reports nothing')
})

t.test('through the kernel: a proxy the worker found dead is cooling down in the API process\'s status record and metrics', async t => {
  const redis = await startRedis(t)
  const env = { REDIS_URL: redis.url, ALLOW_PRIVATE_TARGETS: '1', PROXY_URLS: `${DEAD}, ${LIVE}`, PROXY_FAILURE_LIMIT: '2', PROXY_COOLDOWN_MS: '60000' }
  const api = await build(t, { env })
  const worker = await build(t, { env: { ...env, RUN_JOBS: '1' } })
  await (worker.services.net.shared as RedisProxyHealth).ready
  await (api.services.net.shared as RedisProxyHealth).ready
  const before = valueOf(await scrape(api), 'proxy_cooldowns_total', { proxy: '0' })

  const chooser = worker.services.net.proxies.chooser()!
  chooser.failed(DEAD, 'could not connect')
  chooser.failed(DEAD, 'could not connect')
  await until(() => api.services.net.proxies.health()[0]!.cooling_down, 'the API process to hear the cool-down')

  const user = await signup(api)
  const status = await call(api, 'GET', '/api/search/status', user.apiKey)
  t.equal(status.statusCode, 200)
  t.match(status.json().proxy_health[0], { proxy: 'http://127.0.0.1:9', ok: false, cooling_down: true, consecutive_failures: 2, failures: 2 })
  t.notMatch(status.body, /secret/)

  const samples = await scrape(api)
  t.equal(valueOf(samples, 'proxy_cooling_down', { proxy: '0' }), 1, 'the API process\'s metrics show it cooling')
  t.equal(valueOf(samples, 'proxy_up', { proxy: '0' }), 0)
  t.equal(valueOf(samples, 'proxy_cooldowns_total', { proxy: '0' }) - before, 0, 'counted by the worker, where it began, not here')
  t.equal(valueOf(await scrape(worker), 'proxy_cooldowns_total', { proxy: '0' }), 1, 'the worker counted it')
  const res = await api.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': ADMIN_KEY } })
  t.notMatch(res.body, /secret/)
})
