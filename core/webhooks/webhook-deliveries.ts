// Webhook deliveries: an event (a type and a JSON payload) sent to one target,
// retried with backoff for WEBHOOK_RETRY_WINDOW_MS, every attempt recorded.
// See README.md.
//
// The database is the due-list: a delivery is a row, `pending` with the time
// of its next attempt. Every process (API or worker) polls it; an attempt is
// claimed by a conditional update that sets a lease, so one process sends it
// however many poll, and a process that dies mid-attempt leaves a lease that
// expires, after which another sends it. Nothing is held in memory between
// attempts: deliveries survive restarts, and a Redis that restarts empty
// loses none.
import type { Logger } from 'pino'
import type { Db } from '../db/database.ts'
import type { Clock } from '../clock.ts'
import type { SecretBox } from '../crypto.ts'
import { conflict } from '../errors.ts'
import { urlsAsOrigins, originOf, type SecretScrubber } from '../secrets/secret-scrubber.ts'
import type { NetFactory } from '../net/net-factory.ts'
import { newDeliveryId, signatureHeaders } from './signing.ts'
import { openSpan } from '../telemetry/tracing.ts'
import type { AccountWebhooks, WebhookTarget } from './account-webhooks.ts'
import { DEFAULT_WEBHOOK_EVENTS, type WebhookEvent } from './schemas.ts'

/** A job start's or a monitor's `webhook`, as stored on the job or the monitor (its schema: core/jobs/schemas.ts WebhookSchema). */
export interface WebhookSpec { url: string, events?: WebhookEvent[], secret?: string }

/**
 * What a stored setting without `events` asks for: it was stored before `changed` existed, when
 * no events meant `done` and `error`, and keeps meaning that (a receiver is not sent an event type
 * it never asked for). New settings are stored with their events written out (`withEvents`).
 */
const EVENTS_OF_A_BARE_SETTING: readonly WebhookEvent[] = ['done', 'error']

/**
 * A monitor's new `webhook` as it is stored: its events written out (the default when it names
 * none). A job start's is stored as given: for a job that is no monitor's run it asks for the
 * same, and a monitor's run carries its monitor's setting as the monitor stored it.
 */
export const withEvents = (spec: WebhookSpec): WebhookSpec => ({ ...spec, events: spec.events ?? [...DEFAULT_WEBHOOK_EVENTS] })

/** The event a job's end asks its target for: a cancelled job is not done, it goes to those who asked for endings in error. */
const endingEvent = (status: string): WebhookEvent => (status === 'done' ? 'done' : 'error')

/** One event to send: its type (`job.done`, `monitor.changed` …) and payload; the body is `{event, ...payload}`. */
export interface DeliveryRequest {
  accountId: string
  /** The job it belongs to (listed and redelivered through the job's routes, deleted with it); null for other events. */
  jobId?: string | null
  event: string
  payload: Record<string, unknown>
  target: WebhookTarget
}

type DeliveryStatus = 'pending' | 'delivered' | 'dead'

/** What one attempt came to, for a metrics hook (webhook deliveries by outcome: label `event` and `outcome` only, never the ids). */
export interface AttemptOutcome { event: string, outcome: 'delivered' | 'retrying' | 'dead', durationMs: number, deliveryId: string, jobId: string | null }

export interface DeliveryView {
  id: string
  event: string
  /** The target's origin only: a webhook URL's path or query is often its token. */
  target: string
  status: DeliveryStatus
  attempts: number
  created_at: string
  next_attempt_at: string | null
  delivered_at: string | null
  attempt_log: Array<{ number: number, at: string, http_status: number | null, duration_ms: number, error: string | null, next_attempt_at: string | null }>
}

const ATTEMPT_TIMEOUT_MS = 10_000
// Longer than an attempt can take: a lease past it belongs to a process that died.
const LEASE_MS = 60_000
const POLL_MS = 1000
const CLAIM_BATCH = 20
// A pass sends at most this many batches, then yields to the next poll.
const BATCHES_PER_PASS = 10
const LISTED_DELIVERIES = 20
const LISTED_ATTEMPTS = 50

type DeliveryRow = NonNullable<Awaited<ReturnType<Db['webhookDelivery']['findUnique']>>>

