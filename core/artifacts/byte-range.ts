// HTTP Range for file downloads (RFC 9110 §14): one range is served as 206; a
// syntax the server does not serve (several ranges, other units, garbage) is
// ignored and the whole file sent, as the RFC allows; a range past the end is 416.
import type { ByteRange } from './artifact-store.ts'

export type RangeAnswer = { kind: 'whole' } | { kind: 'partial', range: ByteRange } | { kind: 'unsatisfiable' }

export function parseRange (header: string | undefined, size: number): RangeAnswer {
  if (!header) return { kind: 'whole' }
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'whole' }
  if (m[1] === '') {
    // A suffix: the last N bytes.
    const n = Number(m[2])
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' }
    return { kind: 'partial', range: { start: Math.max(0, size - n), end: size - 1 } }
  }
  const start = Number(m[1])
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
  if (!Number.isSafeInteger(start) || start >= size) return { kind: 'unsatisfiable' }
  if (end < start) return { kind: 'whole' }
  return { kind: 'partial', range: { start, end } }
}
