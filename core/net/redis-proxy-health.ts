// The outbound proxies' health shared by every process (REDIS_URL): a proxy
// one worker found dead cools down for all, and every process shows the same
// health in its metrics and its search status record.
//
// - Redis keeps each proxy's counts in one hash (`ejs:proxy-health`, a field
//   per proxy named by a hash of its URL, so no credential is stored): the
//   consecutive failures, the total, the last error and when its cooldown ends
//   (the Redis server's clock). A failure and a recovery (a success after
//   failures) are each one Lua script that updates the field and publishes the
//   result on `ejs:proxy-health`; the reporting process applies the script's
//   answer, the others the message.
// - The request path never waits for Redis: a pick reads this process's view,
//   a success on a healthy proxy sends nothing, and a failure is counted here
//   at once (so this process skips a dead proxy even while Redis is slow) and
//   sent without being awaited.
// - A process starting, or its subscriber reconnecting, reads the whole hash:
//   a cooldown that began elsewhere meanwhile is not missed.
// - Redis unreachable: reports are dropped (logged once a minute) and each
//   process keeps its own view until Redis is back.
import { createHash, randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Logger } from '../logger.ts'
import { KEY_PREFIX, type RedisConnections } from '../redis/redis-connections.ts'
import { LUA_NOW_MS, RedisScript } from '../redis/redis-script.ts'
import type { ProxyHealthSync, ProxyPool, SharedProxyHealth } from './proxy-pool.ts'

const HASH = `${KEY_PREFIX}proxy-health`
const CHANNEL = `${KEY_PREFIX}proxy-health`
/** The hash outlives the longest cooldown by a day after its last change, then goes (a proxy removed from PROXY_URLS leaves nothing behind). */
const KEEP_MS = 24 * 3_600_000

/** What the scripts answer and publish: a proxy's shared state, the cooldown as time left (every process's clock agrees on that much). */
interface Published { origin: string, id: string, consecutive: number, failures: number, lastError: string | null, cooldownRemainingMs: number }

/** Reads a field (a JSON object, or a fresh one), applies ARGV's change, stores it, and publishes and returns it with the time left. */
const UPDATE_LUA = (change: string) => `
${LUA_NOW_MS}
local field = ARGV[1]
local raw = redis.call('HGET', KEYS[1], field)
local s = raw and cjson.decode(raw) or { consecutive = 0, failures = 0, coolingUntil = 0 }
${change}
redis.call('HSET', KEYS[1], field, cjson.encode(s))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
local last = s.lastError
if last == nil then last = cjson.null end
local out = cjson.encode({ origin = ARGV[2], id = field, consecutive = s.consecutive, failures = s.failures, lastError = last, cooldownRemainingMs = math.max(0, s.coolingUntil - now) })
redis.call('PUBLISH', KEYS[2], out)
return out`

/** ARGV: field, origin, keep ms, reason, failure limit, cooldown ms. */
const FAILED = new RedisScript(UPDATE_LUA(`
s.consecutive = s.consecutive + 1
s.failures = s.failures + 1
s.lastError = ARGV[4]
if s.consecutive >= tonumber(ARGV[5]) then s.coolingUntil = now + tonumber(ARGV[6]) end`))

/** ARGV: field, origin, keep ms. */
const RECOVERED = new RedisScript(UPDATE_LUA(`
s.consecutive = 0
s.coolingUntil = 0`))

/** Every field with its cooldown's time left: {now, field, json, field, json, ...}. */
const SNAPSHOT = new RedisScript(`
${LUA_NOW_MS}
local out = { now }
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do out[#out + 1] = all[i]; out[#out + 1] = all[i + 1] end
return out`)

/** The field naming a proxy: a hash of its URL (the same PROXY_URLS give the same fields in every process). */
const proxyId = (url: string): string => createHash('sha256').update(url).digest('hex').slice(0, 16)

