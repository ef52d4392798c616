// Monitors: a saved tool call plus a schedule. Each run is an ordinary job
// (JobService.start: the same checks, charge, caps, refunds and retention)
// linked to its monitor; as it ends, JobEnding has MonitorRuns compare its rows
// with the last successful run's (run-comparison.ts) before the outcome is
// written, so every reader of the outcome sees the change counts. A tick is
// recorded once per monitor (monitor_ticks' unique tick), and its job is
// started with an idempotency key of the tick, so two schedulers firing one
// tick, or a tick retried after a restart, make one run. See README.md here.
import { randomUUID } from 'node:crypto'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import { AppError, badRequest, forbidden, notFound, tooManyRequests } from '../errors.ts'
import { requireToolAllowed, type AccountCaller } from '../auth/guards.ts'
import { effectiveTier, tierLimits } from '../quotas/tiers.ts'
import type { ToolRegistry } from '../tools/registry.ts'
import type { JobService } from '../jobs/job-service.ts'
import type { WebhookSpec } from '../webhooks/webhook-deliveries.ts'
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

/** A monitor whose next tick has come, as the database scheduler reads it. */
export interface DueMonitor { id: string, accountId: string, schedule: string, nextRunAt: Date | null }

/** What a batch of due monitors came to: each one's outcome, and the ticks that failed (their monitors stay due). */
export interface BatchOutcome {
  outcomes: Map<string, FireOutcome>
  failures: Array<{ monitorId: string, err: unknown }>
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === 'P2002'

/** A due monitor's tick: its latest (ticks that passed while the service was down: one run), said missed when late or skipped over. */
function planTick (monitor: { schedule: string, nextRunAt: Date | null }, now: Date) {
  const schedule = JSON.parse(monitor.schedule) as Schedule
  const tick = latestTick(schedule, now)
  const missed = now.getTime() - tick.getTime() > MISSED_AFTER_MS || (monitor.nextRunAt !== null && tick.getTime() > monitor.nextRunAt.getTime())
  return { schedule, tick, trigger: (missed ? 'missed' : 'schedule') as TickTrigger }
}

/** The tasks reordered so that consecutive ones belong to different accounts where they can (round robin over the accounts). */
function interleaveByAccount<T extends { accountId: string }> (tasks: readonly T[]): T[] {
  const byAccount = new Map<string, T[]>()
  for (const task of tasks) {
    const queue = byAccount.get(task.accountId)
    if (queue) queue.push(task)
    else byAccount.set(task.accountId, [task])
  }
  const queues = [...byAccount.values()]
  const out: T[] = []
  for (let round = 0; out.length < tasks.length; round++) for (const queue of queues) if (round < queue.length) out.push(queue[round]!)
  return out
}

/**
 * `each` over the items, at most `limit` at a time; each worker gives the
 * event loop a turn after each item (SQLite's driver answers synchronously:
 * without it a batch would hold requests and the job runner until its end).
 */
async function eachInParallel<T> (items: readonly T[], limit: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      await each(items[next++]!)
      await nextTurn()
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
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
        webhook: input.webhook ? JSON.stringify(input.webhook) : null,
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
    if (patch.webhook !== undefined) { this.checkWebhook(patch.webhook); data.webhook = patch.webhook ? JSON.stringify(patch.webhook) : null }
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
    const tier = effectiveTier(monitor.account, clock())
    const { id, email, name, tier: storedTier, proEligible, proClaimedAt, proExpiresAt, createdAt } = monitor.account
    const account = { id, email, name, tier: storedTier, proEligible, proClaimedAt, proExpiresAt, createdAt }
    const caller: AccountCaller = { account, tier, principal: { kind: 'personal', account, tier, keyId: `monitor:${monitorId}` } }
    try {
      const started = await this.startRun(caller, monitor, `monitor:${monitorId}:${tickText}`)
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
    const started = await this.deps.jobs.start({
      caller,
      tool: monitor.tool,
      params: JSON.parse(monitor.params) as Record<string, unknown>,
      webhook: monitor.webhook ? JSON.parse(monitor.webhook) as WebhookSpec : undefined,
      idempotencyKey,
      monitorId: monitor.id,
    })
    await this.deps.db.monitor.updateMany({ where: { id: monitor.id }, data: { lastRunId: started.job_id } })
    return started
  }

  // ------------------------------------------------------------ the schedulers' reads

  /** Monitors whose next tick has come (the database scheduler), earliest first; of one time, by id (a batch mixes accounts). */
  async due (now: Date, limit: number): Promise<DueMonitor[]> {
    return this.deps.db.monitor.findMany({ where: { pausedAt: null, nextRunAt: { lte: now } }, orderBy: [{ nextRunAt: 'asc' }, { id: 'asc' }], take: limit, select: { id: true, accountId: true, schedule: true, nextRunAt: true } })
  }

  /**
   * A due monitor's tick: its latest one (several passed while the service was
   * down: one run, said missed), its run, then its next tick written.
   */
  async fireDue (monitor: { id: string, schedule: string, nextRunAt: Date | null }, now: Date): Promise<string> {
    const { schedule, tick, trigger } = planTick(monitor, now)
    const outcome = await this.fire(monitor.id, tick, trigger)
    await this.deps.db.monitor.updateMany({ where: { id: monitor.id, pausedAt: null }, data: { nextRunAt: nextTick(schedule, now) } })
    return outcome
  }

  /**
   * `fireDue` for a batch of due monitors (the database scheduler's pass), in
   * a few statements: one read of the monitors and their accounts, one of
   * their ticks already recorded, one insert of the new ticks; then the runs,
   * `parallel` at a time with the accounts interleaved (one account's starts
   * are admitted one at a time); then one update of the next ticks per
   * distinct next tick, in one transaction, for the monitors whose tick did
   * not fail (those stay due and are tried at the next pass). The next ticks
   * are written after the runs started, so a process that stops in between
   * finds the tick recorded and still due at its next start and finishes it
   * (idempotent on the tick). A tick already recorded (another scheduler, or
   * a stopped process) and an insert that meets one take `fire`'s path, one
   * monitor at a time: one tick, one run.
   */
  async fireDueBatch (batch: readonly DueMonitor[], now: Date, parallel: number): Promise<BatchOutcome> {
    const { db, clock } = this.deps
    const outcomes = new Map<string, FireOutcome>()
    const failures: Array<{ monitorId: string, err: unknown }> = []
    if (!batch.length) return { outcomes, failures }
    const planned = batch.map(m => ({ id: m.id, ...planTick(m, now) }))
    const ids = planned.map(p => p.id)
    const monitors = new Map((await db.monitor.findMany({ where: { id: { in: ids } }, include: { account: true } })).map(m => [m.id, m]))
    const recorded = await db.monitorTick.findMany({ where: { monitorId: { in: ids }, tick: { in: [...new Set(planned.map(p => p.tick.toISOString()))] } }, select: { monitorId: true, tick: true, jobId: true, skipped: true } })
    const recordedBy = new Map(recorded.map(r => [`${r.monitorId} ${r.tick}`, r]))
    let fresh: Array<{ plan: typeof planned[number], monitor: MonitorWithAccount, tickId: string }> = []
    const again: Array<typeof planned[number]> = []
    for (const plan of planned) {
      const monitor = monitors.get(plan.id)
      const before = recordedBy.get(`${plan.id} ${plan.tick.toISOString()}`)
      if (!monitor) outcomes.set(plan.id, 'gone')
      else if (monitor.pausedAt) outcomes.set(plan.id, 'skipped')
      else if (before && (before.jobId || before.skipped)) outcomes.set(plan.id, 'done-before')
      else if (before) again.push(plan)
      else fresh.push({ plan, monitor, tickId: randomUUID() })
    }
    if (fresh.length) {
      const createdAt = clock()
      try {
        await db.monitorTick.createMany({ data: fresh.map(f => ({ id: f.tickId, monitorId: f.plan.id, tick: f.plan.tick.toISOString(), scheduledFor: f.plan.tick, trigger: f.plan.trigger, createdAt })) })
      } catch (err) {
        // Another scheduler recorded one of them meanwhile: each is fired on its own, which finds whose tick is whose.
        if (!isUniqueViolation(err)) throw err
        again.push(...fresh.map(f => f.plan))
        fresh = []
      }
    }
    const tasks: Array<{ id: string, accountId: string, run: () => Promise<FireOutcome> }> = [
      ...fresh.map(f => ({ id: f.plan.id, accountId: f.monitor.accountId, run: () => this.runTick(f.monitor, f.tickId, f.plan.tick.toISOString(), false) })),
      ...again.map(p => ({ id: p.id, accountId: monitors.get(p.id)!.accountId, run: () => this.fire(p.id, p.tick, p.trigger) })),
    ]
    await eachInParallel(interleaveByAccount(tasks), parallel, async task => {
      try {
        outcomes.set(task.id, await task.run())
      } catch (err) {
        failures.push({ monitorId: task.id, err })
      }
    })
    const failed = new Set(failures.map(f => f.monitorId))
    const byNext = new Map<number, string[]>()
    for (const plan of planned) {
      if (failed.has(plan.id)) continue
      const next = nextTick(plan.schedule, now).getTime()
      const group = byNext.get(next)
      if (group) group.push(plan.id)
      else byNext.set(next, [plan.id])
    }
    await db.$transaction([...byNext].map(([next, group]) => db.monitor.updateMany({ where: { id: { in: group }, pausedAt: null }, data: { nextRunAt: new Date(next) } })))
    return { outcomes, failures }
  }

  /** The earliest next tick of any running monitor (the database scheduler sleeps until then). */
  async earliestNext (): Promise<Date | null> {
    const first = await this.deps.db.monitor.findFirst({ where: { pausedAt: null, nextRunAt: { not: null } }, orderBy: { nextRunAt: 'asc' }, select: { nextRunAt: true } })
    return first?.nextRunAt ?? null
  }

  /** Every running monitor's schedule (the BullMQ scheduler's reconciliation at start). */
  async active () {
    const rows = await this.deps.db.monitor.findMany({ where: { pausedAt: null }, select: { id: true, schedule: true, nextRunAt: true } })
    return rows.map(r => ({ id: r.id, schedule: JSON.parse(r.schedule) as Schedule, nextRunAt: r.nextRunAt }))
  }

  async scheduleOf (monitorId: string): Promise<Schedule | null> {
    const row = await this.deps.db.monitor.findUnique({ where: { id: monitorId }, select: { schedule: true, pausedAt: true } })
    return row && !row.pausedAt ? JSON.parse(row.schedule) as Schedule : null
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
