// A job seen as an MCP task (the io.modelcontextprotocol/tasks extension of
// the 2026-07-28 revision): the task id is the job id and every field is read
// from the job's record, so any API process answers for any task and a task
// outlives the request, the connection and the process that started it.
import type { JobStatusRecord } from '../jobs/job-view.ts'

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** How often a client should poll tasks/get: the REST default poll interval (a declaration's pollSeconds). */
const TASK_POLL_INTERVAL_MS = 2000

export type TaskStatus = 'working' | 'completed' | 'cancelled'

/**
 * running → working; done → completed; a cancelled job → cancelled; a job that
 * ended in error → completed with an isError result (the tool ran and reported
 * a failure: the extension keeps `failed` for protocol errors).
 */
export function taskState (job: JobStatusRecord): TaskStatus {
  if (job.status === 'running') return 'working'
  return job.status === 'cancelled' ? 'cancelled' : 'completed'
}

/**
 * The task fields (CreateTaskResult, and tasks/get without its result).
 * `ttlMs` counts from creation to the end of the job's retention window; while
 * the job runs that end is not known yet, so it is null (kept at least until
 * the job ends and its plan's retention has passed).
 */
export function taskHandle (job: JobStatusRecord) {
  const created = Date.parse(job.created_at)
  const lastUpdated = job.finished_at ?? job.started_at ?? job.created_at
  return {
    taskId: job.job_id,
    status: taskState(job),
    statusMessage: job.status === 'running'
      ? `${job.records} row${job.records === 1 ? '' : 's'} so far (${job.stage})`
      : `${job.status === 'done' ? 'done' : `ended: ${job.error ?? 'error'}`}, ${job.records} row${job.records === 1 ? '' : 's'}`,
    createdAt: job.created_at,
    lastUpdatedAt: lastUpdated,
    ttlMs: job.expires_at ? Math.max(1, Date.parse(job.expires_at) - created) : null,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  }
}
