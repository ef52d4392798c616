// Reading JSON answers: a parse that says "not JSON" instead of throwing and
// refuses text past a size cap, and the small readers every parser of an
// upstream's JSON needs (a record or not, a text or not, a list or not, a value
// down a path) so no plugin keeps its own copies. Pure.

export type Json = Record<string, unknown>

/** Longest text readJson parses (10 Mi characters): the HTTP client caps bodies, this caps what reaches JSON.parse from elsewhere. */
export const MAX_JSON_CHARS = 10 * 1024 * 1024

/** The parsed value, or null when the text is not JSON or longer than `maxChars`. */
export function readJson (text: string, maxChars = MAX_JSON_CHARS): unknown {
  if (text.length > maxChars) return null
  try { return JSON.parse(text) } catch { return null }
}

/** A plain object (not an array, not null). */
export const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Trimmed non-blank text; a finite number as text; else null. */
export function textOf (v: unknown): string | null {
  if (typeof v === 'string') { const s = v.trim(); return s === '' ? null : s }
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return null
}

/** A boolean, else null (a "true" text is not one). */
export const booleanOf = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null)

/** The array itself, or [] for anything else. */
export const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

/** The value down `path` (object keys and array indexes), or undefined where it stops. */
export function pathOf (value: unknown, ...path: Array<string | number>): unknown {
  let at = value
  for (const step of path) {
    if (typeof step === 'number' ? !Array.isArray(at) : !isRecord(at)) return undefined
    at = (at as Record<string | number, unknown>)[step]
  }
  return at
}
