// The weights of an Accept-style header (Accept, Accept-Encoding): one parser
// for the pages (HTML or JSON, which coding) and the agent endpoint (JSON or
// an event stream).
/**
 * The weights an Accept-style header gives (`Accept`, `Accept-Encoding`), by
 * lower-cased name: no `q` is 1, an unreadable one 0; a repeated name keeps
 * its highest weight.
 */
export function qualityValues (header: string): Map<string, number> {
  const weights = new Map<string, number>()
  for (const part of header.split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';')
    if (!token) continue
    const q = params.map(p => p.trim()).find(p => p.startsWith('q='))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    const name = token.trim()
    weights.set(name, Math.max(weights.get(name) ?? 0, Number.isFinite(weight) ? weight : 0))
  }
  return weights
}
