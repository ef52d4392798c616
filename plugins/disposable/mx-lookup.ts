// MX host names of a domain, through configurable DNS servers. node:dns's
// Resolver takes "127.0.0.1:5353" in setServers(), so tests point it at a
// local dns2 server; cancel() stops queries when the job is aborted.
import { Resolver } from 'node:dns/promises'

export interface MxResolverOptions {
  /** "ip" or "ip:port"; empty means the system's resolvers. */
  servers: readonly string[]
  timeoutMs: number
  tries: number
  signal?: AbortSignal
}

export function createMxResolver (options: MxResolverOptions): Resolver {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries })
  if (options.servers.length > 0) resolver.setServers([...options.servers])
  options.signal?.addEventListener('abort', () => resolver.cancel(), { once: true })
  return resolver
}

export interface MxHosts {
  /** Host names by preference; '' (a null MX) is left out. */
  hosts: string[]
  /** A DNS error code when the lookup failed; NXDOMAIN and "no MX" are not errors. */
  error: string | null
}

export async function lookupMxHosts (resolver: Resolver, domain: string): Promise<MxHosts> {
  try {
    const records = await resolver.resolveMx(domain)
    const hosts = records
      .sort((a, b) => a.priority - b.priority)
      .map(r => r.exchange.replace(/\.$/, '').toLowerCase())
      .filter(Boolean)
    return { hosts: [...new Set(hosts)], error: null }
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'EUNKNOWN'
    if (code === 'ENODATA' || code === 'ENOTFOUND') return { hosts: [], error: null }
    return { hosts: [], error: code }
  }
}
