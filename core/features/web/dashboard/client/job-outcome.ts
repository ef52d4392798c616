// A job's ending as people read it, wherever they look (the playground's run
// panel, the results page, the jobs list): done, cancelled (its own outcome,
// not a failure: the rows written before it are kept) or failed; and the one
// way to cancel, after a confirmation.
import { call, type JobStatus } from './api.ts'
import { confirmAction } from './dom.ts'

/** What a person reads when a job ends: its outcome in words, the class that colours it. */
export function outcomeOf (job: JobStatus): { text: string, tone: 'ok' | 'cancelled' | 'error' } {
  const rows = `${job.records} row${job.records === 1 ? '' : 's'}`
  if (job.status === 'done') return { text: `Done: ${rows}.`, tone: 'ok' }
  if (job.status === 'cancelled') return { text: job.records ? `Cancelled: the ${rows} written before the cancel ${job.records === 1 ? 'is' : 'are'} kept; the call was refunded.` : 'Cancelled before any row was written; the call was refunded.', tone: 'cancelled' }
  return { text: job.error ?? 'The job failed.', tone: 'error' }
}

/** Asks first, then cancels; false when the person kept the job running. */
export async function cancelJob (jobId: string): Promise<boolean> {
  const sure = await confirmAction('Cancel this job? The rows it wrote so far are kept and the call is refunded.', 'Cancel the job', 'Keep it running')
  if (!sure) return false
  await call('DELETE', `/api/tool-run/${encodeURIComponent(jobId)}`)
  return true
}
