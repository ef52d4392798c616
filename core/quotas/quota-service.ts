// Calls and records per account, per UTC day and month. A charge is one
// conditional UPDATE per counter (of n calls at once for a batch of starts), so
// concurrent charges can never pass a limit, on SQLite and on PostgreSQL alike.
import { secondsUntilNextUtcDay, secondsUntilNextUtcMonth, type Clock } from '../clock.ts'
import { tooManyRequests, type AppError } from '../errors.ts'
import type { Db } from '../db/database.ts'
import { join } from '@prisma/client/runtime/client'
import type { HotReads } from '../db/hot-reads.ts'
import { tierLimits, type TierName } from './tiers.ts'
import type { Metrics } from '../metrics/metrics.ts'

export interface Usage { calls_today: number, calls_this_month: number, records_today: number, jobs_running: number, jobs_queued: number }
/** An account's unfinished jobs: `running` ones a worker has claimed, `queued` ones waiting for a slot (status 'running', stage 'queued'). */
export interface JobCounts { running: number, queued: number }
/** What a charge took, so a refund gives back to the same day and month even after midnight. */
export interface Charge { accountId: string, day: string, month: string }

const USAGE_SQL = `SELECT
  (SELECT calls FROM usage_counters WHERE account_id = ? AND period = ?) AS calls_today,
  (SELECT calls FROM usage_counters WHERE account_id = ? AND period = ?) AS calls_this_month,
  (SELECT records FROM usage_counters WHERE account_id = ? AND period = ?) AS records_today,
  (SELECT count(started_at) FROM jobs WHERE account_id = ? AND status = 'running') AS jobs_running,
  (SELECT count(*) FROM jobs WHERE account_id = ? AND status = 'running' AND started_at IS NULL) AS jobs_queued`

// A queued job is stored as status 'running' without started_at (DECISIONS.md: queued reads as running, stage 'queued').
const JOB_COUNTS_SQL = `SELECT count(started_at) AS running, count(*) - count(started_at) AS queued
  FROM jobs WHERE account_id = ? AND status = 'running'`

// PostgreSQL counts come back as bigint, SQLite's as number; a missing counter row as null.
const n = (v: number | bigint | null | undefined) => Number(v ?? 0)
/** The usage row as `usage` keeps it until the next commit (HotReads.selectUnchanged): frozen, callers share it. */
const usageOf = ([row]: Array<Record<keyof Usage, number | bigint | null>>): Readonly<Usage> =>
  Object.freeze({ calls_today: n(row?.calls_today), calls_this_month: n(row?.calls_this_month), records_today: n(row?.records_today), jobs_running: n(row?.jobs_running), jobs_queued: n(row?.jobs_queued) })
/** The counters' day and month periods of a moment (`d:YYYY-MM-DD`, `m:YYYY-MM`), from one ISO string: `usage` is on me's hot path. */
const periodsOf = (d: Date) => {
  const iso = d.toISOString()
  return { day: `d:${iso.slice(0, 10)}`, month: `m:${iso.slice(0, 7)}` }
}

/** The database client a statement runs on: the service's own, or an interactive transaction's. */
export type RawClient = Pick<Db, '$executeRaw'>

export class QuotaService {
  constructor (private readonly db: Db, private readonly clock: Clock, private readonly reads: HotReads, private readonly metrics: Pick<Metrics, 'refusals'>) {}

  /** Creates the account's counter row for a period if it is missing (the same SQL on SQLite and PostgreSQL). */
  private ensureRow (accountId: string, period: string, client: RawClient = this.db) {
    return client.$executeRaw`INSERT INTO usage_counters (account_id, period, calls, records) VALUES (${accountId}, ${period}, 0, 0) ON CONFLICT (account_id, period) DO NOTHING`
  }

  /** Adds `count` calls to the period's counter when all of them fit under `limit`; 1 when they did, 0 when not. */
  private bump (accountId: string, period: string, limit: number, count: number): Promise<number> {
    return this.db.$executeRaw`UPDATE usage_counters SET calls = calls + ${count} WHERE account_id = ${accountId} AND period = ${period} AND calls + ${count} <= ${limit}`
  }

  private unbump (accountId: string, period: string, client: RawClient = this.db, count = 1) {
    return client.$executeRaw`UPDATE usage_counters SET calls = CASE WHEN calls > ${count} THEN calls - ${count} ELSE 0 END WHERE account_id = ${accountId} AND period = ${period} AND calls > 0`
  }

  /**
   * Takes up to `count` calls of a period's counter: all of them in one
   * conditional UPDATE when they fit (the usual case), else as many as the
   * limit leaves, read and taken conditionally again (another charge may come
   * between the read and the UPDATE: then read again). Returns how many.
   */
  private async take (accountId: string, period: string, limit: number, count: number): Promise<number> {
    for (let want = count; want > 0;) {
      if (await this.bump(accountId, period, limit, want) > 0) return want
      const [row] = await this.db.$queryRaw<Array<{ calls: number | bigint }>>`SELECT calls FROM usage_counters WHERE account_id = ${accountId} AND period = ${period}`
      // No row (removed since it was ensured): nothing can be taken.
      if (!row) return 0
      want = Math.min(count, limit - n(row.calls))
    }
    return 0
  }

