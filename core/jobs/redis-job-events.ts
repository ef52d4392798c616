// Job events over Redis pub/sub (REDIS_URL): a job run by any process is
// followed from any API process (WebSocket, MCP progress, sync waits).
//
// - One channel per job (`ejs:job-events:<id>`), one subscriber connection per
//   process: the first local listener of a job subscribes its channel, the last
//   one to leave unsubscribes it, so a process only receives the jobs someone
//   here follows.
// - Listeners in the emitting process hear the event at once, without Redis (a
//   one-process deployment with REDIS_URL keeps working while Redis is down);
//   each message carries its process's origin and a process ignores its own.
// - While Redis is unreachable a progress event is dropped (the next one, or the
//   final event, replaces it); a final event waits in ioredis' queue and is
//   published when Redis is back.
// - After a reconnection the subscriber subscribes its channels again and then
//   calls every subscription's `onResume`: events published meanwhile are
//   lost, so listeners that wait for the end read the stored status again.
import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import type { Logger } from '../logger.ts'
import { KEY_PREFIX, type RedisConnections } from '../redis/redis-connections.ts'
import type { JobEvent, JobEvents, JobSubscription, JobSubscriptionOptions } from './job-events.ts'

const CHANNEL_PREFIX = `${KEY_PREFIX}job-events:`

interface ChannelEntry { listeners: number, subscribed: Promise<void> }
interface Envelope { origin: string, event: JobEvent }

export class RedisJobEvents implements JobEvents {
  private readonly local = new EventEmitter()
  /** This process, so it can ignore its own messages (its listeners already heard them). */
  private readonly origin = randomUUID()
  private readonly publisher: Redis
  private readonly subscriber: Redis
  private readonly channels = new Map<string, ChannelEntry>()
  private readonly resumers = new Set<() => void>()
  private connectedBefore = false
  private readonly onMessage = (channel: string, message: string) => this.deliver(channel, message)
  private readonly onReady = () => { void this.afterConnect() }

  constructor (private readonly redis: RedisConnections, private readonly logger: Logger) {
    this.local.setMaxListeners(0)
    this.publisher = redis.connection('events-publish', { waits: true })
    this.subscriber = redis.connection('events-subscribe', { waits: true })
    this.subscriber.on('message', this.onMessage)
    this.subscriber.on('ready', this.onReady)
    if (this.subscriber.status === 'ready') this.connectedBefore = true
  }

  emit (jobId: string, event: JobEvent): void {
    this.local.emit(jobId, event)
    if (event.type === 'progress' && !this.redis.usable(this.publisher)) return
    const envelope: Envelope = { origin: this.origin, event }
    this.publisher.publish(CHANNEL_PREFIX + jobId, JSON.stringify(envelope)).catch((err: Error) => {
      this.logger.warn({ jobId, err: { message: err.message } }, 'job event not published')
    })
  }

  subscribe (jobId: string, listener: (event: JobEvent) => void, options: JobSubscriptionOptions = {}): JobSubscription {
    this.local.on(jobId, listener)
    const resume = options.onResume
    if (resume) this.resumers.add(resume)
    let entry = this.channels.get(jobId)
    if (!entry) {
      // A failed SUBSCRIBE (the app closing) still lets the listener go on to read the stored status.
      entry = { listeners: 0, subscribed: this.subscriber.subscribe(CHANNEL_PREFIX + jobId).then(() => {}, () => {}) }
      this.channels.set(jobId, entry)
    }
    entry.listeners++
    const mine = entry
    let closed = false
    return {
      ready: mine.subscribed,
      close: () => {
        if (closed) return
        closed = true
        this.local.off(jobId, listener)
        if (resume) this.resumers.delete(resume)
        mine.listeners--
        if (mine.listeners > 0 || this.channels.get(jobId) !== mine) return
        this.channels.delete(jobId)
        this.subscriber.unsubscribe(CHANNEL_PREFIX + jobId).catch(() => {})
      },
    }
  }

  async close (): Promise<void> {
    this.subscriber.off('message', this.onMessage)
    this.subscriber.off('ready', this.onReady)
    this.resumers.clear()
  }

  private deliver (channel: string, message: string): void {
    if (!channel.startsWith(CHANNEL_PREFIX)) return
    let envelope: Envelope
    try { envelope = JSON.parse(message) as Envelope } catch { return }
    if (envelope.origin === this.origin) return
    this.local.emit(channel.slice(CHANNEL_PREFIX.length), envelope.event)
  }

  /** On a reconnection: the channels again, then every listener is told it may have missed events. */
  private async afterConnect (): Promise<void> {
    if (!this.connectedBefore) { this.connectedBefore = true; return }
    const channels = [...this.channels.keys()].map(id => CHANNEL_PREFIX + id)
    try {
      if (channels.length) await this.subscriber.subscribe(...channels)
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'job event channels not subscribed again')
      return
    }
    for (const resume of [...this.resumers]) {
      try { resume() } catch (err) { this.logger.warn({ err }, 'job event listener failed to resume') }
    }
  }
}