export class WebhookDeliveries {
  private readonly controller = new AbortController()
  private readonly kicks = new Set<Promise<unknown>>()
  private readonly observers = new Set<(outcome: AttemptOutcome) => void>()
  private passing: Promise<number> | null = null
  private timer: NodeJS.Timeout | null = null
  private readonly wakeups = new Set<NodeJS.Timeout>()
  private closed = false

  constructor (private readonly deps: {
    db: Db, clock: Clock, net: NetFactory, logger: Logger, secrets: SecretScrubber, box: SecretBox, accounts: AccountWebhooks,
    retry: { baseMs: number, windowMs: number },
  }) {}

  /** Calls `listener` after every recorded attempt (a metrics counter); returns its removal. */
  onAttempt (listener: (outcome: AttemptOutcome) => void): () => void {
    this.observers.add(listener)
    return () => this.observers.delete(listener)
  }

  /** Records the delivery (its first attempt due now) and starts sending it; resolves once it is stored. */
  async enqueue (request: DeliveryRequest): Promise<string> {
    const { db, clock, secrets, box } = this.deps
    const now = clock()
    const id = newDeliveryId()
    const body = JSON.stringify({ event: request.event, ...secrets.scrubValue(request.payload) })
    await db.webhookDelivery.create({
      data: {
        id,
        accountId: request.accountId,
        jobId: request.jobId ?? null,
        event: request.event,
        url: request.target.url,
        secret: request.target.secret === null ? null : box.seal(request.target.secret),
        body,
        status: 'pending',
        nextAttemptAt: now,
        windowStart: now,
        createdAt: now,
      },
    })
    this.kick()
    return id
  }

  /** A job's end: to the job's own webhook, else the account's default, when it asks for this outcome. */
  async jobEnded (job: { id: string, accountId: string, webhook: string | null }, record: { status: string }): Promise<void> {
    await this.jobEvent(job, endingEvent(record.status), `job.${record.status}`, async () => ({ job: record }))
  }

  /**
   * Another event of a job (a monitor's run: `monitor.changed`), by the rule of its end: to the
   * job's own webhook, else the account's default, when that asks for `wants`. The payload is
   * built only when there is a target. Resolves with the delivery's id once stored, or null.
   */
  async jobEvent (job: { id: string, accountId: string, webhook: string | null }, wants: WebhookEvent, event: string, payload: () => Promise<Record<string, unknown>>): Promise<string | null> {
    const target = await this.jobTarget(job, wants)
    return target ? await this.enqueue({ accountId: job.accountId, jobId: job.id, event, payload: await payload(), target }) : null
  }

  private async jobTarget (job: { accountId: string, webhook: string | null }, wants: WebhookEvent): Promise<WebhookTarget | null> {
    const spec = job.webhook ? JSON.parse(job.webhook) as WebhookSpec : null
    const chosen = spec ? { url: spec.url, secret: spec.secret ?? null, events: spec.events } : await this.deps.accounts.target(job.accountId)
    if (!chosen || !(chosen.events ?? EVENTS_OF_A_BARE_SETTING).includes(wants)) return null
    return { url: chosen.url, secret: chosen.secret }
  }

  /** The job's deliveries, newest first, each with its latest attempts. */
  async listForJob (jobId: string): Promise<DeliveryView[]> {
    const rows = await this.deps.db.webhookDelivery.findMany({
      where: { jobId },
      orderBy: { createdAt: 'desc' },
      take: LISTED_DELIVERIES,
      include: { attemptLog: { orderBy: { number: 'desc' }, take: LISTED_ATTEMPTS } },
    })
    return rows.map(row => ({
      id: row.id,
      event: row.event,
      target: originOf(row.url),
      status: row.status as DeliveryStatus,
      attempts: row.attempts,
      created_at: row.createdAt.toISOString(),
      next_attempt_at: row.status === 'pending' ? row.nextAttemptAt?.toISOString() ?? null : null,
      delivered_at: row.deliveredAt?.toISOString() ?? null,
      attempt_log: row.attemptLog.map(a => ({
        number: a.number,
        at: a.at.toISOString(),
        http_status: a.httpStatus,
        duration_ms: a.durationMs,
        error: a.error,
        next_attempt_at: a.nextAttemptAt?.toISOString() ?? null,
      })),
    }))
  }

