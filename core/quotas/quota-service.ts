// Calls and records per account, per UTC day and month. A charge is one
// conditional UPDATE per counter, so concurrent charges can never pass a limit,
// on SQLite and on PostgreSQL alike.
import { secondsUntilNextUtcDay, secondsUntilNextUtcMonth, type Clock } from '../clock.ts'
import { tooManyRequests } from '../errors.ts'
import type { Db } from '../db/database.ts'
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

  private bump (accountId: string, period: string, limit: number): Promise<number> {
    return this.db.$executeRaw`UPDATE usage_counters SET calls = calls + 1 WHERE account_id = ${accountId} AND period = ${period} AND calls < ${limit}`
  }

  private unbump (accountId: string, period: string, client: RawClient = this.db) {
    return client.$executeRaw`UPDATE usage_counters SET calls = calls - 1 WHERE account_id = ${accountId} AND period = ${period} AND calls > 0`
  }

  /** Charges one call or throws 429 with Retry-After naming the quota that is spent. */
  async charge (accountId: string, tier: TierName, now: Date = this.clock()): Promise<Charge> {
    const limits = tierLimits(tier)
    const { day, month } = periodsOf(now)
    await this.ensureRow(accountId, day)
    await this.ensureRow(accountId, month)
    if (await this.bump(accountId, day, limits.calls_per_day) === 0) {
      this.metrics.refusals.inc({ reason: 'daily-quota' })
      throw tooManyRequests(`Daily quota of ${limits.calls_per_day} calls for the ${tier} tier is used up; it resets at 00:00 UTC.`, secondsUntilNextUtcDay(now))
    }
    if (await this.bump(accountId, month, limits.calls_per_month) === 0) {
      await this.unbump(accountId, day)
      this.metrics.refusals.inc({ reason: 'monthly-quota' })
      throw tooManyRequests(`Monthly quota of ${limits.calls_per_month} calls for the ${tier} tier is used up; it resets on the 1st at 00:00 UTC.`, secondsUntilNextUtcMonth(now))
    }
    return { accountId, day, month }
  }

  async refund (charge: Charge): Promise<void> {
    for (const statement of this.refundStatements(charge)) await statement
  }

  /** refund as statements on a caller's transaction (JobEnding: the job's outcome and its refund are one write). */
  refundStatements (charge: Charge, client: RawClient = this.db) {
    return [this.unbump(charge.accountId, charge.day, client), this.unbump(charge.accountId, charge.month, client)]
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

  /** The account's unfinished jobs, for the per-tier job caps (JobService.start). */
  async jobCounts (accountId: string): Promise<JobCounts> {
    const [row] = await this.reads.select<Record<keyof JobCounts, number | bigint | null>>(JOB_COUNTS_SQL, [accountId])
    return { running: n(row?.running), queued: n(row?.queued) }
  }
}
