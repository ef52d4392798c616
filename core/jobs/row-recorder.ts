// Where a job's own run puts what it produces: rows checked against the tool's
// row schema and stored as they come (a crash loses none), counted against the
// per-run cap; the union of their keys (the export's columns); the run's stage,
// warnings and summary; and the heartbeat that writes the job's counters and
// the account's records_today. It stops nothing itself: reaching the cap, or
// finding the job ended elsewhere on a flush, is reported to `stop`.
import type { Logger } from 'pino'
import type { Clock } from '../clock.ts'
import type { Db } from '../db/database.ts'
import { insertRows } from '../db/insert-rows.ts'
import type { QuotaService } from '../quotas/quota-service.ts'
import type { SecretScrubber } from '../secrets/secret-scrubber.ts'
import type { ToolContext } from '../tools/contract.ts'
import type { LoadedTool } from '../tools/registry.ts'
import type { RunResidue } from './job-ending.ts'
import type { JobEvents } from './job-events.ts'
import type { LiveOverlay } from './job-view.ts'
import type { Metrics } from '../metrics/metrics.ts'

/** What differs between a job's own run and a nested one: where its rows and texts go. */
export type RunSink = Pick<ToolContext, 'remaining' | 'push' | 'stage' | 'warn' | 'summary'>

/** Why a recorder wants the run stopped: the per-run cap is reached, or a flush found the job ended elsewhere. */
export type RecorderStop = 'cap' | 'ended'

/** The job row fields a recorder reads. */
interface RecordedJob { id: string, accountId: string, tool: string, maxRecords: number, columns: string | null }

interface RowRecorderDeps {
  db: Db
  quotas: QuotaService
  clock: Clock
  secrets: SecretScrubber
  events: JobEvents
  metrics: Pick<Metrics, 'rowsWritten'>
}

/** Progress events at most this often, but for rows stored and the run's start, which always tell. */
const PROGRESS_EVERY_MS = 100

export class RowRecorder {
  private readonly columns: string[]
  private warning: string | null = null
  private summaryData: Record<string, unknown> = {}
  // Pushes are serialised so sequence numbers and the cap stay exact under concurrency.
  private pushChain: Promise<unknown> = Promise.resolve()
  // Rows stored but not yet in the job's `records` and the account's records_today.
  private unflushedRecords = 0
  // One flush at a time: two at once (a slow database, heartbeats 50 ms apart) let the
  // second write the job's count while the first's share of records_today was failing.
  private flushChain: Promise<unknown> = Promise.resolve()
  private flushWaiting = false
  private heartbeat: ReturnType<typeof setInterval> | undefined
  private lastEmit = 0

  constructor (
    private readonly deps: RowRecorderDeps,
    private readonly job: RecordedJob,
    private readonly rowCheck: LoadedTool['rowCheck'],
    /** The figures status reads in this process show; the nested runs' stage texts land here too. */
    private readonly live: LiveOverlay,
    /** The run's signal: once it fired, pushes store nothing. */
    private readonly signal: AbortSignal,
    private readonly stop: (reason: RecorderStop) => void,
  ) {
    this.columns = job.columns ? JSON.parse(job.columns) : []
  }

  /** The job's own run's sink: rows stored and counted here, texts scrubbed once (they leave the server). */
  sink (): RunSink {
    const { secrets } = this.deps
    return {
      remaining: () => Math.max(0, this.job.maxRecords - this.live.records),
      push: ((rows: Record<string, unknown>[]) => this.push(rows)) as ToolContext['push'],
      // Stage, warning and summary texts leave the server (status, WebSocket, MCP
      // progress, webhooks) and plugins build them from upstream errors: scrubbed here, once.
      stage: (text) => { this.live.stage = secrets.scrubJobText(String(text).slice(0, 500)); this.emitProgress() },
      // Several warnings read as one text, in the order they came.
      warn: (text) => { const t = secrets.scrubJobText(String(text).slice(0, 1000)); if (!this.warning?.includes(t)) this.warning = this.warning ? `${this.warning} ${t}` : t },
      summary: (data) => { this.summaryData = { ...this.summaryData, ...secrets.scrubJobValue(data) } },
    }
  }

  /** Checks, stores and counts a batch; resolves to how many rows were kept (fewer at the cap, none once stopped). */
  push (rows: Record<string, unknown>[]): Promise<number> {
    const next = this.pushChain.then(() => this.store(rows))
    this.pushChain = next.catch(() => {})
    return next
  }

