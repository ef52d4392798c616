// yt_thumbs' list input (the declaration's `list`, read by run.ts): its own
// module, so the run takes it without importing the declaration.
import type { ListInput } from '../../core/tools/contract.ts'

/** Videos per call: each is a few HEAD requests; the per-run row ceiling spans them all. */
export const MAX_VIDEOS = 200

/**
 * A video the image host failed for is its row (`error`), made by the run
 * itself; what it throws (the host refusing: blocked) ends the job.
 */
export const VIDEOS_LIST = { param: 'url', noun: 'videos', max: MAX_VIDEOS, onItemError: 'fail-job' } satisfies ListInput
