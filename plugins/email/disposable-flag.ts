// The `disposable` flag on a verification row: is the domain (or a parent of
// it) on the disposable-domain list package? Plugins do not import each other,
// so this reads the npm package directly instead of plugins/disposable; the
// disposable tool adds MX matching and operator allow/deny lists on top.
import { createRequire } from 'node:module'
import { domainToASCII } from 'node:url'

const require = createRequire(import.meta.url)

export interface DisposableLists { domains: ReadonlySet<string>, wildcards: ReadonlySet<string> }

// The package is static read-only data (about 120k names); it is turned into
// Sets once per process on first use rather than at import, so loading the
// plugin stays cheap. Nothing mutable is shared between apps.
let lists: DisposableLists | null = null

function asciiSet (names: readonly string[]): Set<string> {
  const set = new Set<string>()
  for (const name of names) {
    const lower = name.trim().toLowerCase()
    if (!lower) continue
    set.add(lower)
    const ascii = domainToASCII(lower)
    if (ascii) set.add(ascii)
  }
  return set
}

export function disposableLists (): DisposableLists {
  lists ??= {
    domains: asciiSet(require('disposable-email-domains') as string[]),
    wildcards: asciiSet(require('disposable-email-domains/wildcard.json') as string[]),
  }
  return lists
}

/** The listed name that `asciiDomain` is or lies under ("x.mailinator.com" → "mailinator.com"), or null. */
export function disposableMatch (asciiDomain: string): string | null {
  const { domains, wildcards } = disposableLists()
  const labels = asciiDomain.toLowerCase().split('.')
  for (let i = 0; i < labels.length - 1; i++) {
    const candidate = labels.slice(i).join('.')
    if (domains.has(candidate) || wildcards.has(candidate)) return candidate
  }
  return null
}
