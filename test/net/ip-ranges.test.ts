// Data-driven: each address beside the reason the guard gives (null = public).
import t from 'tap'
import { canonicalAddress, classifyAddress, classifyHostName } from '../../core/net/ip-ranges.ts'

const ADDRESSES: Array<[string, string | null]> = [
  // public
  ['8.8.8.8', null],
  ['1.1.1.1', null],
  ['93.184.216.34', null],
  ['172.15.255.255', null],
  ['172.32.0.1', null],
  ['100.63.255.255', null],
  ['100.128.0.1', null],
  ['169.253.255.255', null],
  ['2606:4700:4700::1111', null],
  ['2001:4860:4860::8888', null],
  ['::ffff:8.8.8.8', null],
  ['[2606:4700:4700::1111]', null],
  // loopback
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['2002:7f00:1::1', 'loopback'],
  // unspecified
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  // private
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['::ffff:192.168.0.1', 'private'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fec0::1', 'private'],
  // carrier-grade NAT
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.254', 'carrier-grade NAT'],
  // link-local
  ['169.254.0.1', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  // cloud metadata
  ['169.254.169.254', 'cloud metadata'],
  ['::ffff:169.254.169.254', 'cloud metadata'],
  ['::ffff:a9fe:a9fe', 'cloud metadata'],
  ['169.254.170.2', 'cloud metadata'],
  ['100.100.100.200', 'cloud metadata'],
  ['fd00:ec2::254', 'cloud metadata'],
  // multicast, broadcast, reserved, documentation, benchmarking
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['2001::1', 'reserved'],
  ['100::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['::1.2.3.4', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['2001:db8::1', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  // not an address at all
  ['example.com', 'not an IP address'],
  ['0177.0.0.1', 'not an IP address'],
  ['', 'not an IP address'],
]

t.test('classifyAddress', async t => {
  t.ok(ADDRESSES.length >= 30)
  for (const [address, reason] of ADDRESSES) {
    t.equal(classifyAddress(address), reason, `${address || '(empty)'} -> ${reason ?? 'public'}`)
  }
})

t.test('classifyHostName refuses metadata and localhost names before any lookup', async t => {
  t.equal(classifyHostName('metadata.google.internal'), 'cloud metadata')
  t.equal(classifyHostName('METADATA.google.internal.'), 'cloud metadata')
  t.equal(classifyHostName('metadata'), 'cloud metadata')
  t.equal(classifyHostName('instance-data.ec2.internal'), 'cloud metadata')
  t.equal(classifyHostName('localhost'), 'loopback')
  t.equal(classifyHostName('app.localhost'), 'loopback')
  t.equal(classifyHostName('example.com'), null)
  t.equal(classifyHostName('metadata.example.com'), null)
})

t.test('canonicalAddress', async t => {
  t.equal(canonicalAddress('::ffff:127.0.0.1'), '127.0.0.1')
  t.equal(canonicalAddress('[0:0:0:0:0:0:0:1]'), '::1')
  t.equal(canonicalAddress('2001:DB8:0:0:1:0:0:1'), '2001:db8::1:0:0:1')
  t.equal(canonicalAddress('::'), '::')
  t.equal(canonicalAddress('nope'), null)
})
