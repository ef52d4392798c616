// Similarity of two texts as bags of words, for comparing extracted readable text with
// a reference output: |multiset intersection| / max(|a|, |b|) over lower-cased word
// tokens. Order and whitespace do not count; missing and extra words both do.
import { load } from 'cheerio'

/** Lower-cased word tokens: runs of letters and digits in any script. */
export function wordTokens (text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
}

export function tokenOverlap (a: string, b: string): number {
  const left = wordTokens(a)
  const right = wordTokens(b)
  if (left.length === 0 && right.length === 0) return 1
  const counts = new Map<string, number>()
  for (const token of left) counts.set(token, (counts.get(token) ?? 0) + 1)
  let shared = 0
  for (const token of right) {
    const count = counts.get(token) ?? 0
    if (count > 0) {
      shared++
      counts.set(token, count - 1)
    }
  }
  return shared / Math.max(left.length, right.length)
}

/** The text of an HTML fragment with every tag replaced by a space and entities decoded. */
export function stripTags (html: string): string {
  return load(html.replace(/<[^>]*>/g, ' '), null, false).text()
}
