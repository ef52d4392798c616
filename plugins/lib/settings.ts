// The kinds of operator setting every plugin has, each in one unit
// (core/tools/README.md, Settings): durations in milliseconds, parallelism
// as `concurrency`, a paged upstream's page as `page_size`. Each gives the TypeBox schema its settings table is
// written from (scripts/docs-tables.ts).
import { Type } from '../../core/tools/contract.ts'

/** A duration in milliseconds (`timeout_ms`, `page_timeout_ms`): 1 s to 5 min unless `maximum` says more or less. */
export const Milliseconds = (value: number, description: string, maximum = 300_000) =>
  Type.Integer({ minimum: 1000, maximum, default: value, description })

/** How many at once (`concurrency`, `per_<what>_concurrency`), from 1 to `maximum`. */
export const Concurrency = (value: number, maximum: number, description: string) =>
  Type.Integer({ minimum: 1, maximum, default: value, description })

/** Items asked per page of a paged upstream (`page_size`), from `minimum` (default 1) to the most the upstream gives. */
export const PageSize = (value: number, maximum: number, description: string, minimum = 1) =>
  Type.Integer({ minimum, maximum, default: value, description })
