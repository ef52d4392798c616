// Where mail for a domain goes: MX records sorted by preference, the implicit
// MX (the domain's own A/AAAA) when there is none (RFC 5321 section 5.1), the
// null MX (RFC 7505), and NXDOMAIN.
//
// Lookups go through ctx.dns (the kernel's guarded resolver, pointed at the
// `dns_servers` setting with `using`): it tells NXDOMAIN (ENOTFOUND) from "no
// records of this type" (ENODATA) and stops when the job stops, rejecting with
// the job's abort reason, which is passed on here, never read as a DNS answer.
import { isIP } from 'node:net'
import { DnsLookupError, type DnsResolver } from '../../core/tools/contract.ts'

interface MailHost { host: string, priority: number }

type MailHostOutcome =
  /** MX records found; hosts are sorted by preference. */
  | 'mx'
  /** No MX: the domain's own A/AAAA records receive mail (RFC 5321 section 5.1). */
  | 'implicit_mx'
  /** A single MX "." (RFC 7505): the domain accepts no mail. */
  | 'null_mx'
  /** The domain does not exist. */
  | 'nxdomain'
  /** Neither MX nor A/AAAA records. */
  | 'no_mail_host'
  /** The lookup failed (timeout, SERVFAIL, refused): nothing can be concluded. */
  | 'dns_error'

export interface MailHostLookup {
  outcome: MailHostOutcome
  /** Hosts to try, best first. Empty unless outcome is mx or implicit_mx. */
  hosts: MailHost[]
  /** The MX records as published (sorted), including a null MX. */
  mx_records: MailHost[]
  error: string | null
}

/** The lookup's DNS code; anything that is not a DNS answer (the job stopping) is thrown on. */
const codeOf = (err: unknown): string => {
  if (err instanceof DnsLookupError) return err.code
  throw err
}
const isNoData = (code: string) => code === 'ENODATA'
const isNxDomain = (code: string) => code === 'ENOTFOUND'

/** Sorts by preference, then by name so equal preferences give a stable order. */
function sortMx (records: readonly { exchange: string, priority: number }[]): MailHost[] {
  return records
    .map(r => ({ host: r.exchange.replace(/\.$/, '').toLowerCase(), priority: r.priority }))
    .sort((a, b) => a.priority - b.priority || a.host.localeCompare(b.host))
}

/** A/AAAA addresses of the domain itself; [] when it has none. Throws on lookup failure. */
async function ownAddresses (resolver: DnsResolver, domain: string): Promise<string[]> {
  const { addresses, error } = await resolveHostAddresses(resolver, domain)
  if (error) throw new DnsLookupError(error, domain, 'A/AAAA')
  return addresses
}

export async function lookupMailHosts (resolver: DnsResolver, asciiDomain: string): Promise<MailHostLookup> {
  let records: { exchange: string, priority: number }[]
  try {
    records = await resolver.mx(asciiDomain)
  } catch (err) {
    const code = codeOf(err)
    if (isNxDomain(code)) return { outcome: 'nxdomain', hosts: [], mx_records: [], error: null }
    if (!isNoData(code)) return { outcome: 'dns_error', hosts: [], mx_records: [], error: `MX lookup: ${code}` }
    records = []
  }

  const mx = sortMx(records)
  if (mx.length > 0) {
    // RFC 7505 section 3: a null MX is the only MX of its domain. Should one
    // appear beside real hosts, it is a misconfiguration; the real hosts win.
    const real = mx.filter(r => r.host !== '')
    if (real.length === 0) return { outcome: 'null_mx', hosts: [], mx_records: mx, error: null }
    return { outcome: 'mx', hosts: real, mx_records: mx, error: null }
  }

  try {
    const addresses = await ownAddresses(resolver, asciiDomain)
    if (addresses.length === 0) return { outcome: 'no_mail_host', hosts: [], mx_records: [], error: null }
    return { outcome: 'implicit_mx', hosts: [{ host: asciiDomain, priority: 0 }], mx_records: [], error: null }
  } catch (err) {
    const code = codeOf(err)
    // The MX answer said the name exists; an NXDOMAIN now is a race or a broken
    // server, and in either case there is no host to deliver to.
    if (isNxDomain(code)) return { outcome: 'no_mail_host', hosts: [], mx_records: [], error: null }
    return { outcome: 'dns_error', hosts: [], mx_records: [], error: `A/AAAA lookup: ${code}` }
  }
}

export interface HostAddresses {
  /** IPv4 first: many networks that run probes have no IPv6 route. */
  addresses: string[]
  /** A DNS error code when neither family could be looked up, else null. */
  error: string | null
}

export async function resolveHostAddresses (resolver: DnsResolver, host: string): Promise<HostAddresses> {
  if (isIP(host)) return { addresses: [host], error: null }
  const [v4, v6] = await Promise.allSettled([resolver.a(host), resolver.aaaa(host)])
  const addresses = [
    ...(v4.status === 'fulfilled' ? v4.value : []),
    ...(v6.status === 'fulfilled' ? v6.value : []),
  ]
  if (addresses.length > 0) return { addresses, error: null }
  const codes = [v4, v6].flatMap(r => (r.status === 'rejected' ? [codeOf(r.reason)] : []))
  const hardFailure = codes.find(code => !isNoData(code) && !isNxDomain(code))
  return { addresses: [], error: hardFailure ?? null }
}
