// yt's list input (the declaration's `list`, read by run.ts): its own module,
// so the run takes it without importing the declaration.
import type { ListInput } from '../../core/tools/contract.ts'

/**
 * An entry that cannot be read (a wrong id, an unavailable, private or
 * age-restricted video, an empty playlist) is its row's `error`, made by the
 * run itself; a refusal of this server (a bot wall, HTTP 429) stops the list,
 * keeping the rows already read and naming the entries not read; anything
 * else it throws ends the job.
 */
export const ENTRIES_LIST = {
  param: 'url',
  noun: 'entries',
  onItemError: 'fail-job',
  onBlocked: 'stop-list',
  // A video, channel or listed video counts as read, an error row does not: a refusal after only failed entries is still the job's.
  readRow: (row: Record<string, unknown>) => row.error === null,
} satisfies ListInput
