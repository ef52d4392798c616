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
  createdAt: Date
  startedAt: Date | null
  finishedAt: Date | null
  expiresAt: Date | null
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
}

export const statusUrl = (job: Pick<JobRow, 'id' | 'resultsPath'>) =>
  job.resultsPath === 'jobs' ? `/api/jobs/${job.id}` : `/api/tool-run/${job.id}/status`
export const resultsUrl = (job: Pick<JobRow, 'id' | 'resultsPath'>) =>
  job.resultsPath === 'jobs' ? `/api/jobs/${job.id}/results` : `/api/tool-run/${job.id}/results`

export function jobStatusRecord (job: JobRow, live?: LiveOverlay): JobStatusRecord {
  const finished = job.status !== 'running'
  return {
    job_id: job.id,
    tool: job.tool,
    status: job.status,
    records: live?.records ?? job.records,
    stage: live?.stage ?? job.stage,
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
  }
}
