// products' list input (the declaration's `list`, read by run.ts): its own
// module, so the run takes it without importing the declaration.
import type { ListInput } from '../../core/tools/contract.ts'

/** Stores per call: each is one catalogue; the per-run row ceiling spans them all. */
export const MAX_STORES = 50

/**
 * A store that fails (unreachable, not the platform asked for, a refusal) is
 * warned about and the others go on; when every store fails, the last failure
 * is the job's, and a list of one store fails with it. A refusal (HTTP 429, a
 * password page) is one store's and does not stop the list: the next store is
 * another site. The kernel's exceptions stand (list-input.ts): a target the
 * guard refuses, a failure that needs the operator, or a bug end the job.
 */
export const STORES_LIST = { param: 'url', noun: 'stores', max: MAX_STORES, onItemError: 'warn-and-skip' } satisfies ListInput
