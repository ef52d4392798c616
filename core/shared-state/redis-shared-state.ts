// Shared state in Redis (REDIS_URL): every API and worker process reads and
// writes the same counters, values, turns and locks. Each operation that
// reads and then writes is one Lua script (atomic on the server), and times
// come from the Redis server's clock, so machines whose clocks differ still
// agree on a window, a turn or a lease.
//
// While Redis is unreachable (or a command fails) every operation falls back
// to this process's MemorySharedState, logged once a minute: a request or a
// job never fails for want of Redis, it only loses the sharing meanwhile.
//
// Keys: `ejs:state:<tool>:<key>` (values and counters), `ejs:turn:<tool>:<key>`
// (a hash: holder, lease, next), `ejs:lock:<key>` (token, with a TTL).
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { KEY_PREFIX, type RedisConnections } from '../redis/redis-connections.ts'
import { LUA_NOW_MS, RedisScript } from '../redis/redis-script.ts'
import type { MemorySharedState } from './memory-shared-state.ts'
import { DEFAULT_MAX_TURN_MS, LockBusyError, ToolSharedState, pause, type LockOptions, type LockRelease, type SharedState, type SharedStateService } from './shared-state.ts'

const STATE_PREFIX = `${KEY_PREFIX}state:`
const TURN_PREFIX = `${KEY_PREFIX}turn:`
const LOCK_PREFIX = `${KEY_PREFIX}lock:`
/** How often a waiter asks again while another process holds the turn or the lock. */
const POLL_MS = 25

/** INCRBY, and the TTL when the counter has none yet (it was just created). */
const INCREMENT = new RedisScript(`
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2])
if ttl > 0 and redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIRE', KEYS[1], ttl) end
return value`)

/**
 * Takes the turn when it is free and the interval since the last one has
 * passed: {0, 0}. Else {1, ms the holder's lease still runs} or {2, ms until
 * the interval has passed}. A holder whose lease ran out ended its turn then.
 */
const TAKE_TURN = new RedisScript(`
${LUA_NOW_MS}
local interval = tonumber(ARGV[2])
local maxTurn = tonumber(ARGV[3])
local holder = redis.call('HGET', KEYS[1], 'holder')
local nextAt = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
if holder then
  local leaseUntil = tonumber(redis.call('HGET', KEYS[1], 'lease') or '0')
  if leaseUntil > now then return {1, leaseUntil - now} end
  nextAt = math.max(nextAt, leaseUntil + interval)
  redis.call('HDEL', KEYS[1], 'holder', 'lease')
  redis.call('HSET', KEYS[1], 'next', nextAt)
  redis.call('PEXPIRE', KEYS[1], interval + 60000)
end
if nextAt > now then return {2, nextAt - now} end
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'lease', now + maxTurn)
redis.call('PEXPIRE', KEYS[1], maxTurn + interval + 60000)
return {0, 0}`)

/** Ends the turn when this token still holds it: the next may start `interval` from now. */
const END_TURN = new RedisScript(`
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
${LUA_NOW_MS}
local interval = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'next', now + interval)
redis.call('HDEL', KEYS[1], 'holder', 'lease')
redis.call('PEXPIRE', KEYS[1], interval + 60000)
return 1`)

/** Deletes the lock only when this token still holds it (not a lock taken by another after ours expired). */
const RELEASE_LOCK = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

export class RedisSharedState implements SharedStateService {
  private readonly connection: Redis

  constructor (private readonly redis: RedisConnections, private readonly fallback: MemorySharedState) {
    this.connection = redis.connection('commands', { waits: false })
  }

  forTool (toolKey: string): SharedState { return new ToolSharedState(this, `${toolKey}:`) }

