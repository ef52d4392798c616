// A Lua script run by its SHA (EVALSHA), loaded again with EVAL when Redis
// answers NOSCRIPT (after a restart or SCRIPT FLUSH). Each script is one
// atomic step: what several processes must not interleave (a rate-limit
// window, a lock, a turn) happens inside one.
import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'

export class RedisScript {
  private readonly sha: string

  constructor (readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex')
  }

  async run (connection: Redis, keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await connection.evalsha(this.sha, keys.length, ...keys, ...args)
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err
      return connection.eval(this.lua, keys.length, ...keys, ...args)
    }
  }
}

/** Lua: the Redis server's clock in ms, the one clock every process agrees on. */
export const LUA_NOW_MS = "local __t = redis.call('TIME'); local now = tonumber(__t[1]) * 1000 + math.floor(tonumber(__t[2]) / 1000)"
