// The maintained disposable-domain list (npm `disposable-email-domains`,
// ivolo/disposable-email-domains), shared by the `email` tool's disposable flag
// and the `disposable` tool, which adds MX matching and allow/deny lists.
import { createRequire } from 'node:module'
import { domainToASCII } from 'node:url'

const require = createRequire(import.meta.url)

/** The npm package the list comes from. */
export const LIST_PACKAGE = 'disposable-email-domains'

export interface DisposableList {
  /** index.json: disposable domains (and, by our rule, their subdomains). */
  domains: ReadonlySet<string>
  /** wildcard.json: names whose every subdomain is disposable. */
  wildcards: ReadonlySet<string>
}

function asciiSet (names: readonly string[]): Set<string> {
  const set = new Set<string>()
  for (const name of names) {
    const lower = name.trim().toLowerCase()
    if (!lower) continue
    set.add(lower)
    // A dozen entries are written in Unicode; inputs are compared as A-labels.
    const ascii = domainToASCII(lower)
    if (ascii) set.add(ascii)
  }
  return set
}

// Static read-only package data (about 120k names), turned into Sets once per
// process on first use, not at import. Nothing mutable is shared between apps.
let packageList: DisposableList | null = null

export function loadDisposableList (): DisposableList {
  packageList ??= {
    domains: asciiSet(require(LIST_PACKAGE) as string[]),
    wildcards: asciiSet(require(`${LIST_PACKAGE}/wildcard.json`) as string[]),
  }
  return packageList
}

/** The listed name that `asciiDomain` is or lies under ("x.mailinator.com" → "mailinator.com"), or null. */
export function disposableListMatch (asciiDomain: string, list: DisposableList = loadDisposableList()): string | null {
  const labels = asciiDomain.toLowerCase().split('.')
  for (let i = 0; i < labels.length - 1; i++) {
    const candidate = labels.slice(i).join('.')
    if (list.domains.has(candidate) || list.wildcards.has(candidate)) return candidate
  }
  return null
}
