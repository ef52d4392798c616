// The shared state plugins get (createState's kit) and the kernel's locks:
// the same behaviour in memory and in Redis, shared across instances (the
// processes of a cluster) only in Redis, and a fallback to memory while Redis
// is away. Real redis-server (test/helpers/redis-server.ts), no timing goals:
// spacing is asserted as a lower bound.
import t, { type Test } from 'tap'
import pino from 'pino'
import { startRedis } from '../helpers/redis-server.ts'
import { RedisConnections } from '../../core/redis/redis-connections.ts'
import { MemorySharedState } from '../../core/shared-state/memory-shared-state.ts'
import { RedisSharedState } from '../../core/shared-state/redis-shared-state.ts'
import { LockBusyError, groupSharedState, type SharedStateService } from '../../core/shared-state/shared-state.ts'

const silent = pino({ level: 'silent' })

async function redisState (t: Test, url: string): Promise<{ state: RedisSharedState, connections: RedisConnections }> {
  const connections = new RedisConnections(url, silent)
  const state = new RedisSharedState(connections, new MemorySharedState())
  t.teardown(() => connections.close())
  t.ok(await connections.ready(5000), 'connected')
  return { state, connections }
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

async function behaves (t: Test, make: () => Promise<SharedStateService>) {
  const state = await make()
  const plugin = state.forTool('demo')

  t.equal(await plugin.increment('hits'), 1)
  t.equal(await plugin.increment('hits', 4), 5)
  t.equal(await plugin.getJson('hits'), 5, 'a counter reads as its number')

  t.equal(await plugin.getJson('missing'), undefined)
  const value = { engine: 'bing', at: '2026-11-26T10:00:00.000Z', list: [1, 2] }
  await plugin.setJson('obs', value)
  value.list.push(3)
  t.same(await plugin.getJson('obs'), { engine: 'bing', at: '2026-11-26T10:00:00.000Z', list: [1, 2] }, 'stored as it was when set')
  await plugin.delete('obs')
  t.equal(await plugin.getJson('obs'), undefined, 'deleted')

  t.equal(await state.forTool('other').getJson('hits'), undefined, 'another tool never sees these keys')

  // A state group (ToolStateKit.sharedGroup): what several tools share, apart from every tool's own keys.
  await groupSharedState(state, 'demo-group').setJson('seen', 'by one tool')
  t.equal(await groupSharedState(state, 'demo-group').getJson('seen'), 'by one tool', 'every view of a group reads the same keys')
  t.equal(await plugin.getJson('seen'), undefined, 'a tool\'s own keys are apart from the group\'s')
  t.equal(await groupSharedState(state, 'other-group').getJson('seen'), undefined, 'another group never sees them')
  t.throws(() => groupSharedState(state, 'Bad:Name'), /lower-case letters/, 'a group name is checked')

  await plugin.setJson('short', 'x', 60)
  await plugin.increment('window', 1, 60)
  await sleep(120)
  t.equal(await plugin.getJson('short'), undefined, 'a value expires after its TTL')
  t.equal(await plugin.increment('window', 1, 60), 1, 'an expired counter starts again')

  // Turns: one at a time, each starting at least the interval after the previous was done.
  const starts: number[] = []
  const ends: number[] = []
  await Promise.all([0, 1, 2].map(async () => {
    const done = await plugin.waitTurn('host:a', 150)
    starts.push(Date.now())
    await sleep(20)
    ends.push(Date.now())
    done()
  }))
  starts.sort((a, b) => a - b)
  ends.sort((a, b) => a - b)
  for (let i = 1; i < starts.length; i++) t.ok(starts[i]! - ends[i - 1]! >= 145, `turn ${i + 1} starts ${starts[i]! - ends[i - 1]!} ms after turn ${i} was done`)

  const held = await plugin.waitTurn('host:b', 10_000)
  const controller = new AbortController()
  const waiting = plugin.waitTurn('host:b', 10_000, { signal: controller.signal })
  setTimeout(() => controller.abort(new Error('job cancelled')), 50)
  await t.rejects(waiting, /job cancelled/, 'a waiting turn gives up with the signal')
  held()

  // A waiter that gives up does not open the key to the next one while the turn is still held.
  const holding = await plugin.waitTurn('host:c', 50)
  const quitter = new AbortController()
  const quitting = plugin.waitTurn('host:c', 50, { signal: quitter.signal })
  quitter.abort(new Error('gave up'))
  await t.rejects(quitting, /gave up/)
  let third = false
  const thirdTurn = plugin.waitTurn('host:c', 50).then(done => { third = true; return done })
  await sleep(100)
  t.notOk(third, 'the next waiter still waits for the turn held before the one that gave up')
  holding()
  ;(await thirdTurn)()
  t.ok(third, 'and gets it once that turn is done')

  const release = await state.lock('admit:acct', { ttlMs: 5000, waitMs: 5000 })
  await t.rejects(state.lock('admit:acct', { ttlMs: 5000, waitMs: 60 }), LockBusyError, 'a held lock is busy')
  let second = false
  const next = state.lock('admit:acct', { ttlMs: 5000, waitMs: 5000 }).then(r => { second = true; return r })
  await sleep(60)
  t.notOk(second, 'the next holder waits')
  await release()
  await release()
  const releaseNext = await next
  t.ok(second, 'and gets the lock once it is released')
  await releaseNext()
  const expiring = await state.lock('admit:gone', { ttlMs: 80, waitMs: 1000 })
  const afterExpiry = await state.lock('admit:gone', { ttlMs: 5000, waitMs: 2000 })
  t.pass('a lock its holder never released expires after its TTL')
  await expiring()
  await t.rejects(state.lock('admit:gone', { ttlMs: 5000, waitMs: 60 }), LockBusyError, 'the late release of the expired holder did not free the new holder\'s lock')
  await afterExpiry()
}

t.test('memory: counters, values, TTLs, turns and locks', async t => {
  await behaves(t, async () => new MemorySharedState())
})

t.test('redis: the same behaviour', async t => {
  const redis = await startRedis(t)
  await behaves(t, async () => (await redisState(t, redis.url)).state)
})

t.test('redis: two instances (two processes) share counters, values, turns and locks', async t => {
  const redis = await startRedis(t)
  const a = (await redisState(t, redis.url)).state
  const b = (await redisState(t, redis.url)).state
  await a.forTool('demo').increment('n', 2)
  t.equal(await b.forTool('demo').increment('n', 3), 5, 'one counter')
  await b.forTool('demo').setJson('seen', { by: 'b' })
  t.same(await a.forTool('demo').getJson('seen'), { by: 'b' }, 'one value')

  const starts: number[] = []
  const ends: number[] = []
  await Promise.all([a, b, a, b].map(async (state) => {
    const done = await state.forTool('maps').waitTurn('host:nominatim', 200)
    starts.push(Date.now())
    await sleep(10)
    ends.push(Date.now())
    done()
  }))
  starts.sort((x, y) => x - y)
  ends.sort((x, y) => x - y)
  for (let i = 1; i < starts.length; i++) t.ok(starts[i]! - ends[i - 1]! >= 190, `turn ${i + 1} starts ${starts[i]! - ends[i - 1]!} ms after the previous was done, whichever instance held it`)

  const release = await a.lock('admit:x', { ttlMs: 5000, waitMs: 1000 })
  await t.rejects(b.lock('admit:x', { ttlMs: 5000, waitMs: 80 }), LockBusyError, 'a lock held by one instance is busy for the other')
  await release()
  await (await b.lock('admit:x', { ttlMs: 5000, waitMs: 1000 }))()
})

t.test('redis unreachable: each instance falls back to its own memory, and shares again once Redis is back', async t => {
  const redis = await startRedis(t)
  const { state, connections } = await redisState(t, redis.url)
  await redis.stop()
  const deadline = Date.now() + 5000
  while (connections.usable(connections.connection('commands', { waits: false })) && Date.now() < deadline) await sleep(20)
  t.equal(await state.forTool('demo').increment('n'), 1, 'a counter still counts (in this process)')
  const done = await state.forTool('demo').waitTurn('host:x', 10)
  done()
  await (await state.lock('admit:y', { ttlMs: 1000, waitMs: 100 }))()
  t.pass('turns and locks still work')
  await redis.start()
  t.ok(await connections.ready(5000), 'reconnected')
  const other = (await redisState(t, redis.url)).state
  await other.forTool('demo').setJson('back', true)
  t.equal(await state.forTool('demo').getJson('back'), true, 'shared again')
})
