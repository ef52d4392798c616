// List inputs: a param that takes one value or a list (`string | string[]`),
// and what the kernel does when one item of the list fails.
import type { ToolContext } from './context.ts'
import { BlockedTargetError, JobOutcomeError } from './outcomes.ts'

/**
 * What a failing item does to the run: 'row-error' pushes `errorRow(item, error)`
 * and goes on; 'warn-and-skip' warns (`<item>: <the error's job text>`) and goes
 * on, and when every item failed the last failure is the job's; 'fail-job' ends
 * the job with it. Whatever the policy, a stop (the job's signal), an error
 * that is not a JobOutcomeError (a bug), one that needs the operator (it would
 * repeat for every item) and the guard's BlockedTargetError end the job at once.
 */
export type ItemFailurePolicy = 'row-error' | 'warn-and-skip' | 'fail-job'

/** A declaration's list input (ToolDeclaration.list), read by `listItems` and run by `eachItem`. */
export interface ListInput<Row = Record<string, unknown>> {
  /**
   * The input param holding one value or a list; or the params whose values
   * make one list together, in this order (a list param and its one-value
   * twin, `items` and `item`): the items are one batch, de-duplicated across them.
   */
  param: string | readonly string[]
  /** What the items are, plural, as warnings name them ("links"). */
  noun: string
  /** Most items one run takes, besides the rows it may still push. */
  max?: number
  /**
   * Rows the run pushes besides its items' (a summary row over all of them): kept
   * free when the list is cut to the rows the run may still push.
   */
  reserve?: number
  onItemError: ItemFailurePolicy
  /** The row a failed item becomes under 'row-error'. */
  errorRow? (item: string, error: JobOutcomeError): Row
  /**
   * What a refusal by the source (a `blocked` failure: a bot wall, HTTP 429)
   * met on one item does. 'stop-list': the list stops there, since the next
   * items would meet the same refusal; the rows already pushed are kept and a
   * warning names the items not read and why; met before any item was read,
   * it is the job's (blocked, refunded). Without it, the failure policy.
   */
  onBlocked?: 'stop-list'
  /**
   * With onBlocked: whether a row an item gave counts as read (default: every
   * row). A row that only says why its entry failed (an `error` row) does not,
   * so a refusal after nothing but such rows is still the job's.
   */
  readRow? (row: Row): boolean
}

/** The warning of a list stopped by a refusal: why, and the items not read (the first ten, each cut to 100 characters). */
export function notReadWarning (notRead: readonly string[], noun: string, reason: string): string {
  const shown = notRead.slice(0, 10).map(item => JSON.stringify(item.slice(0, 100))).join(', ')
  return `The source refused the rest of the list (${reason}); ${notRead.length} of the ${noun} ${notRead.length === 1 ? 'was' : 'were'} not read: ${shown}${notRead.length > 10 ? `, and ${notRead.length - 10} more` : ''}. The rows before it are kept.`
}

/**
 * A list input as the caller gave it: trimmed, blanks and repeats dropped, and
 * cut to the rows this run may still push (with a warning saying so).
 */
function batchOf (ctx: Pick<ToolContext, 'remaining' | 'warn'>, values: Iterable<string>, noun: string): string[] {
  const items = [...new Set([...values].map(v => v.trim()).filter(v => v !== ''))]
  const room = Math.max(0, ctx.remaining())
  if (items.length > room) {
    ctx.warn(`Only the first ${room} of ${items.length} ${noun} were checked: the per-run row limit was reached.`)
    items.length = room
  }
  return items
}

/** The params a list reads, in order. */
export function listParams (list: Pick<ListInput<unknown>, 'param'>): readonly string[] {
  return typeof list.param === 'string' ? [list.param] : list.param
}

/** The declared list's items (batchOf over its params' values), cut to `max` too (with a warning). */
export function listItems (ctx: Pick<ToolContext<object>, 'input' | 'remaining' | 'warn'>, list: Pick<ListInput<unknown>, 'param' | 'noun' | 'max' | 'reserve'>): string[] {
  const values = listParams(list).flatMap(param => {
    const value = (ctx.input as Record<string, unknown>)[param]
    return typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
  })
  const reserve = list.reserve ?? 0
  const items = batchOf(reserve ? { remaining: () => ctx.remaining() - reserve, warn: ctx.warn } : ctx, values, list.noun)
  if (list.max !== undefined && items.length > list.max) {
    ctx.warn(`Only the first ${list.max} of ${items.length} ${list.noun} were read: a run takes at most ${list.max}.`)
    items.length = list.max
  }
  return items
}

