// fb's list input (the declaration's `list`, read by run.ts): its own module,
// so the run takes it without importing the declaration.
import type { ListInput } from '../../core/tools/contract.ts'

/** Pages per call: each is one or two requests; the per-run row ceiling spans them all. */
export const MAX_PAGES = 100

/**
 * A page's upstream failure or absence is its row (`found: false`, `error`),
 * made by the run itself; what it throws, a login or checkpoint wall (the
 * source refuses every later page too), ends the job.
 */
export const PAGES_LIST = { param: 'page', noun: 'pages', max: MAX_PAGES, onItemError: 'fail-job' } satisfies ListInput
