// Monitors: a saved tool call plus a schedule. Each run is an ordinary job
// (JobService.start: the same checks, charge, caps, refunds and retention)
// linked to its monitor; as it ends, JobEnding has MonitorRuns compare its rows
// with the last successful run's (run-comparison.ts) before the outcome is
// written, so every reader of the outcome sees the change counts. A tick is
// recorded once per monitor (monitor_ticks' unique tick), and its job is
// started with an idempotency key of the tick, so two schedulers firing one
// tick, or a tick retried after a restart, make one run. See README.md here.
import { randomUUID } from 'node:crypto'
import type { Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import { insertRows, isUniqueViolation, updateColumn } from '../db/insert-rows.ts'
import { join } from '@prisma/client/runtime/client'
import { AppError, badRequest, forbidden, notFound, tooManyRequests } from '../errors.ts'
import { requireToolAllowed, type AccountCaller } from '../auth/guards.ts'
import { effectiveTier, tierLimits } from '../quotas/tiers.ts'
import type { ToolRegistry } from '../tools/registry.ts'
import type { JobService, StartRequest } from '../jobs/job-service.ts'
import { withEvents, type WebhookSpec } from '../webhooks/webhook-deliveries.ts'
import { checkSchedule, latestTick, nextTick, type Schedule } from './schedule.ts'
import type { MonitorRuns, ScheduleListener, ScheduleNotices } from './monitor-runs.ts'

/** A tick run this long after its time says it was missed (the service was down or behind). */
const MISSED_AFTER_MS = 60_000
/** The most ticks and runs a monitor's record lists. */
const RECENT_TICKS = 20

export type TickTrigger = 'schedule' | 'missed' | 'now'

export interface MonitorInput {
  tool: string
  params?: Record<string, unknown>
  schedule: Schedule
  webhook?: WebhookSpec
  name?: string
}

export interface MonitorChanges {
  monitor_id: string
  run: string
  status: string
  changes: unknown
  added: unknown[]
  removed: unknown[]
  changed: unknown[]
  duplicates: unknown[]
}

type MonitorRow = NonNullable<Awaited<ReturnType<Db['monitor']['findUnique']>>>
type MonitorWithAccount = MonitorRow & { account: NonNullable<Awaited<ReturnType<Db['account']['findUnique']>>> }

export type FireOutcome = 'started' | 'skipped' | 'done-before' | 'gone'

/** A monitor whose next tick has come, with its account: the database scheduler's one read carries what its batch needs. */
export type DueMonitor = MonitorWithAccount

/** What a batch of due monitors came to: each one's outcome, and the ticks that failed (their monitors stay due). */
export interface BatchOutcome {
  outcomes: Map<string, FireOutcome>
  failures: Array<{ monitorId: string, err: unknown }>
}

/** A due monitor's tick as its batch plans it. */
interface PlannedTick { monitor: DueMonitor, schedule: Schedule, tick: Date, trigger: TickTrigger }
/** A tick this batch recorded, before its run. */
type FreshTick = PlannedTick & { tickId: string }

/** A tick's idempotency key: a tick retried (a restart, a second scheduler) replays its one run. */
const tickKey = (monitorId: string, tick: string) => `monitor:${monitorId}:${tick}`

/** A monitor's run as a job start: its tool, params and webhook, linked to it. */
function runRequest (caller: AccountCaller, monitor: MonitorRow, idempotencyKey: string | undefined): StartRequest {
  return {
    caller,
    tool: monitor.tool,
    params: JSON.parse(monitor.params) as Record<string, unknown>,
    webhook: monitor.webhook ? JSON.parse(monitor.webhook) as WebhookSpec : undefined,
    idempotencyKey,
    monitorId: monitor.id,
  }
}

/** A due monitor's tick: its latest (ticks that passed while the service was down: one run), said missed when late or skipped over. */
function planTick (monitor: { schedule: string, nextRunAt: Date | null }, now: Date) {
  const schedule = JSON.parse(monitor.schedule) as Schedule
  const tick = latestTick(schedule, now)
  const missed = now.getTime() - tick.getTime() > MISSED_AFTER_MS || (monitor.nextRunAt !== null && tick.getTime() > monitor.nextRunAt.getTime())
  return { schedule, tick, trigger: (missed ? 'missed' : 'schedule') as TickTrigger }
}

/** Tells the scheduler in use that a monitor's schedule changed (the BullMQ one keeps a job scheduler per monitor). */
export class MonitorService {
  constructor (private readonly deps: { db: Db, clock: Clock, registry: ToolRegistry, jobs: JobService, monitorRuns: MonitorRuns, scheduleNotices: ScheduleNotices }) {}

  /** The scheduler that wants to hear of schedule changes (the BullMQ one); the database scheduler reads next_run_at. */
  listen (listener: ScheduleListener): void { this.deps.scheduleNotices.listen(listener) }

  // ------------------------------------------------------------ the API

  async create (caller: AccountCaller, input: MonitorInput) {
    const { db, clock, registry } = this.deps
    const now = clock()
    const limits = tierLimits(caller.tier)
    registry.catalog.check(input.tool)
    requireToolAllowed(caller, input.tool)
    const tool = registry.get(input.tool)!
    if (!tool.declaration.rowKey?.length) throw badRequest(`The tool '${input.tool}' declares no row identity, so its runs cannot be compared: it cannot be monitored.`)
    if (tool.declaration.upload) {
      const param = tool.declaration.upload.param
      const value = input.params?.[param]
      if (typeof value === 'string' && value.startsWith('upload://')) throw badRequest(`${param} names an uploaded file: a monitor runs from its params alone, give a URL.`)
    }
    registry.prepareInput(tool, input.params ?? {}, limits.max_records_per_run)
    if (limits.max_monitors === 0) throw forbidden('Your plan keeps no monitors.')
    const schedule = checkSchedule(input.schedule, limits.min_monitor_interval_minutes, now)
    this.checkWebhook(input.webhook)
    const count = await db.monitor.count({ where: { accountId: caller.account.id } })
    if (count >= limits.max_monitors) throw tooManyRequests(`Your plan keeps at most ${limits.max_monitors} monitors; delete one first.`, 3600)
    const monitor = await db.monitor.create({
      data: {
        id: randomUUID(),
        accountId: caller.account.id,
        name: (input.name ?? '').trim() || `${tool.declaration.title} monitor`,
        tool: input.tool,
        params: JSON.stringify(input.params ?? {}),
        schedule: JSON.stringify(schedule),
        webhook: input.webhook ? JSON.stringify(withEvents(input.webhook)) : null,
        nextRunAt: nextTick(schedule, now),
        createdAt: now,
        updatedAt: now,
      },
    })
    await this.notifyScheduled(monitor)
    return this.view(monitor)
  }

  async list (caller: AccountCaller) {
    const tools = caller.principal.kind === 'scoped' ? caller.principal.tools : undefined
    const monitors = await this.deps.db.monitor.findMany({ where: { accountId: caller.account.id, ...(tools ? { tool: { in: [...tools] } } : {}) }, orderBy: { createdAt: 'desc' } })
    return { count: monitors.length, monitors: monitors.map(m => this.view(m)) }
  }

  async get (caller: AccountCaller, id: string) {
    const monitor = await this.find(caller, id)
    // Newest first; of two recorded at one instant, the one due later (a run-now is due when asked).
    const ticks = await this.deps.db.monitorTick.findMany({ where: { monitorId: id }, orderBy: [{ createdAt: 'desc' }, { scheduledFor: 'desc' }, { id: 'asc' }], take: RECENT_TICKS })
    const jobs = await this.deps.db.job.findMany({ where: { id: { in: ticks.flatMap(t => (t.jobId ? [t.jobId] : [])) } }, select: { id: true, status: true, error: true, records: true, monitorChanges: true, finishedAt: true } })
    const byId = new Map(jobs.map(j => [j.id, j]))
    return {
      ...this.view(monitor),
      runs: ticks.map(t => {
        const job = t.jobId ? byId.get(t.jobId) : undefined
        return {
          tick: t.scheduledFor.toISOString(),
          trigger: t.trigger,
          job_id: t.jobId,
          skipped: t.skipped,
          status: job?.status ?? (t.skipped ? 'skipped' : t.jobId ? 'expired' : 'starting'),
          error: job?.error ?? null,
          records: job?.records ?? null,
          changes: job?.monitorChanges ? JSON.parse(job.monitorChanges) as Record<string, unknown> : null,
          finished_at: job?.finishedAt?.toISOString() ?? null,
        }
      }),
    }
  }

  async update (caller: AccountCaller, id: string, patch: Partial<MonitorInput>) {
    const { db, clock, registry } = this.deps
    const monitor = await this.find(caller, id)
    if (patch.tool !== undefined && patch.tool !== monitor.tool) throw badRequest('A monitor\'s tool cannot change: create another monitor.')
    const now = clock()
    const limits = tierLimits(caller.tier)
    const data: Parameters<Db['monitor']['update']>[0]['data'] = { updatedAt: now }
    if (patch.params !== undefined) {
      registry.catalog.check(monitor.tool)
      registry.prepareInput(registry.get(monitor.tool)!, patch.params, limits.max_records_per_run)
      data.params = JSON.stringify(patch.params)
    }
    let schedule: Schedule | undefined
    if (patch.schedule !== undefined) {
      schedule = checkSchedule(patch.schedule, limits.min_monitor_interval_minutes, now)
      data.schedule = JSON.stringify(schedule)
      if (!monitor.pausedAt) data.nextRunAt = nextTick(schedule, now)
    }
    if (patch.webhook !== undefined) { this.checkWebhook(patch.webhook); data.webhook = patch.webhook ? JSON.stringify(withEvents(patch.webhook)) : null }
    if (patch.name !== undefined) data.name = patch.name.trim() || monitor.name
    const updated = await db.monitor.update({ where: { id }, data })
    if (schedule && !updated.pausedAt) await this.notifyScheduled(updated)
    return this.view(updated)
  }

  async remove (caller: AccountCaller, id: string) {
    await this.find(caller, id)
    await this.deps.db.monitor.deleteMany({ where: { id } })
    await this.deps.scheduleNotices.unscheduled(id)
    return { deleted: true, monitor_id: id }
  }

  async pause (caller: AccountCaller, id: string) {
    await this.find(caller, id)
    return this.view(await this.deps.monitorRuns.pause(id, 'Paused by its owner.'))
  }

  async resume (caller: AccountCaller, id: string) {
    const monitor = await this.find(caller, id)
    const now = this.deps.clock()
    const updated = await this.deps.db.monitor.update({ where: { id }, data: { pausedAt: null, pausedReason: null, failures: 0, nextRunAt: nextTick(JSON.parse(monitor.schedule) as Schedule, now), updatedAt: now } })
    await this.notifyScheduled(updated)
    return this.view(updated)
  }

  /** `POST /api/monitors/<id>/run`: a run now, started as the caller (its checks, its charge), outside the schedule. */
  async runNow (caller: AccountCaller, id: string) {
    const monitor = await this.find(caller, id)
    const started = await this.startRun(caller, monitor, undefined)
    await this.deps.db.monitorTick.create({ data: { id: randomUUID(), monitorId: id, tick: `now:${started.job_id}`, scheduledFor: this.deps.clock(), trigger: 'now', jobId: started.job_id, createdAt: this.deps.clock() } })
    const { replayed: _, ...answer } = started
    return { ...answer, monitor_id: id }
  }

  /** A run's changes, for the caller who may see the monitor: the counts and a page of each kind. */
  async changes (caller: AccountCaller, id: string, runId: string | undefined, limit: number): Promise<MonitorChanges> {
    const monitor = await this.find(caller, id)
    const job = await this.runOf(monitor, runId)
    // Each kind read on its own: a run with many of one kind still lists the first `limit` of every other.
    const of = async (kind: string) => (await this.deps.db.monitorChange.findMany({ where: { jobId: job.id, kind }, orderBy: { seq: 'asc' }, take: limit }))
      .map(r => JSON.parse(r.data) as unknown)
    const [added, removed, changed, duplicates] = await Promise.all([of('added'), of('removed'), of('changed'), of('duplicate')])
    return {
      monitor_id: id,
      run: job.id,
      status: job.status,
      changes: job.monitorChanges ? JSON.parse(job.monitorChanges) as unknown : null,
      added,
      removed,
      changed,
      duplicates,
    }
  }

  /** Every change of a run, flat (for exports): change, key, and the watched fields before and after. */
  async * exportChanges (caller: AccountCaller, id: string, runId: string | undefined): AsyncGenerator<Record<string, unknown>> {
    const monitor = await this.find(caller, id)
    const job = await this.runOf(monitor, runId)
    for (let seq = -1; ;) {
      const page = await this.deps.db.monitorChange.findMany({ where: { jobId: job.id, seq: { gt: seq } }, orderBy: { seq: 'asc' }, take: 200 })
      for (const r of page) {
        const data = JSON.parse(r.data) as { key: unknown, after?: Record<string, unknown>, before?: Record<string, unknown>, fields?: Record<string, { before: unknown, after: unknown }>, occurrence?: number }
        const before = data.fields ? Object.fromEntries(Object.entries(data.fields).map(([f, v]) => [f, v.before])) : data.before ?? null
        const after = data.fields ? Object.fromEntries(Object.entries(data.fields).map(([f, v]) => [f, v.after])) : data.after ?? null
        yield { change: r.kind, key: data.key, before, after, ...(data.occurrence ? { occurrence: data.occurrence } : {}) }
      }
      if (page.length < 200) return
      seq = page[page.length - 1]!.seq
    }
  }

  // ------------------------------------------------------------ runs

  /**
   * One tick of a monitor's schedule: recorded once (a second scheduler, or a
   * retry after a restart, finds it), then its run started as the account's
   * owner, idempotent on the tick. A refusal (quota, job caps, a tool turned
   * off) skips the tick with its reason; repeated refusals other than quota
   * count as failures. Returns what happened, for the schedulers' logs and tests.
   */
  async fire (monitorId: string, tick: Date, trigger: TickTrigger): Promise<FireOutcome> {
    const { db, clock } = this.deps
    const tickText = tick.toISOString()
    const existing = await db.monitorTick.findUnique({ where: { monitorId_tick: { monitorId, tick: tickText } } })
    if (existing && (existing.jobId || existing.skipped)) return 'done-before'
    const monitor = await db.monitor.findUnique({ where: { id: monitorId }, include: { account: true } })
    if (!monitor) return 'gone'
    if (monitor.pausedAt) return 'skipped'
    const tickId = existing?.id ?? randomUUID()
    if (!existing) {
      try {
        await db.monitorTick.create({ data: { id: tickId, monitorId, tick: tickText, scheduledFor: tick, trigger, createdAt: clock() } })
      } catch (err) {
        // Another scheduler recorded it first: its run is that one's.
        if (isUniqueViolation(err)) return 'done-before'
        throw err
      }
    }
    return this.runTick(monitor, tickId, tickText, existing !== null)
  }

  /** A recorded tick's run: started as the account's owner with the tick's idempotency key; a refusal skips the tick. */
  private async runTick (monitor: MonitorWithAccount, tickId: string, tickText: string, recordedBefore: boolean): Promise<FireOutcome> {
    const { db, clock } = this.deps
    const monitorId = monitor.id
    try {
      const started = await this.startRun(this.ownerOf(monitor, clock()), monitor, tickKey(monitorId, tickText))
      await db.monitorTick.update({ where: { id: tickId }, data: { jobId: started.job_id } })
      return 'started'
    } catch (err) {
      if (!(err instanceof AppError)) throw err
      // A tick another scheduler recorded and is still starting: its key is in flight (409), the run is that one's.
      if (recordedBefore && err.statusCode === 409) return 'done-before'
      await db.monitorTick.update({ where: { id: tickId }, data: { skipped: err.message } })
      // Out of quota is the account's state, not the monitor's fault: skipped, not counted.
      if (err.statusCode !== 429) await this.deps.monitorRuns.countFailure(monitorId, err.message)
      return 'skipped'
    }
  }

  private async startRun (caller: AccountCaller, monitor: MonitorRow, idempotencyKey: string | undefined) {
    const started = await this.deps.jobs.start(runRequest(caller, monitor, idempotencyKey))
    await this.deps.db.monitor.updateMany({ where: { id: monitor.id }, data: { lastRunId: started.job_id } })
    return started
  }

  /** A scheduled run's caller: the account's owner, with the tier of now. */
  private ownerOf (monitor: MonitorWithAccount, now: Date): AccountCaller {
    const tier = effectiveTier(monitor.account, now)
    const { id, email, name, tier: storedTier, proEligible, proClaimedAt, proExpiresAt, createdAt } = monitor.account
    const account = { id, email, name, tier: storedTier, proEligible, proClaimedAt, proExpiresAt, createdAt }
    return { account, tier, principal: { kind: 'personal', account, tier, keyId: `monitor:${monitor.id}` } }
  }

  // ------------------------------------------------------------ the schedulers' reads

  /** Monitors whose next tick has come (the database scheduler), with their accounts, earliest first; of one time, by id (a batch mixes accounts). */
  async due (now: Date, limit: number): Promise<DueMonitor[]> {
    return this.deps.db.monitor.findMany({ where: { pausedAt: null, nextRunAt: { lte: now } }, orderBy: [{ nextRunAt: 'asc' }, { id: 'asc' }], take: limit, include: { account: true } })
  }

  /**
   * A batch of due monitors' ticks (as `due` or `running` read them: the
   * database scheduler's pass, the BullMQ scheduler's batch of taken ticks),
   * each monitor's latest tick (several passed while the service was down:
   * one run, said missed), in a few statements: one read of the batch's ticks
   * already recorded, one insert of the new ticks, one delete of those whose
   * monitor was paused since the batch was read (that tick does not run);
   * then the runs as one batch start (`JobService.startMany`: one admission,
   * job count and charge per account, one insert of the jobs); one update of
   * the started ticks' jobs and one of the monitors' last runs, one per
   * refusal's text of the skipped ticks; then one update of the next ticks
   * per distinct next tick, for the monitors whose tick did not fail (those
   * stay due and are tried at the next pass), never of a monitor paused
   * meanwhile (the update's condition). The next ticks are written after the
   * runs started, so a process that stops in between finds the tick recorded
   * and still due at its next start and finishes it (idempotent on the
   * tick). A tick already recorded (another scheduler, or a stopped process)
   * and an insert that meets one take `fire`'s path, one monitor at a time:
   * one tick, one run.
   */
  async fireDueBatch (batch: readonly DueMonitor[], now: Date): Promise<BatchOutcome> {
    const { db, clock } = this.deps
    const outcomes = new Map<string, FireOutcome>()
    const failures: Array<{ monitorId: string, err: unknown }> = []
    if (!batch.length) return { outcomes, failures }
    const planned: PlannedTick[] = batch.map(monitor => ({ monitor, ...planTick(monitor, now) }))
    const recorded = await db.monitorTick.findMany({ where: { monitorId: { in: batch.map(m => m.id) }, tick: { in: [...new Set(planned.map(p => p.tick.toISOString()))] } }, select: { monitorId: true, tick: true, jobId: true, skipped: true } })
    const recordedBy = new Map(recorded.map(r => [`${r.monitorId} ${r.tick}`, r]))
    let fresh: FreshTick[] = []
    const again: PlannedTick[] = []
    for (const plan of planned) {
      const before = recordedBy.get(`${plan.monitor.id} ${plan.tick.toISOString()}`)
      if (before && (before.jobId || before.skipped)) outcomes.set(plan.monitor.id, 'done-before')
      else if (before) again.push(plan)
      else fresh.push({ ...plan, tickId: randomUUID() })
    }
    if (fresh.length) {
      const createdAt = clock()
      try {
        await insertRows(db, 'monitor_ticks', ['id', 'monitor_id', 'tick', 'scheduled_for', '"trigger"', 'created_at'], fresh.map(f => [f.tickId, f.monitor.id, f.tick.toISOString(), f.tick, f.trigger, createdAt]))
      } catch (err) {
        // Another scheduler recorded one of them meanwhile: each is fired on its own, which finds whose tick is whose.
        if (!isUniqueViolation(err)) throw err
        again.push(...fresh)
        fresh = []
      }
    }
    if (fresh.length) {
      try {
        await this.runTicks(await this.withoutPaused(fresh, outcomes), outcomes)
      } catch (err) {
        for (const f of fresh) failures.push({ monitorId: f.monitor.id, err })
      }
    }
    for (const plan of again) {
      try {
        outcomes.set(plan.monitor.id, await this.fire(plan.monitor.id, plan.tick, plan.trigger))
      } catch (err) {
        failures.push({ monitorId: plan.monitor.id, err })
      }
    }
    const failed = new Set(failures.map(f => f.monitorId))
    const byNext = new Map<number, string[]>()
    for (const plan of planned) {
      if (failed.has(plan.monitor.id)) continue
      const next = nextTick(plan.schedule, now).getTime()
      const group = byNext.get(next)
      if (group) group.push(plan.monitor.id)
      else byNext.set(next, [plan.monitor.id])
    }
    await db.$transaction([...byNext].map(([next, group]) => db.monitor.updateMany({ where: { id: { in: group }, pausedAt: null }, data: { nextRunAt: new Date(next) } })))
    return { outcomes, failures }
  }

  /**
   * The just-recorded ticks less those whose monitor was paused since the
   * batch was read: their ticks are deleted (a paused monitor records no
   * tick) and they are skipped. One statement when none was (the usual case).
   */
  private async withoutPaused (fresh: FreshTick[], outcomes: Map<string, FireOutcome>): Promise<FreshTick[]> {
    const { db } = this.deps
    const ids = fresh.map(f => f.tickId)
    const gone = await db.$executeRaw`DELETE FROM monitor_ticks WHERE id IN (${join(ids)}) AND EXISTS (SELECT 1 FROM monitors WHERE monitors.id = monitor_ticks.monitor_id AND monitors.paused_at IS NOT NULL)`
    if (!gone) return fresh
    const kept = new Set((await db.monitorTick.findMany({ where: { id: { in: ids } }, select: { id: true } })).map(t => t.id))
    for (const f of fresh) if (!kept.has(f.tickId)) outcomes.set(f.monitor.id, 'skipped')
    return fresh.filter(f => kept.has(f.tickId))
  }

  /**
   * Recorded ticks' runs, as one batch start (each as the account's owner,
   * with its tick's idempotency key); a refusal skips its tick with the
   * refusal's text and, unless it is the account's quota or caps (429),
   * counts as a failure.
   */
  private async runTicks (fresh: readonly FreshTick[], outcomes: Map<string, FireOutcome>): Promise<void> {
    if (!fresh.length) return
    const { db, clock, jobs, monitorRuns } = this.deps
    const now = clock()
    const started = await jobs.startMany(fresh.map(f => runRequest(this.ownerOf(f.monitor, now), f.monitor, tickKey(f.monitor.id, f.tick.toISOString()))))
    const jobOfTick: Array<[string, string]> = []
    const lastRun: Array<[string, string]> = []
    const skipped = new Map<string, string[]>()
    const failed: Array<[string, string]> = []
    for (const [i, f] of fresh.entries()) {
      const outcome = started[i]!
      if (outcome instanceof AppError) {
        const ticks = skipped.get(outcome.message)
        if (ticks) ticks.push(f.tickId)
        else skipped.set(outcome.message, [f.tickId])
        // Out of quota or at the caps is the account's state, not the monitor's fault: skipped, not counted.
        if (outcome.statusCode !== 429) failed.push([f.monitor.id, outcome.message])
        outcomes.set(f.monitor.id, 'skipped')
      } else {
        jobOfTick.push([f.tickId, outcome.job_id])
        lastRun.push([f.monitor.id, outcome.job_id])
        outcomes.set(f.monitor.id, 'started')
      }
    }
    await updateColumn(db, 'monitor_ticks', 'id', 'job_id', jobOfTick)
    await updateColumn(db, 'monitors', 'id', 'last_run_id', lastRun)
    for (const [reason, ticks] of skipped) await db.monitorTick.updateMany({ where: { id: { in: ticks } }, data: { skipped: reason } })
    for (const [monitorId, reason] of failed) await monitorRuns.countFailure(monitorId, reason)
  }

  /** The earliest next tick of any running monitor (the database scheduler sleeps until then). */
  async earliestNext (): Promise<Date | null> {
    const first = await this.deps.db.monitor.findFirst({ where: { pausedAt: null, nextRunAt: { not: null } }, orderBy: { nextRunAt: 'asc' }, select: { nextRunAt: true } })
    return first?.nextRunAt ?? null
  }

  /** The running monitors of these ids with their accounts, by id (the BullMQ scheduler's batch of ticks: a monitor paused or deleted since is not among them). */
  async running (ids: readonly string[]): Promise<DueMonitor[]> {
    return this.deps.db.monitor.findMany({ where: { id: { in: [...ids] }, pausedAt: null }, orderBy: { id: 'asc' }, include: { account: true } })
  }

  /** Every running monitor's schedule (the BullMQ scheduler's reconciliation at start). */
  async active () {
    const rows = await this.deps.db.monitor.findMany({ where: { pausedAt: null }, select: { id: true, schedule: true, nextRunAt: true } })
    return rows.map(r => ({ id: r.id, schedule: JSON.parse(r.schedule) as Schedule, nextRunAt: r.nextRunAt }))
  }

  // ------------------------------------------------------------ helpers

  private async notifyScheduled (monitor: MonitorRow): Promise<void> {
    if (!monitor.nextRunAt) return
    await this.deps.scheduleNotices.scheduled({ id: monitor.id, schedule: JSON.parse(monitor.schedule) as Schedule, nextRunAt: monitor.nextRunAt })
  }

  private checkWebhook (webhook: WebhookSpec | undefined): void {
    if (!webhook) return
    let url: URL
    try { url = new URL(webhook.url) } catch { throw badRequest('webhook.url is not a valid URL.') }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('webhook.url must be http(s).')
  }

  /** The caller's monitor, or 404: unknown, another account's, or of a tool outside a scoped token's list (one answer for all). */
  private async find (caller: AccountCaller, id: string): Promise<MonitorRow> {
    const monitor = await this.deps.db.monitor.findUnique({ where: { id } })
    const tools = caller.principal.kind === 'scoped' ? caller.principal.tools : undefined
    if (!monitor || monitor.accountId !== caller.account.id || (tools && !tools.includes(monitor.tool))) throw notFound(`No monitor ${id} for this account.`)
    return monitor
  }

  /** The run asked for (the latest when none is named): one of this monitor's jobs, within retention. */
  private async runOf (monitor: MonitorRow, runId: string | undefined) {
    const id = runId ?? monitor.lastRunId
    if (!id) throw notFound(`Monitor ${monitor.id} has not run yet.`)
    const job = await this.deps.db.job.findUnique({ where: { id }, select: { id: true, status: true, monitorId: true, monitorChanges: true, expiresAt: true } })
    if (!job || job.monitorId !== monitor.id) throw notFound(`No run ${id} of monitor ${monitor.id}.`)
    if (job.expiresAt && job.expiresAt.getTime() <= this.deps.clock().getTime()) throw notFound(`Run ${id} has passed its plan's retention window; its changes are gone.`)
    return job
  }

  private view (m: MonitorRow) {
    return {
      monitor_id: m.id,
      name: m.name,
      tool: m.tool,
      params: JSON.parse(m.params) as Record<string, unknown>,
      schedule: JSON.parse(m.schedule) as Schedule,
      webhook: m.webhook ? { url: (JSON.parse(m.webhook) as WebhookSpec).url } : null,
      status: m.pausedAt ? 'paused' as const : 'active' as const,
      paused_reason: m.pausedReason,
      failures_in_a_row: m.failures,
      next_run_at: m.nextRunAt?.toISOString() ?? null,
      last_run_id: m.lastRunId,
      baseline_run_id: m.baselineRunId,
      created_at: m.createdAt.toISOString(),
      updated_at: m.updatedAt.toISOString(),
    }
  }
}
