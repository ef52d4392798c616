// Mail host lookup against a local dns2 server: MX order, null MX, implicit
// MX, NXDOMAIN, NODATA, and address resolution.
import t from 'tap'
import { lookupMailHosts, resolveHostAddresses } from '../../../plugins/email/dns.ts'
import { createDnsResolver } from '../../../core/net/dns-resolver.ts'
import { startDnsServer } from './fixtures/dns-server.ts'

/** ctx.dns as the kernel builds it, pointed at a local DNS server as the dns_servers setting does. */
async function resolverFor (t: Parameters<typeof startDnsServer>[0], zone: Parameters<typeof startDnsServer>[1]) {
  const dns = await startDnsServer(t, zone)
  return createDnsResolver(new AbortController().signal).using({ servers: [dns.address], timeoutMs: 300, tries: 1 })
}

t.test('MX records are sorted by preference', async t => {
  const resolver = await resolverFor(t, {
    'order.test': { MX: [{ exchange: 'c.order.test', priority: 30 }, { exchange: 'a.order.test', priority: 10 }, { exchange: 'b.order.test', priority: 20 }] },
  })
  const lookup = await lookupMailHosts(resolver, 'order.test')
  t.equal(lookup.outcome, 'mx')
  t.same(lookup.hosts.map(h => h.host), ['a.order.test', 'b.order.test', 'c.order.test'])
})

t.test('a single MX "." with preference 0 is a null MX (RFC 7505)', async t => {
  const resolver = await resolverFor(t, { 'null.test': { MX: [{ exchange: '', priority: 0 }] } })
  t.match(await lookupMailHosts(resolver, 'null.test'), { outcome: 'null_mx', hosts: [], mx_records: [{ host: '', priority: 0 }] })
})

t.test('a null MX beside real MX records is ignored: the real hosts win', async t => {
  const resolver = await resolverFor(t, { 'mixed.test': { MX: [{ exchange: '', priority: 0 }, { exchange: 'mx.mixed.test', priority: 10 }] } })
  t.match(await lookupMailHosts(resolver, 'mixed.test'), { outcome: 'mx', hosts: [{ host: 'mx.mixed.test' }] })
})

t.test('no MX: A or AAAA records make the implicit MX (RFC 5321 section 5.1)', async t => {
  const resolver = await resolverFor(t, { 'v6only.test': { AAAA: ['2001:db8::25'] }, 'bare.test': {} })
  t.match(await lookupMailHosts(resolver, 'v6only.test'), { outcome: 'implicit_mx', hosts: [{ host: 'v6only.test', priority: 0 }] })
  t.match(await lookupMailHosts(resolver, 'bare.test'), { outcome: 'no_mail_host', hosts: [] })
})

t.test('NXDOMAIN and an unanswered query', async t => {
  const resolver = await resolverFor(t, { 'mute.test': { silent: true } })
  t.match(await lookupMailHosts(resolver, 'gone.test'), { outcome: 'nxdomain' })
  t.match(await lookupMailHosts(resolver, 'mute.test'), { outcome: 'dns_error', error: /ETIMEOUT/ })
})

t.test('host addresses: IPv4 first, then IPv6; an IP is its own address', async t => {
  const resolver = await resolverFor(t, { 'dual.test': { A: ['192.0.2.25'], AAAA: ['2001:db8::25'] } })
  t.same(await resolveHostAddresses(resolver, 'dual.test'), { addresses: ['192.0.2.25', '2001:db8::25'], error: null })
  t.same(await resolveHostAddresses(resolver, '192.0.2.7'), { addresses: ['192.0.2.7'], error: null })
  t.same(await resolveHostAddresses(resolver, 'nothing.test'), { addresses: [], error: null })
})
