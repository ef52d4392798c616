// socialB's list input (the declaration's `list`, read by run.ts): its own
// module, so the run takes it without importing the declaration.
import type { ListInput } from '../../core/tools/contract.ts'

/** Accounts per call: each is paged in turn; the per-run row ceiling spans them all. */
export const MAX_ACCOUNTS = 20

/**
 * An account that is not one, unknown or private is a warning, made by the
 * run itself; what it throws, a refusal above all, ends the job: Instagram
 * flags a session that keeps asking after one, so the list does not go on
 * (and is not only stopped: the refusal is the job's, blocked and refunded).
 * An account's pages are pushed as they come, by the item itself.
 */
export const ACCOUNTS_LIST = { param: 'username', noun: 'accounts', max: MAX_ACCOUNTS, onItemError: 'fail-job' } satisfies ListInput