  /** Charges one call or throws 429 with Retry-After naming the quota that is spent. */
  async charge (accountId: string, tier: TierName, now: Date = this.clock()): Promise<Charge> {
    const { charge, refusal } = await this.chargeUpTo(accountId, tier, 1, now)
    if (refusal) throw refusal
    return charge
  }

  /**
   * Charges up to `count` calls at once (a batch of job starts of one
   * account): as many as the day's and the month's quotas leave, so the first
   * `charged` of the batch are paid for, as `count` charges one after the
   * other would have been. `refusal` is the 429 of the first one refused
   * (null when all were charged); the daily quota is checked first, as for one.
   */
  async chargeUpTo (accountId: string, tier: TierName, count: number, now: Date = this.clock()): Promise<{ charge: Charge, charged: number, refusal: AppError | null }> {
    const limits = tierLimits(tier)
    const { day, month } = periodsOf(now)
    const charge = { accountId, day, month }
    if (count <= 0) return { charge, charged: 0, refusal: null }
    await this.db.$executeRaw`INSERT INTO usage_counters (account_id, period, calls, records) VALUES (${accountId}, ${day}, 0, 0), (${accountId}, ${month}, 0, 0) ON CONFLICT (account_id, period) DO NOTHING`
    const byDay = await this.take(accountId, day, limits.calls_per_day, count)
    const charged = byDay > 0 ? await this.take(accountId, month, limits.calls_per_month, byDay) : 0
    if (charged < byDay) await this.unbump(accountId, day, this.db, byDay - charged)
    if (charged === count) return { charge, charged, refusal: null }
    const daily = charged === byDay
    this.metrics.refusals.inc({ reason: daily ? 'daily-quota' : 'monthly-quota' }, count - charged)
    const refusal = daily
      ? tooManyRequests(`Daily quota of ${limits.calls_per_day} calls for the ${tier} tier is used up; it resets at 00:00 UTC.`, secondsUntilNextUtcDay(now))
      : tooManyRequests(`Monthly quota of ${limits.calls_per_month} calls for the ${tier} tier is used up; it resets on the 1st at 00:00 UTC.`, secondsUntilNextUtcMonth(now))
    return { charge, charged, refusal }
  }

  /** Gives back `count` calls of a charge (a start that failed after its charge; a batch's, all of them). */
  async refund (charge: Charge, count = 1): Promise<void> {
    if (count <= 0) return
    for (const statement of this.refundStatements(charge, this.db, count)) await statement
  }

  /** refund as statements on a caller's transaction (JobEnding: the job's outcome and its refund are one write). */
  refundStatements (charge: Charge, client: RawClient = this.db, count = 1) {
    return [this.unbump(charge.accountId, charge.day, client, count), this.unbump(charge.accountId, charge.month, client, count)]
  }

  /** Records a charge made at `at` (a job's start) as a Charge, for refunds after a restart. */
  chargeAt (accountId: string, at: Date): Charge {
    return { accountId, ...periodsOf(at) }
  }

  async addRecords (accountId: string, count: number): Promise<void> {
    if (count <= 0) return
    await this.db.$transaction(this.addRecordsStatements(accountId, count))
  }

  /**
   * addRecords as statements for a caller's transaction, so the job's own count
   * is written with them or not at all: JobRunner's flush puts them in a batch
   * beside it; JobEnding runs them on its interactive transaction's client
   * (`client`), one after the other.
   */
  addRecordsStatements (accountId: string, count: number, client: RawClient = this.db) {
    if (count <= 0) return []
    const { day } = periodsOf(this.clock())
    return [
      this.ensureRow(accountId, day, client),
      client.$executeRaw`UPDATE usage_counters SET records = records + ${count} WHERE account_id = ${accountId} AND period = ${day}`,
    ]
  }

  async usage (accountId: string): Promise<Readonly<Usage>> {
    const { day, month } = periodsOf(this.clock())
    // One round trip instead of two typed queries (the me endpoint is the hot read path).
    return await this.reads.selectUnchanged(USAGE_SQL, [accountId, day, accountId, month, accountId, day, accountId, accountId], usageOf)
  }

  /** The unfinished jobs of many accounts at once (a batch start), in one statement; an account without any is absent. */
  async jobCountsOf (accountIds: readonly string[]): Promise<Map<string, JobCounts>> {
    if (!accountIds.length) return new Map()
    const rows = await this.db.$queryRaw<Array<{ account_id: string, running: number | bigint, queued: number | bigint }>>`SELECT account_id, count(started_at) AS running, count(*) - count(started_at) AS queued
      FROM jobs WHERE account_id IN (${join(accountIds)}) AND status = 'running' GROUP BY account_id`
    return new Map(rows.map(r => [r.account_id, { running: n(r.running), queued: n(r.queued) }]))
  }

  /** The account's unfinished jobs, for the per-tier job caps (JobService.start). */
  async jobCounts (accountId: string): Promise<JobCounts> {
    const [row] = await this.reads.select<Record<keyof JobCounts, number | bigint | null>>(JOB_COUNTS_SQL, [accountId])
    return { running: n(row?.running), queued: n(row?.queued) }
  }
}
