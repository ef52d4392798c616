// List inputs: a param that takes one value or a list.
import type { ToolContext } from './context.ts'

/**
 * A list input as the caller gave it: trimmed, blanks and repeats dropped, and
 * cut to the rows this run may still push (with a warning saying so).
 */
export function batchOf (ctx: Pick<ToolContext, 'remaining' | 'warn'>, values: Iterable<string>, noun: string): string[] {
  const items = [...new Set([...values].map(v => v.trim()).filter(v => v !== ''))]
  const room = Math.max(0, ctx.remaining())
  if (items.length > room) {
    ctx.warn(`Only the first ${room} of ${items.length} ${noun} were checked: the per-run row limit was reached.`)
    items.length = room
  }
  return items
}