export interface EachItemOptions {
  /** The progress text before an item (default: `<noun> <n> of <total>`). */
  stage? (index: number, total: number, item: string): string
  /** How a warning names an item (default: the item, at most 120 characters). */
  label? (item: string): string
  /**
   * Items run at once (default 1: one after the other). Whatever order they
   * finish in, their rows are pushed, and the failure policy applied, in the
   * items' order; the row room is checked before each item starts.
   */
  concurrency?: number
}

type ItemOutcome<Row> = { rows: Row[] } | { error: unknown }

/**
 * Runs `each` over the items (`concurrency` at a time, default one), pushes
 * their rows in the items' order, and applies the list's failure policy when
 * one throws. Stops with a warning when the run has no room for more rows. A
 * one-item list fails the job with its item's failure. An item read page by
 * page (an account's followers) may push its pages as they come through the
 * `push` it is given (concurrency 1: they then come in the items' order) and
 * return the rest; what it pushed counts as read (readRow) and stays when it
 * fails after.
 */
export async function eachItem<Row> (
  ctx: Pick<ToolContext<unknown, Row>, 'signal' | 'remaining' | 'warn' | 'stage' | 'push'>,
  list: ListInput<Row>,
  items: string[],
  each: (item: string, index: number, push: (rows: Row[]) => Promise<number>) => Promise<Row[]>,
  options: EachItemOptions = {},
): Promise<{ rows: number, failed: number }> {
  const label = options.label ?? ((item: string) => item.slice(0, 120))
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1))
  let rows = 0
  let failed = 0
  /** Items that gave a row that counts as read (readRow): whether a refusal met later still leaves the caller something. */
  let read = 0
  let last: unknown = null
  /** Items counted as read from the rows they pushed themselves. */
  const readEarly = new Set<string>()
  // Started items, oldest first: each settles to its rows or its error, never rejects.
  const started: Array<{ item: string, outcome: Promise<ItemOutcome<Row>> }> = []
  let next = 0
  const startMore = () => {
    while (started.length < concurrency && next < items.length) {
      ctx.signal.throwIfAborted()
      if (ctx.remaining() <= 0) {
        ctx.warn(`Stopped after ${next} of ${items.length} ${list.noun}: the per-run row limit was reached.`)
        next = items.length
        return
      }
      const index = next++
      const item = items[index]!
      ctx.stage(options.stage ? options.stage(index, items.length, item) : `${list.noun} ${index + 1} of ${items.length}`)
      const push = async (found: Row[]) => {
        const kept = await ctx.push(found)
        rows += kept
        if (!readEarly.has(item) && found.some(row => list.readRow?.(row) ?? true)) { readEarly.add(item); read++ }
        return kept
      }
      const outcome = each(item, index, push).then(found => ({ rows: found }), (error: unknown) => ({ error }))
      started.push({ item, outcome })
    }
  }
  startMore()
  while (started.length > 0) {
    const { item, outcome } = started.shift()!
    const settled = await outcome
    if ('rows' in settled) {
      rows += await ctx.push(settled.rows)
      if (!readEarly.has(item) && settled.rows.some(row => list.readRow?.(row) ?? true)) read++
    } else {
      const error = settled.error
      if (ctx.signal.aborted || !(error instanceof JobOutcomeError) || error.needsOperator || error instanceof BlockedTargetError) throw error
      if (error.blocked && list.onBlocked === 'stop-list') {
        if (read === 0) throw error
        // Items already started after this one count as not read with the rest (their answers may be the
        // same refusal); they are let finish, so nothing of the run goes on after it returns.
        await Promise.all(started.map(s => s.outcome))
        ctx.warn(notReadWarning(items.slice(items.indexOf(item)), list.noun, error.message))
        return { rows, failed: failed + 1 }
      }
      if (list.onItemError === 'fail-job' || (list.onItemError === 'warn-and-skip' && items.length === 1)) throw error
      failed++
      last = error
      if (list.onItemError === 'row-error' && list.errorRow) rows += await ctx.push([list.errorRow(item, error)])
      else ctx.warn(`${label(item)}: ${error.jobError}`)
    }
    startMore()
  }
  if (list.onItemError === 'warn-and-skip' && failed > 0 && failed === items.length) throw last
  return { rows, failed }
}
