// microblog's list inputs (the declaration's `list`, read by run.ts): its own
// module, so the run takes them without importing the declaration. A call
// gives one of the three (the input schema's oneOf).
import type { ListInput } from '../../core/tools/contract.ts'

/** Queries, usernames or posts per call; the per-run row ceiling spans them all. */
export const MAX_ITEMS = 100

/**
 * Searches and timelines: each item is paged in turn and pushes its pages
 * itself. An item with no post, or an unknown username, is a warning made by
 * the run; what it throws ends the job: a refusal (HTTP 429, 403) would meet
 * every later item too, a rejected token or an invalid query likewise.
 */
export const QUERIES_LIST = { param: 'query', noun: 'queries', max: MAX_ITEMS, onItemError: 'fail-job' } satisfies ListInput
export const USERNAMES_LIST = { param: 'username', noun: 'usernames', max: MAX_ITEMS, onItemError: 'fail-job' } satisfies ListInput

/**
 * Posts are looked up 100 ids a request, not one by one, so this list is read
 * with listItems and not run by eachItem: a link that is not a post, or a post
 * the answer lacks, is a warning; a failing request ends the job.
 */
export const POSTS_LIST = { param: 'url', noun: 'posts', max: MAX_ITEMS, onItemError: 'fail-job' } satisfies ListInput