  /** `remote` through Redis, or `local` in this process when Redis is unreachable or the command fails. */
  private async either<T> (what: string, remote: (connection: Redis) => Promise<T>, local: () => Promise<T>): Promise<T> {
    if (!this.redis.usable(this.connection)) {
      this.redis.reportFallback(what)
      return local()
    }
    try {
      return await remote(this.connection)
    } catch (err) {
      this.redis.reportFallback(what, err)
      return local()
    }
  }

  increment (key: string, by = 1, ttlMs?: number): Promise<number> {
    return this.either('shared counters',
      async c => Number(await INCREMENT.run(c, [STATE_PREFIX + key], [Math.trunc(by), ttlMs ? Math.ceil(ttlMs) : 0])),
      () => this.fallback.increment(key, by, ttlMs))
  }

  getJson<T = unknown> (key: string): Promise<T | undefined> {
    return this.either('shared values',
      async c => {
        const text = await c.get(STATE_PREFIX + key)
        return text === null ? undefined : JSON.parse(text) as T
      },
      () => this.fallback.getJson<T>(key))
  }

  setJson (key: string, value: unknown, ttlMs?: number): Promise<void> {
    const text = JSON.stringify(value)
    return this.either('shared values',
      async c => { await (ttlMs ? c.set(STATE_PREFIX + key, text, 'PX', Math.ceil(ttlMs)) : c.set(STATE_PREFIX + key, text)) },
      () => this.fallback.setJson(key, value, ttlMs))
  }

  delete (key: string): Promise<void> {
    return this.either('shared values', async c => { await c.del(STATE_PREFIX + key) }, () => this.fallback.delete(key))
  }

  async waitTurn (key: string, intervalMs: number, options: { signal?: AbortSignal, maxTurnMs?: number } = {}): Promise<() => void> {
    const { signal } = options
    const maxTurnMs = options.maxTurnMs ?? DEFAULT_MAX_TURN_MS
    const redisKey = TURN_PREFIX + key
    const token = randomUUID()
    for (;;) {
      signal?.throwIfAborted()
      let answer: [number, number] | null = null
      try {
        if (this.redis.usable(this.connection)) answer = await TAKE_TURN.run(this.connection, [redisKey], [token, Math.ceil(intervalMs), Math.ceil(maxTurnMs)]) as [number, number]
        else this.redis.reportFallback('politeness turns')
      } catch (err) {
        this.redis.reportFallback('politeness turns', err)
      }
      if (!answer) return this.fallback.waitTurn(key, intervalMs, options)
      const [state, ms] = answer
      if (state === 0) {
        let done = false
        return () => {
          if (done) return
          done = true
          END_TURN.run(this.connection, [redisKey], [token, Math.ceil(intervalMs)]).catch((err: unknown) => this.redis.reportFallback('politeness turns', err))
        }
      }
      // Held elsewhere: ask again soon. Spacing: sleep exactly until the interval has passed.
      await pause(state === 1 ? Math.min(ms, POLL_MS) : ms, signal)
    }
  }

  async lock (key: string, options: LockOptions): Promise<LockRelease> {
    const redisKey = LOCK_PREFIX + key
    const token = randomUUID()
    const deadline = Date.now() + options.waitMs
    for (;;) {
      let taken: boolean | null = null
      try {
        if (this.redis.usable(this.connection)) taken = (await this.connection.set(redisKey, token, 'PX', Math.ceil(options.ttlMs), 'NX')) === 'OK'
        else this.redis.reportFallback('locks')
      } catch (err) {
        this.redis.reportFallback('locks', err)
      }
      if (taken === null) return this.fallback.lock(key, options)
      if (taken) {
        let released = false
        return async () => {
          if (released) return
          released = true
          // Unreachable now: the lock expires by its TTL.
          if (!this.redis.usable(this.connection)) return
          await RELEASE_LOCK.run(this.connection, [redisKey], [token]).catch(() => {})
        }
      }
      const left = deadline - Date.now()
      if (left <= 0) throw new LockBusyError(key)
      await pause(Math.min(left, POLL_MS + Math.random() * POLL_MS))
    }
  }
}
