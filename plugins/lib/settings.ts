// The kinds of operator setting every plugin has, each in one unit
// (core/tools/README.md, Settings): durations in milliseconds, parallelism
// as `concurrency`. Each gives the TypeBox schema its settings table is
// written from (scripts/docs-tables.ts).
import { Type } from '../../core/tools/contract.ts'

/** A duration in milliseconds (`timeout_ms`, `page_timeout_ms`): 1 s to 5 min unless `maximum` says more or less. */
export const Milliseconds = (value: number, description: string, maximum = 300_000) =>
  Type.Integer({ minimum: 1000, maximum, default: value, description })

/** How many at once (`concurrency`, `per_<what>_concurrency`), from 1 to `maximum`. */
export const Concurrency = (value: number, maximum: number, description: string) =>
  Type.Integer({ minimum: 1, maximum, default: value, description })
