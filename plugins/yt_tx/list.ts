// yt_tx's list input (the declaration's `list`, read by run.ts): its own
// module, so the run takes it without importing the declaration.
import type { ListInput } from '../../core/tools/contract.ts'

export const MAX_VIDEOS = 50

/**
 * A video that cannot give its transcript (an age gate, a private or removed
 * video, a caption track that fails) is its row's `error`, made by the run
 * itself; a refusal of this server (a bot wall, HTTP 429) stops the list,
 * keeping the transcripts already read; anything else it throws ends the job.
 */
export const VIDEOS_LIST = {
  param: 'url',
  noun: 'videos',
  max: MAX_VIDEOS,
  onItemError: 'fail-job',
  onBlocked: 'stop-list',
  // A transcript counts as read, an error row does not: a refusal after only age gates is still the job's (refunded).
  readRow: (row: Record<string, unknown>) => row.error === null,
} satisfies ListInput
