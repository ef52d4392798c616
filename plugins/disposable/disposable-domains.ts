// Is a domain disposable? Pure matching over the maintained list package
// (disposable-email-domains), subdomains of listed names, the operator's
// allow and deny lists, and the MX hosts of known disposable providers.
// Precedence: deny > allow > list > MX (see README.md).
import { domainToASCII } from 'node:url'
import { LIST_PACKAGE, loadDisposableList, type DisposableList } from '../lib/disposable-list.ts'
import { KNOWN_DISPOSABLE_MX_HOSTS } from './known-mx-hosts.ts'

export { LIST_PACKAGE, loadDisposableList, type DisposableList }

// ---------------------------------------------------------------- inputs

export interface DomainOfInput { domain: string | null, error: string | null }

const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * The A-label domain of an address ("jane@Mailinator.com"), a bare domain
 * ("mailinator.com"), or "@mailinator.com". Null with a reason when there is
 * no usable domain (an address literal has no domain to judge).
 */
export function domainOfInput (input: string): DomainOfInput {
  const trimmed = input.trim()
  const at = trimmed.lastIndexOf('@')
  const raw = (at === -1 ? trimmed : trimmed.slice(at + 1)).replace(/\.$/, '')
  if (raw === '') return { domain: null, error: 'no domain' }
  if (raw.startsWith('[')) return { domain: null, error: 'an address literal has no domain' }
  const ascii = domainToASCII(raw)
  if (!ascii) return { domain: null, error: 'not a valid domain name' }
  const labels = ascii.split('.')
  if (labels.length < 2 || !labels.every(l => LABEL_RE.test(l))) return { domain: null, error: 'not a valid domain name' }
  if (/^[0-9]+$/.test(labels[labels.length - 1])) return { domain: null, error: 'an IP address is not a domain' }
  return { domain: ascii, error: null }
}

/** The domain itself, then each parent with at least two labels: a.b.example.com → b.example.com → example.com. */
function selfAndParents (domain: string): string[] {
  const labels = domain.split('.')
  const out: string[] = []
  for (let i = 0; i < labels.length - 1; i++) out.push(labels.slice(i).join('.'))
  return out
}

// ---------------------------------------------------------------- matching

type DisposableReason =
  | 'deny_list'
  | 'allow_list'
  | 'listed'
  | 'listed_parent'
  | 'disposable_mx'
  | 'not_listed'
  | 'invalid_input'

export interface DomainVerdict {
  disposable: boolean
  reason: DisposableReason
  /** The list entry, allow/deny entry or MX host that decided, or null. */
  matched: string | null
}

export interface MatcherOptions {
  allow?: readonly string[]
  deny?: readonly string[]
  /** Extra MX host names (exact) the operator knows to be disposable. */
  extraMxHosts?: readonly string[]
  /** Defaults to the package list; tests may pass a small one. */
  list?: DisposableList
}

function normalizedNames (names: readonly string[] = []): Set<string> {
  const set = new Set<string>()
  for (const name of names) {
    const { domain } = domainOfInput(name)
    if (domain) set.add(domain)
  }
  return set
}

const firstIn = (set: ReadonlySet<string>, candidates: readonly string[]) => candidates.find(c => set.has(c)) ?? null

export class DisposableMatcher {
  private readonly allow: Set<string>
  private readonly deny: Set<string>
  private readonly mxHosts: Set<string>
  private readonly list: DisposableList

  constructor (options: MatcherOptions = {}) {
    this.allow = normalizedNames(options.allow)
    this.deny = normalizedNames(options.deny)
    this.mxHosts = new Set([...KNOWN_DISPOSABLE_MX_HOSTS, ...(options.extraMxHosts ?? [])].map(h => h.trim().toLowerCase().replace(/\.$/, '')))
    this.list = options.list ?? loadDisposableList()
  }

  /**
   * The verdict from names alone, or null when only an MX lookup could still
   * say more (the domain is on no list). Allow and deny entries cover their
   * subdomains too, like the list does.
   */
  byName (domain: string): DomainVerdict | null {
    const chain = selfAndParents(domain)
    const denied = firstIn(this.deny, chain)
    if (denied) return { disposable: true, reason: 'deny_list', matched: denied }
    const allowed = firstIn(this.allow, chain)
    if (allowed) return { disposable: false, reason: 'allow_list', matched: allowed }
    if (this.list.domains.has(domain) || this.list.wildcards.has(domain)) return { disposable: true, reason: 'listed', matched: domain }
    const parent = firstIn(this.list.domains, chain.slice(1)) ?? firstIn(this.list.wildcards, chain.slice(1))
    if (parent) return { disposable: true, reason: 'listed_parent', matched: parent }
    return null
  }

  /**
   * The first MX host that belongs to a disposable provider: a known
   * disposable MX host, or a host on (or under) a listed domain
   * ("mail.mailinator.com"). Hosts under an allow-listed name never count.
   */
  disposableMxHost (mxHosts: readonly string[]): string | null {
    for (const raw of mxHosts) {
      const host = raw.toLowerCase().replace(/\.$/, '')
      if (!host) continue
      const chain = selfAndParents(host)
      if (firstIn(this.allow, chain)) continue
      if (this.mxHosts.has(host)) return host
      if (firstIn(this.list.domains, chain) ?? firstIn(this.list.wildcards, chain)) return host
    }
    return null
  }
}
