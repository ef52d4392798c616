// How deeply a JSON request body may nest. Tool inputs, blog posts and MCP
// envelopes are a few levels deep; a body thousands of levels deep only
// overflows the stack of whatever walks it next (structuredClone, schema
// defaults, JSON.stringify), so it is refused as a 400 before validation.
import { badRequest } from './errors.ts'

const MAX_BODY_DEPTH = 64

/** Nesting depth of a parsed JSON value, counted without recursion (so it cannot overflow itself). */
function jsonDepth (value: unknown, stopAt = Infinity): number {
  let deepest = 0
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length) {
    const [node, depth] = stack.pop()!
    if (node === null || typeof node !== 'object') continue
    if (depth > deepest) deepest = depth
    if (deepest > stopAt) return deepest
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
    }
  }
  return deepest
}

export function assertBodyDepth (body: unknown, max = MAX_BODY_DEPTH): void {
  if (jsonDepth(body, max) > max) throw badRequest(`The request body nests deeper than ${max} levels.`)
}