  private async store (rows: Record<string, unknown>[]): Promise<number> {
    const { db, secrets } = this.deps
    const { job, live, columns } = this
    if (this.signal.aborted) return 0
    for (const row of rows) {
      if (!this.rowCheck.Check(row)) {
        const first = [...this.rowCheck.Errors(row)][0]
        throw new Error(`plugin '${job.tool}' pushed a row that does not match its row schema at ${first?.instancePath || '/'}: ${first?.message}`)
      }
    }
    const room = job.maxRecords - live.records
    const kept = rows.slice(0, Math.max(0, room))
    if (kept.length > 0) {
      for (const row of kept) for (const k of Object.keys(row)) if (!columns.includes(k)) columns.push(k)
      const start = live.records
      // Rows are the caller's data, kept as they are, except this server's own credential values.
      await insertRows(db, 'result_rows', ['job_id', 'seq', 'data'], kept.map((row, i) => [job.id, start + i, secrets.redactKnownValues(JSON.stringify(row))]))
      live.records += kept.length
      this.deps.metrics.rowsWritten.inc({ tool: job.tool }, kept.length)
      this.unflushedRecords += kept.length
      this.emitProgress(true)
    }
    if (live.records >= job.maxRecords) {
      if (rows.length > kept.length) this.warning ??= `Results stop at ${job.maxRecords} rows, the per-run ceiling of this plan.`
      this.stop('cap')
    }
    return kept.length
  }

  /** Resolves when every push made so far has been stored or has failed (a failed push is its caller's error). */
  settled (): Promise<unknown> {
    return this.pushChain
  }

  /** The run's start: shown at once. */
  started (): void {
    this.live.stage = 'running'
    this.emitProgress(true)
  }

  private emitProgress (force = false): void {
    const t = Date.now()
    if (!force && t - this.lastEmit < PROGRESS_EVERY_MS) return
    this.lastEmit = t
    const { job, live } = this
    this.deps.events.emit(job.id, { type: 'progress', job_id: job.id, status: 'running', records: live.records, stage: live.stage })
  }

  /**
   * Writes the job's count, stage, columns and heartbeat and the account's
   * records_today. Rows are inserted as they come; these follow on the
   * heartbeat and at the end, so a push costs one insert.
   */
  flush (): Promise<void> {
    const next = this.flushChain.then(() => this.flushOnce())
    this.flushChain = next.catch(() => {})
    return next
  }

  private async flushOnce (): Promise<void> {
    const { db, quotas, clock } = this.deps
    const { job, live } = this
    const records = this.unflushedRecords
    this.unflushedRecords = 0
    // One transaction for the job's count and the account's: a worker killed between
    // the two had left rows the reaper saw as counted (job.records) that records_today
    // never had. Conditional: a job ended elsewhere (a cancel or the reaper of another
    // process) keeps its outcome, and this run stops.
    let count: number
    try {
      [{ count }] = await db.$transaction([
        db.job.updateMany({ where: { id: job.id, status: 'running' }, data: { stage: live.stage, records: live.records, heartbeatAt: clock(), columns: JSON.stringify(this.columns) } }),
        ...quotas.addRecordsStatements(job.accountId, records),
      ])
    } catch (err) {
      this.unflushedRecords += records // counted at the next heartbeat or the end
      throw err
    }
    if (count === 0) this.stop('ended')
  }

  /** A flush every `intervalMs`, skipped while the last one has not run yet. */
  startHeartbeat (intervalMs: number, log: Logger): void {
    this.heartbeat = setInterval(() => {
      if (this.flushWaiting) return
      this.flushWaiting = true
      this.flush().catch(err => log.warn({ err }, 'heartbeat failed')).finally(() => { this.flushWaiting = false })
    }, intervalMs)
  }

  stopHeartbeat (): void {
    clearInterval(this.heartbeat)
  }

  /** What the run leaves beside its outcome, for the ending's update; `done`: an empty run says so. */
  residue (done: boolean): RunResidue {
    const { live } = this
    const warning = done && live.records === 0 && !this.warning ? 'The run finished without results.' : this.warning
    return {
      records: live.records,
      warning,
      summary: Object.keys(this.summaryData).length ? JSON.stringify(this.summaryData) : null,
      columns: JSON.stringify(this.columns),
    }
  }
}
