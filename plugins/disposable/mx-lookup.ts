// MX host names of a domain, through ctx.dns (the kernel's guarded resolver,
// pointed at the `dns_servers` setting with `using`). A stopped job's abort
// reason is passed on, never read as a DNS answer.
import { DnsLookupError, type DnsResolver } from '../../core/tools/contract.ts'

export interface MxHosts {
  /** Host names by preference; '' (a null MX) is left out. */
  hosts: string[]
  /** A DNS error code when the lookup failed; NXDOMAIN and "no MX" are not errors. */
  error: string | null
}

export async function lookupMxHosts (resolver: DnsResolver, domain: string): Promise<MxHosts> {
  try {
    const records = await resolver.mx(domain)
    const hosts = records
      .sort((a, b) => a.priority - b.priority)
      .map(r => r.exchange.replace(/\.$/, '').toLowerCase())
      .filter(Boolean)
    return { hosts: [...new Set(hosts)], error: null }
  } catch (err) {
    if (!(err instanceof DnsLookupError)) throw err
    const code = err.code
    if (code === 'ENODATA' || code === 'ENOTFOUND') return { hosts: [], error: null }
    return { hosts: [], error: code }
  }
}
