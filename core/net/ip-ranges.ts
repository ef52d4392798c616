// Pure classification of IP addresses and host names for the network guard.
// classifyAddress() answers *why* an address must not be reached from a job
// ("loopback", "private", "cloud metadata", ...) or null when it is public.
// No I/O here: resolution and policy live in network-policy.ts.
import { isIP, isIPv4 } from 'node:net'

/** An address as 16 bytes (IPv4 is stored IPv4-mapped, ::ffff:a.b.c.d). */
type AddressBytes = Uint8Array

interface Range { bytes: AddressBytes, prefix: number, reason: string }

/** Strips the brackets URL.hostname keeps around IPv6 literals, and an IPv6 zone id. */
export function unbracketHost (host: string): string {
  const inner = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  const zone = inner.indexOf('%')
  return zone === -1 ? inner : inner.slice(0, zone)
}

function parseIPv4 (text: string): number[] {
  return text.split('.').map(Number)
}

/** Parses an IPv4 or IPv6 literal into 16 bytes, or null when it is not one. */
export function parseAddress (address: string): AddressBytes | null {
  const text = unbracketHost(address.trim())
  const kind = isIP(text)
  if (kind === 4) return Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...parseIPv4(text)])
  if (kind !== 6) return null
  // An embedded dotted quad (::ffff:1.2.3.4) becomes two hex groups first.
  let hex = text.toLowerCase()
  const lastColon = hex.lastIndexOf(':')
  const tail = hex.slice(lastColon + 1)
  if (isIPv4(tail)) {
    const [a, b, c, d] = parseIPv4(tail)
    hex = `${hex.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, rest] = hex.includes('::') ? hex.split('::') : [hex, undefined]
  const headGroups = head ? head.split(':') : []
  const tailGroups = rest === undefined ? [] : (rest ? rest.split(':') : [])
  const missing = 8 - headGroups.length - tailGroups.length
  const groups = [...headGroups, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...tailGroups]
  const bytes = new Uint8Array(16)
  groups.forEach((group, i) => {
    const value = parseInt(group, 16)
    bytes[i * 2] = value >> 8
    bytes[i * 2 + 1] = value & 0xff
  })
  return bytes
}

function isMappedV4 (bytes: AddressBytes): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false
  return bytes[10] === 0xff && bytes[11] === 0xff
}

/** The canonical text of an address: dotted quad for IPv4 and IPv4-mapped IPv6, compressed lower-case IPv6 otherwise. */
export function canonicalAddress (address: string): string | null {
  const bytes = parseAddress(address)
  if (!bytes) return null
  if (isMappedV4(bytes)) return Array.from(bytes.subarray(12)).join('.')
  const groups: number[] = []
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i] << 8) | bytes[i + 1])
  // Compress the longest run of zero groups (length >= 2), as RFC 5952 asks.
  let bestStart = -1; let bestLength = 0
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i++; continue }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLength && j - i >= 2) { bestStart = i; bestLength = j - i }
    i = j
  }
  const hex = groups.map(g => g.toString(16))
  if (bestStart === -1) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`
}

function range (cidr: string, reason: string): Range {
  const [address, prefixText] = cidr.split('/')
  const bytes = parseAddress(address)
  if (!bytes) throw new Error(`bad range ${cidr}`)
  const prefix = Number(prefixText)
  // IPv4 ranges are matched against the IPv4-mapped form, hence the 96-bit offset.
  return { bytes, prefix: isIPv4(address) ? prefix + 96 : prefix, reason }
}

function inRange (bytes: AddressBytes, { bytes: base, prefix }: Range): boolean {
  let bits = prefix
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff
    if ((bytes[i] & mask) !== (base[i] & mask)) return false
  }
  return true
}

// Order matters: the first match wins, so specific addresses (metadata
// endpoints) come before the ranges that contain them.
const IPV4_RANGES: Range[] = [
  range('169.254.169.254/32', 'cloud metadata'), // AWS, GCP, Azure, OpenStack, DigitalOcean
  range('169.254.170.2/32', 'cloud metadata'), // AWS ECS task metadata
  range('100.100.100.200/32', 'cloud metadata'), // Alibaba Cloud
  range('192.0.0.192/32', 'cloud metadata'), // Oracle Cloud
  range('168.63.129.16/32', 'cloud metadata'), // Azure WireServer: a public address only the host answers
  range('0.0.0.0/8', 'unspecified'), // "this network"; 0.0.0.0 reaches the local host on Linux
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'), // IETF protocol assignments
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'reserved'), // deprecated 6to4 relay anycast
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('255.255.255.255/32', 'broadcast'),
  range('240.0.0.0/4', 'reserved'),
]

const IPV6_RANGES: Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::/96', 'reserved'), // deprecated IPv4-compatible form (::a.b.c.d), never routed
  range('fd00:ec2::254/128', 'cloud metadata'), // AWS IMDS over IPv6
  range('64:ff9b:1::/48', 'private'), // local-use NAT64
  range('100::/64', 'reserved'), // discard-only
  range('2001:db8::/32', 'documentation'),
  range('2001::/23', 'reserved'), // IETF protocol assignments, incl. Teredo
  range('fc00::/7', 'private'), // unique local
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'private'), // deprecated site-local
  range('ff00::/8', 'multicast'),
]

/** IPv6 forms that carry an IPv4 address the packet ends up at: classify that address. */
function embeddedIPv4 (bytes: AddressBytes): AddressBytes | null {
  const mapped = (at: number) => Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...bytes.subarray(at, at + 4)])
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every(b => b === 0)
  // 64:ff9b::/96, well-known NAT64 prefix
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return mapped(12)
  // 2002::/16, 6to4: the IPv4 address is in bits 16..48
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return mapped(2)
  return null
}

/**
 * Why this address must not be reached, or null when it is a public unicast
 * address. Anything that is not an IP literal is refused ("not an IP address"):
 * resolve names first.
 */
export function classifyAddress (address: string): string | null {
  const bytes = parseAddress(address)
  if (!bytes) return 'not an IP address'
  if (isMappedV4(bytes)) {
    for (const r of IPV4_RANGES) if (inRange(bytes, r)) return r.reason
    return null
  }
  for (const r of IPV6_RANGES) if (inRange(bytes, r)) return r.reason
  const inner = embeddedIPv4(bytes)
  if (inner) {
    for (const r of IPV4_RANGES) if (inRange(inner, r)) return r.reason
    return null
  }
  // Only 2000::/3 is allocated as global unicast; the rest is unassigned.
  if ((bytes[0] & 0xe0) !== 0x20) return 'reserved'
  return null
}

// Names that reach instance metadata without going through public DNS, and
// names that are loopback by definition (RFC 6761), refused before any lookup.
const METADATA_HOST_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
  'metadata.tencentyun.com',
])

/** Why this host name must not be reached whatever it resolves to, or null. */
export function classifyHostName (hostName: string): string | null {
  const name = hostName.toLowerCase().replace(/\.+$/, '')
  if (METADATA_HOST_NAMES.has(name)) return 'cloud metadata'
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback'
  return null
}