  /**
   * Sends a job's delivery again (`deliveryId`, else the newest of its end:
   * a monitor's run also has its `monitor.changed`, stored at the same
   * instant), with the same `webhook-id` and a new retry window. A job whose
   * end has none, not having asked for one, gets a first one when a target
   * exists now (its own webhook or the account's default). Refused (409)
   * while the job runs, while the delivery is still pending, and without a
   * target.
   */
  async redeliver (job: { id: string, accountId: string, status: string, webhook: string | null }, deliveryId: string | undefined, statusRecord: () => Promise<unknown>): Promise<DeliveryView> {
    const { db, clock } = this.deps
    if (job.status === 'running') throw conflict(`Job ${job.id} has not ended: its webhook is sent when it does.`)
    const delivery = await db.webhookDelivery.findFirst({ where: { jobId: job.id, ...(deliveryId ? { id: deliveryId } : { event: { startsWith: 'job.' } }) }, orderBy: { createdAt: 'desc' } })
    let id: string
    if (!delivery) {
      if (deliveryId) throw conflict(`Job ${job.id} has no webhook delivery ${deliveryId}.`)
      const target = await this.jobTarget(job, endingEvent(job.status))
      if (!target) throw conflict(`Job ${job.id} has no webhook to deliver to: start it with \`webhook\`, or set a default with PUT /api/account/webhook.`)
      id = await this.enqueue({ accountId: job.accountId, jobId: job.id, event: `job.${job.status}`, payload: { job: await statusRecord() }, target })
    } else {
      const now = clock()
      const { count } = await db.webhookDelivery.updateMany({
        where: { id: delivery.id, status: { not: 'pending' } },
        data: { status: 'pending', nextAttemptAt: now, windowStart: now, leaseUntil: null, deliveredAt: null },
      })
      if (count === 0) throw conflict(`Delivery ${delivery.id} is still pending; its next attempt is at ${delivery.nextAttemptAt?.toISOString() ?? 'once claimed'}.`)
      id = delivery.id
      this.kick()
    }
    const [view] = (await this.listForJob(job.id)).filter(d => d.id === id)
    return view!
  }

  /** Polls the due-list every second until close (both API processes and workers). */
  start (): void {
    if (this.timer || this.closed) return
    this.timer = setInterval(() => { this.kick() }, POLL_MS)
    this.timer.unref()
    this.kick()
  }

  /** One pass over what is due now, in the background (its failure is logged). */
  private kick (): void {
    if (this.closed) return
    const pass = this.runDue().catch(err => { this.deps.logger.error({ err }, 'webhook delivery pass failed') })
    this.kicks.add(pass)
    void pass.finally(() => this.kicks.delete(pass))
  }

  /**
   * Sends every delivery due now that this process can claim; resolves with how
   * many attempts it made. One pass at a time in a process: a call during a
   * pass waits for it, then makes its own.
   */
  async runDue (): Promise<number> {
    while (this.passing) await this.passing.catch(() => 0)
    if (this.closed) return 0
    this.passing = this.pass()
    try {
      return await this.passing
    } finally {
      this.passing = null
    }
  }

  /** Resolves when no pass is running or waiting in this process (tests wait on it instead of sleeping). */
  async idle (): Promise<void> {
    while (this.passing || this.kicks.size > 0) await Promise.allSettled([this.passing, ...this.kicks])
  }

