// The tool keys this server knows, from tools.config.json: enabled, disabled and
// retired, plus did-you-mean suggestions for the rest. Nothing is charged
// before a key passes here.
import { badRequest, gone } from '../errors.ts'
import type { ToolsFileConfig } from '../config.ts'

function editDistance (a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = tmp
    }
  }
  return prev[b.length]!
}

export class ToolCatalog {
  private readonly enabled: Set<string>
  private readonly known: string[]
  private readonly retired: Map<string, string | null>

  constructor (tools: ToolsFileConfig, enabledKeys?: Iterable<string>) {
    this.known = tools.tools.map(t => t.key)
    this.enabled = new Set(enabledKeys ?? tools.tools.filter(t => t.enabled).map(t => t.key))
    this.retired = new Map(tools.retired.map(r => [r.key, r.replacement]))
  }

  /** Every key the server accepts (enabled or not), in configured order. */
  keys (): string[] { return [...this.known] }

  isEnabled (key: string): boolean { return this.enabled.has(key) }

  suggestions (key: string, max = 3): string[] {
    const k = key.toLowerCase()
    return this.known
      .map(candidate => ({ candidate, d: editDistance(k, candidate.toLowerCase()) + (candidate.toLowerCase().startsWith(k) || k.startsWith(candidate.toLowerCase()) ? -1 : 0) }))
      .filter(x => x.d <= Math.max(2, Math.floor(k.length / 2)))
      .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
      .slice(0, max)
      .map(x => x.candidate)
  }

  /** Throws 410 for retired or disabled keys and 400 (with did-you-mean) for unknown ones. */
  check (key: string): void {
    if (this.retired.has(key)) {
      const replacement = this.retired.get(key)
      throw gone(`The tool key '${key}' is retired${replacement ? `; use ${replacement} instead` : ''}.`)
    }
    if (!this.known.includes(key)) {
      const did = this.suggestions(key)
      throw badRequest(`Unknown tool key '${key}'.${did.length ? ` Did you mean: ${did.join(', ')}?` : ''} Valid keys: ${this.known.join(', ')}.`, { did_you_mean: did })
    }
    if (!this.enabled.has(key)) throw gone(`The tool '${key}' is not enabled on this server.`)
  }
}
