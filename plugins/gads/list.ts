// gads's list input (the declaration's `list`, read by run.ts): its own
// module, so the run takes it without importing the declaration. `regions`
// is not an item list: every domain is asked in each region and one row per
// advertiser reports them all (`regions_checked`, `regions`), so the regions
// are a setting of each lookup, checked once before the list.
import type { ListInput } from '../../core/tools/contract.ts'

/** Domains per call: each is one lookup; the per-run row ceiling spans them all. */
export const MAX_DOMAINS = 50

/**
 * A domain that fails (not a domain, an upstream error) is a warning and the
 * others go on; when every one fails, the last failure is the job's. A refusal
 * (HTTP 403/429, a captcha) would meet every later lookup too: the list stops
 * there, the rows found kept; met first, it is the job's (blocked, refunded).
 */
export const DOMAINS_LIST = { param: 'domain', noun: 'domains', max: MAX_DOMAINS, onItemError: 'warn-and-skip', onBlocked: 'stop-list' } satisfies ListInput