export class RedisProxyHealth implements ProxyHealthSync {
  private readonly origin = randomUUID()
  private readonly commands: Redis
  private readonly subscriber: Redis
  private readonly ids: string[]
  private readonly indexOf: Map<string, number>
  private readonly onMessage = (channel: string, message: string) => this.deliver(channel, message)
  private readonly onReady = () => { void this.listen() }
  private closed = false
  /** Reports sent whose answer has not come: an answer is applied only when it is the last, so a stale one never undoes a newer local count. */
  private readonly pending: number[]
  private listened: () => void = () => {}
  /** Subscribed and the current state read, the first time (a test waits for it before it reports). */
  readonly ready = new Promise<void>(resolve => { this.listened = resolve })

  constructor (private readonly pool: ProxyPool, private readonly redis: RedisConnections, private readonly options: { failureLimit: number, cooldownMs: number, logger: Logger }) {
    this.ids = pool.urls().map(proxyId)
    this.indexOf = new Map(this.ids.map((id, index) => [id, index]))
    this.pending = this.ids.map(() => 0)
    this.commands = redis.connection('commands', { waits: false })
    this.subscriber = redis.connection('proxy-health-subscribe', { waits: true })
    this.subscriber.on('message', this.onMessage)
    this.subscriber.on('ready', this.onReady)
    if (this.subscriber.status === 'ready') void this.listen()
    pool.shareWith(this)
  }

  failed (index: number, reason: string): void {
    this.send('proxy health (failure)', FAILED, index, [reason, this.options.failureLimit, this.options.cooldownMs])
  }

  recovered (index: number): void {
    this.send('proxy health (recovery)', RECOVERED, index, [])
  }

  close (): void {
    this.closed = true
    this.pool.shareWith(null)
    this.subscriber.off('message', this.onMessage)
    this.subscriber.off('ready', this.onReady)
    this.subscriber.unsubscribe(CHANNEL).catch(() => {})
  }

  private send (what: string, script: RedisScript, index: number, extra: Array<string | number>): void {
    const id = this.ids[index]
    if (id === undefined || this.closed) return
    if (!this.redis.usable(this.commands)) { this.redis.reportFallback(what); return }
    this.pending[index]!++
    script.run(this.commands, [HASH, CHANNEL], [id, this.origin, KEEP_MS + this.options.cooldownMs, ...extra]).then(
      answer => { if (--this.pending[index]! === 0) this.apply(JSON.parse(String(answer)) as Published, true) },
      err => { this.pending[index]!--; this.redis.reportFallback(what, err) })
  }

  private deliver (channel: string, message: string): void {
    if (channel !== CHANNEL || this.closed) return
    let published: Published
    try { published = JSON.parse(message) as Published } catch { return }
    // This process's own report was applied from the script's answer.
    if (published.origin === this.origin) return
    this.apply(published, false)
  }

  private apply (published: Published, here: boolean): void {
    const index = this.indexOf.get(published.id)
    if (index === undefined || this.closed) return
    const shared: SharedProxyHealth = { consecutive: published.consecutive, failures: published.failures, lastError: published.lastError, cooldownRemainingMs: published.cooldownRemainingMs }
    this.pool.applyShared(index, shared, here)
  }

  /** (Re)subscribes, then reads every proxy's state: changes published while this process was not listening are not lost. */
  private async listen (): Promise<void> {
    try {
      await this.subscriber.subscribe(CHANNEL)
      const [now, ...fields] = await SNAPSHOT.run(this.commands, [HASH], []) as [number, ...string[]]
      for (let i = 0; i + 1 < fields.length; i += 2) {
        const stored = JSON.parse(fields[i + 1]!) as { consecutive: number, failures: number, lastError?: string | null, coolingUntil: number }
        this.apply({ origin: '', id: fields[i]!, consecutive: stored.consecutive, failures: stored.failures, lastError: stored.lastError ?? null, cooldownRemainingMs: Math.max(0, stored.coolingUntil - Number(now)) }, false)
      }
    } catch (err) {
      if (!this.closed) this.options.logger.warn({ err: { message: (err as Error).message } }, 'proxy health: shared state not read; this process keeps its own view until Redis answers')
    } finally {
      this.listened()
    }
  }
}
