// The job status record of the spec, built from the stored row plus what a
// running job holds in memory (stage and records move faster than we write).
export interface JobRow {
  id: string
  accountId: string
  tool: string
  status: string
  stage: string
  records: number
  error: string | null
  warning: string | null
  blocked: boolean
  refunded: boolean
  summary: string | null
  resultsPath: string
  /** The monitor this job is a run of, and its change counts once compared (JSON; core/monitors). */
  monitorId: string | null
  monitorChanges: string | null
  createdAt: Date
  startedAt: Date | null
  finishedAt: Date | null
  expiresAt: Date | null
}

/** The columns of a status read, as stored (the hot reader's row: snake_case, see jobRowFrom). */
export const JOB_STATUS_SQL = `SELECT id, account_id, tool, status, stage, records, error, warning, blocked, refunded, summary, results_path,
  monitor_id, monitor_changes, created_at, started_at, finished_at, expires_at FROM jobs WHERE id = ?`

export interface StoredJobRow {
  id: string
  account_id: string
  tool: string
  status: string
  stage: string
  records: number | bigint
  error: string | null
  warning: string | null
  blocked: boolean | number | bigint
  refunded: boolean | number | bigint
  summary: string | null
  results_path: string
  monitor_id: string | null
  monitor_changes: string | null
  created_at: Date | string | number
  started_at: Date | string | number | null
  finished_at: Date | string | number | null
  expires_at: Date | string | number | null
}

// PostgreSQL rows come back typed (Date, boolean); SQLite's as ISO text and 0/1.
const toDate = (v: Date | string | number | null): Date | null => (v === null ? null : v instanceof Date ? v : new Date(v))
const toBool = (v: boolean | number | bigint) => v === true || Number(v) === 1

function jobRowFrom (r: StoredJobRow): JobRow {
  return {
    id: r.id,
    accountId: r.account_id,
    tool: r.tool,
    status: r.status,
    stage: r.stage,
    records: Number(r.records),
    error: r.error,
    warning: r.warning,
    blocked: toBool(r.blocked),
    refunded: toBool(r.refunded),
    summary: r.summary,
    resultsPath: r.results_path,
    monitorId: r.monitor_id,
    monitorChanges: r.monitor_changes,
    createdAt: toDate(r.created_at)!,
    startedAt: toDate(r.started_at),
    finishedAt: toDate(r.finished_at),
    expiresAt: toDate(r.expires_at),
  }
}

export interface LiveOverlay { stage: string, records: number }

export interface JobStatusRecord {
  job_id: string
  tool: string
  status: string
  records: number
  stage: string
  has_results: boolean
  done: boolean
  error: string | null
  warning: string | null
  blocked: boolean
  refunded: boolean
  results_url: string
  status_url: string
  created_at: string
  started_at: string | null
  finished_at: string | null
  expires_at: string | null
  summary: Record<string, unknown> | null
  /** A monitor's run: its monitor and what it changed (null until compared, or when it failed). */
  monitor?: { monitor_id: string, changes: MonitorChangeCounts | null }
}

/** What a monitor's run changed against the monitor's last successful run (core/monitors). */
export interface MonitorChangeCounts { added: number, removed: number, changed: number, duplicates: number, first_run: boolean }

export const statusUrl = (job: Pick<JobRow, 'id' | 'resultsPath'>) =>
  job.resultsPath === 'jobs' ? `/api/jobs/${job.id}` : `/api/tool-run/${job.id}/status`
export const resultsUrl = (job: Pick<JobRow, 'id' | 'resultsPath'>) =>
  job.resultsPath === 'jobs' ? `/api/jobs/${job.id}/results` : `/api/tool-run/${job.id}/results`

/** A running job's record with its stage and count as its runner has them now (they are stored only now and then). */
export function withLiveOverlay (record: JobStatusRecord, live: LiveOverlay): JobStatusRecord {
  return { ...record, records: live.records, stage: live.stage }
}

/**
 * A status read's row as `JobService.status` keeps it (HotReads.selectUnchanged
 * keeps this, not the row, until the next commit): the job and its stored
 * status record, built once (four date parses, four ISO strings, the summary's
 * JSON were most of a poll's own work). Polls only read them; the live overlay
 * makes a new record.
 */
export const storedJobStatus = ([row]: StoredJobRow[]): { job: JobRow, record: JobStatusRecord } | undefined => {
  if (!row) return undefined
  const job = jobRowFrom(row)
  return { job, record: jobStatusRecord(job) }
}

export function jobStatusRecord (job: JobRow): JobStatusRecord {
  const finished = job.status !== 'running'
  return {
    job_id: job.id,
    tool: job.tool,
    status: job.status,
    records: job.records,
    stage: job.stage,
    has_results: finished,
    done: job.status === 'done',
    error: job.error,
    warning: job.warning,
    blocked: job.blocked,
    refunded: job.refunded,
    results_url: resultsUrl(job),
    status_url: statusUrl(job),
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
    expires_at: job.expiresAt?.toISOString() ?? null,
    summary: job.summary ? JSON.parse(job.summary) as Record<string, unknown> : null,
    ...(job.monitorId ? { monitor: { monitor_id: job.monitorId, changes: job.monitorChanges ? JSON.parse(job.monitorChanges) as MonitorChangeCounts : null } } : {}),
  }
}

const INPUT_SUMMARY_MAX = 120

/**
 * A job's input in short, for lists (`GET /api/jobs`): its text params in the
 * order given, a list as its first item and how many more, an uploaded file as
 * its name; numbers and switches left out (mostly defaults). At most two params
 * and 120 characters, so 200 jobs of 1,000 sites each stay a small answer.
 */
export function inputSummary (input: string): string {
  let params: unknown
  try { params = JSON.parse(input) } catch { return '' }
  if (!params || typeof params !== 'object') return ''
  const text = (value: string) => value.replace(/^upload:\/\//, '')
  const parts: string[] = []
  for (const value of Object.values(params as Record<string, unknown>)) {
    if (parts.length === 2) break
    if (typeof value === 'string' && value.trim()) parts.push(text(value.trim()))
    else if (Array.isArray(value) && typeof value[0] === 'string') parts.push(value.length > 1 ? `${text(value[0])} (+${value.length - 1} more)` : text(value[0]))
  }
  const summary = parts.join(' · ')
  return summary.length > INPUT_SUMMARY_MAX ? `${summary.slice(0, INPUT_SUMMARY_MAX - 1)}…` : summary
}
