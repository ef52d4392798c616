// Is this the same business? Names compared by their words, legal suffixes
// (LLC, GmbH…) and accents aside; and a site's bare domain. Shared by the ad
// tools, which match listings against advertisers.

const LEGAL_SUFFIXES = new Set(['llc', 'inc', 'ltd', 'limited', 'gmbh', 'co', 'corp', 'corporation', 'company', 'plc', 'sa', 'srl', 'bv', 'ag', 'pty', 'the', 'and'])

export function nameTokens (name: string): string[] {
  return name.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/&/g, ' and ').replace(/['’]/g, '')
    .split(/[^a-z0-9]+/).filter(t => t && !LEGAL_SUFFIXES.has(t))
}

/** Every word of the shorter name is in the longer one, or the names match with spaces removed. */
export function namesMatch (a: string, b: string): boolean {
  const ta = nameTokens(a); const tb = nameTokens(b)
  if (!ta.length || !tb.length) return false
  const [short, long] = ta.length <= tb.length ? [ta, tb] : [tb, ta]
  const longSet = new Set(long)
  return short.every(t => longSet.has(t)) || short.join('') === long.join('')
}
