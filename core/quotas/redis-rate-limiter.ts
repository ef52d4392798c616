// The per-client rate limit shared by every API process (REDIS_URL): a sliding
// window of one minute kept in Redis as a sorted set per client (`ejs:rate:
// <client key>`, one member per request counted, scored by the Redis server's
// clock in ms). One Lua script drops what left the window, counts the rest
// and adds the new requests only when they fit, atomically: two processes
// counting the same client at once cannot both pass the last slot.
//
// Unlike the in-memory fixed window, a refused request is not counted: a
// client over the limit gets in again as soon as its oldest request is a
// minute old (Retry-After says when), however hard it keeps knocking.
// The client key is the same (clientKey: IPv4, the /64 of IPv6). A client's
// set holds at most `limit` members and expires a minute after its last hit.
// Redis unreachable: this process's own fixed window applies meanwhile (logged).
import type { Redis } from 'ioredis'
import { KEY_PREFIX, type RedisConnections } from '../redis/redis-connections.ts'
import { LUA_NOW_MS, RedisScript } from '../redis/redis-script.ts'
import { clientKey, type ClientRateLimiter, type RateLimiter } from './rate-limiter.ts'

/** 0 when the hits fit (and were counted), else the ms until they would. */
const SLIDING_WINDOW = new RedisScript(`
${LUA_NOW_MS}
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local weight = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
local count = redis.call('ZCARD', KEYS[1])
if count + weight <= limit then
  for i = 1, weight do redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. i) end
  redis.call('PEXPIRE', KEYS[1], windowMs)
  return 0
end
if weight > limit then return windowMs end
local index = count + weight - limit - 1
local oldest = redis.call('ZRANGE', KEYS[1], index, index, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + windowMs - now)`)

export class RedisRateLimiter implements ClientRateLimiter {
  private readonly connection: Redis
  /** Makes each counted request a distinct member: this process's tag and a counter. */
  private readonly tag = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  private sequence = 0

  constructor (private readonly redis: RedisConnections, private readonly fallback: RateLimiter, private readonly windowMs = 60_000) {
    this.connection = redis.connection('commands', { waits: false })
  }

  async hit (ip: string | undefined, limit: number, weight = 1): Promise<number> {
    if (!this.redis.usable(this.connection)) {
      this.redis.reportFallback('rate limit')
      return this.fallback.hit(ip, limit, weight)
    }
    try {
      const waitMs = Number(await SLIDING_WINDOW.run(this.connection, [`${KEY_PREFIX}rate:${clientKey(ip)}`], [this.windowMs, limit, weight, `${this.tag}:${++this.sequence}`]))
      return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0
    } catch (err) {
      this.redis.reportFallback('rate limit', err)
      return this.fallback.hit(ip, limit, weight)
    }
  }
}
