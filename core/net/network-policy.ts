// The network policy: which addresses a job may reach. One policy per app,
// shared by the guarded HTTP client, the crawler factory and raw-socket tools.
import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP, type LookupFunction } from 'node:net'
import { BlockedTargetError, UpstreamError, type NetworkPolicy } from '../tools/contract.ts'
import { canonicalAddress, classifyAddress, classifyHostName, unbracketHost } from './ip-ranges.ts'
import { describeNetworkFailure } from './public-errors.ts'

/** How a refusal names a URL whose host is an IP address (see vetTarget). */
const LITERAL_ADDRESS_LABEL = 'an IP address'

export interface ResolvedAddress { address: string, family: number }

/** Resolves a host name to every address it has (node:dns lookup with all: true by default). */
export type HostLookup = (hostName: string) => Promise<ResolvedAddress[]>

export const systemLookup: HostLookup = async (hostName) => dnsLookup(hostName, { all: true, order: 'verbatim' })

export interface NetworkPolicyOptions {
  /** ALLOW_PRIVATE_TARGETS=1: tests and local fixture sites; the guard then allows everything. */
  allowPrivateTargets: boolean
  /**
   * Exact `address:port` pairs allowed although their address is private,
   * e.g. `10.0.0.5:8080` for a self-hosted upstream or `[fd00::5]:8080`.
   * Exact pairs rather than ranges, so allowing one service opens nothing else.
   */
  allowedTargets?: readonly string[]
}

/** The contract's NetworkPolicy plus the checks the guard needs (host names, ports). */
export interface TargetPolicy extends NetworkPolicy {
  /** Throws BlockedTargetError for a host name refused whatever it resolves to (metadata names, localhost). */
  assertAllowedHostName (hostName: string, label?: string): void
  /** Like assertAllowedAddress, honouring the exact `address:port` exceptions. */
  assertAllowedTarget (address: string, port: number, label?: string): void
}

function targetKey (address: string, port: number): string {
  const canonical = canonicalAddress(address) ?? address
  return canonical.includes(':') ? `[${canonical}]:${port}` : `${canonical}:${port}`
}

function parseAllowedTarget (entry: string): string {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(entry.trim())
  const port = match ? Number(match[2]) : NaN
  if (!match || isIP(unbracketHost(match[1])) === 0 || port < 1 || port > 65535) {
    throw new Error(`allowed network target "${entry}" must be an exact IP address and port, e.g. 10.0.0.5:8080 or [fd00::5]:8080`)
  }
  return targetKey(unbracketHost(match[1]), port)
}

export function createNetworkPolicy (options: NetworkPolicyOptions): TargetPolicy {
  const { allowPrivateTargets } = options
  const allowed = new Set((options.allowedTargets ?? []).map(parseAllowedTarget))

  const assertAllowedAddress = (address: string, label?: string): void => {
    if (allowPrivateTargets) return
    const reason = classifyAddress(address)
    if (reason) throw new BlockedTargetError(label ?? address, reason)
  }

  return {
    allowPrivateTargets,
    assertAllowedAddress,
    assertAllowedHostName (hostName, label) {
      if (allowPrivateTargets) return
      const reason = classifyHostName(hostName)
      if (reason) throw new BlockedTargetError(label ?? hostName, reason)
    },
    assertAllowedTarget (address, port, label) {
      if (allowPrivateTargets || allowed.has(targetKey(address, port))) return
      assertAllowedAddress(address, label ?? targetKey(address, port))
    },
  }
}

/**
 * Resolves a target host and checks every address it resolves to (one bad
 * address refuses the host: a name with a public and a private record is how
 * rebinding attacks start). Returns the vetted addresses: connect to these and
 * only these. Literal IPs (brackets allowed) are checked without a lookup.
 */
export async function vetTarget (policy: TargetPolicy, lookup: HostLookup, host: string, port: number): Promise<ResolvedAddress[]> {
  const hostName = unbracketHost(host)
  const family = isIP(hostName)
  // Refusals name the host as the URL gave it, never an address or port: a
  // redirect or a DNS answer must not show the client what lies inside.
  if (family !== 0) {
    policy.assertAllowedTarget(hostName, port, LITERAL_ADDRESS_LABEL)
    return [{ address: hostName, family }]
  }
  policy.assertAllowedHostName(hostName)
  let addresses: ResolvedAddress[]
  try {
    addresses = await lookup(hostName)
  } catch (err) {
    throw new UpstreamError(`Could not resolve ${hostName}: ${describeNetworkFailure(err)}`)
  }
  if (addresses.length === 0) throw new UpstreamError(`Could not resolve ${hostName}: no addresses`)
  for (const { address } of addresses) policy.assertAllowedTarget(address, port, hostName)
  return addresses
}

/** The port a URL connects to, with the scheme's default when the URL has none. */
export function urlPort (url: URL): number {
  if (url.port) return Number(url.port)
  return url.protocol === 'https:' ? 443 : 80
}

/**
 * A `lookup` for net/tls.connect (and got's dnsLookup) that can only answer
 * addresses the guard vetted, so a socket connects to the address checked.
 */
export function pinnedLookup (addresses: ResolvedAddress[] | ((hostName: string) => ResolvedAddress[] | undefined)): LookupFunction {
  return ((hostName: string, options: { all?: boolean, family?: number | string }, callback: (...args: unknown[]) => void) => {
    const vetted = typeof addresses === 'function' ? addresses(hostName) : addresses
    if (!vetted || vetted.length === 0) {
      return callback(new BlockedTargetError(hostName, 'host was not checked by the network guard'))
    }
    if (options?.all) return callback(null, vetted)
    const family = Number(String(options?.family ?? 0).replace('IPv', ''))
    const chosen = (family === 4 || family === 6 ? vetted.find(a => a.family === family) : undefined) ?? vetted[0]
    callback(null, chosen.address, chosen.family)
  }) as LookupFunction
}
