// yt_comp's list input (the declaration's `list`, read by run.ts): its own
// module, so the run takes it without importing the declaration.
import type { ListInput } from '../../core/tools/contract.ts'

export const MAX_CHANNELS = 5

/**
 * A channel `yt` cannot read is its row's `error`, made by the run itself;
 * what it throws (a refusal, a nested tool not enabled) ends the job. The
 * comparison row is pushed besides one row per channel: `reserve` keeps room
 * for it. The channel rows carry their rank among all, so they are pushed
 * together after the last channel, not by each item.
 */
export const CHANNELS_LIST = { param: 'channels', noun: 'channels', max: MAX_CHANNELS, reserve: 1, onItemError: 'fail-job' } satisfies ListInput