  private async pass (): Promise<number> {
    const { db, clock } = this.deps
    let sent = 0
    for (let batch = 0; batch < BATCHES_PER_PASS && !this.closed; batch++) {
      const now = clock()
      const free = { OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] }
      const due = await db.webhookDelivery.findMany({
        where: { status: 'pending', nextAttemptAt: { lte: now }, ...free },
        orderBy: { nextAttemptAt: 'asc' },
        take: CLAIM_BATCH,
        select: { id: true },
      })
      if (due.length === 0) break
      const claimed: string[] = []
      for (const { id } of due) {
        const { count } = await db.webhookDelivery.updateMany({ where: { id, status: 'pending', ...free }, data: { leaseUntil: new Date(now.getTime() + LEASE_MS) } })
        if (count === 1) claimed.push(id)
      }
      if (claimed.length === 0) break
      const rows = await db.webhookDelivery.findMany({ where: { id: { in: claimed } } })
      await Promise.all(rows.map(row => this.attempt(row)))
      sent += rows.length
    }
    return sent
  }

  /** When the attempt after attempt `n` is due, or null when it would fall past the retry window (dead). */
  private nextAttemptAt (windowStart: Date, n: number, now: Date): Date | null {
    const { baseMs, windowMs } = this.deps.retry
    const delay = Math.min(baseMs * 2 ** Math.min(n - 1, 40), Math.max(baseMs, windowMs / 4))
    const next = new Date(now.getTime() + delay)
    return next.getTime() - windowStart.getTime() > windowMs ? null : next
  }

  private async attempt (row: DeliveryRow): Promise<void> {
    const { db, clock, net, logger, secrets, box } = this.deps
    const at = clock()
    const number = row.attempts + 1
    const secret = row.secret === null ? null : box.open(row.secret)
    const headers = { 'content-type': 'application/json', 'user-agent': 'extraction-jobs-webhook/1.0', ...signatureHeaders({ id: row.id, body: row.body, secret }, at) }
    const started = performance.now()
    let httpStatus: number | null = null
    let error: string | null = null
    // A trace of its own: the loop sends many jobs' deliveries in one pass, whatever context woke it.
    const span = openSpan('webhook attempt', { 'webhook.event': row.event, 'webhook.attempt': number, ...(row.jobId ? { 'job.id': row.jobId } : {}) }, null, { kind: 'client', root: true })
    const http = net.http(this.controller.signal)
    try {
      const res = await http.fetch(row.url, { method: 'POST', headers, body: row.body, timeoutMs: ATTEMPT_TIMEOUT_MS, maxRedirects: 0 })
      httpStatus = res.status
      await res.body?.cancel().catch(() => {})
      if (res.status < 200 || res.status >= 300) error = `The receiver answered HTTP ${res.status}.`
    } catch (err) {
      // The client's messages name the full URL; the target is shown as its origin only.
      error = secrets.scrub(urlsAsOrigins(String((err as Error)?.message ?? err)))
    } finally {
      await http.close().catch(() => {})
    }
    if (httpStatus !== null) span?.setAttributes({ 'http.response.status_code': httpStatus })
    if (this.controller.signal.aborted) {
      span?.end()
      // A shutdown cut the attempt: not the receiver's failure. The next start sends it again at once.
      await db.webhookDelivery.updateMany({ where: { id: row.id }, data: { leaseUntil: null } }).catch(() => {})
      return
    }
    const durationMs = Math.round(performance.now() - started)
    const now = clock()
    const next = error === null ? null : this.nextAttemptAt(row.windowStart, number, now)
    const status: DeliveryStatus = error === null ? 'delivered' : next ? 'pending' : 'dead'
    span?.setAttributes({ 'webhook.outcome': status === 'pending' ? 'retrying' : status })
    span?.end(error !== null)
    await db.$transaction(async (tx) => {
      await tx.webhookAttempt.create({ data: { id: newDeliveryId(), deliveryId: row.id, number, at, httpStatus, durationMs, error, nextAttemptAt: next } })
      await tx.webhookDelivery.update({ where: { id: row.id }, data: { attempts: number, status, nextAttemptAt: next, leaseUntil: null, deliveredAt: status === 'delivered' ? now : null } })
    })
    // A retry due before the next poll (a short WEBHOOK_RETRY_BASE_MS) is not held back to it.
    if (next && next.getTime() - now.getTime() < POLL_MS) this.wakeAfter(next.getTime() - now.getTime())
    if (error !== null) logger.warn({ delivery: row.id, jobId: row.jobId, webhook: originOf(row.url), attempt: number, httpStatus, status, err: error }, 'webhook attempt failed')
    const outcome: AttemptOutcome = { event: row.event, outcome: status === 'pending' ? 'retrying' : status, durationMs, deliveryId: row.id, jobId: row.jobId }
    for (const observe of this.observers) observe(outcome)
  }

  private wakeAfter (ms: number): void {
    const wakeup = setTimeout(() => { this.wakeups.delete(wakeup); this.kick() }, Math.max(0, ms))
    wakeup.unref()
    this.wakeups.add(wakeup)
  }

  /** Stops polling and cuts attempts in flight (their deliveries stay due, for the next start or another process). */
  async close (): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    for (const wakeup of this.wakeups) clearTimeout(wakeup)
    this.wakeups.clear()
    this.controller.abort()
    await this.idle()
  }
}
