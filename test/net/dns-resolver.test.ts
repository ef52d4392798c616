// ctx.dns, the kernel's guarded resolver, against a local DNS server: records,
// NXDOMAIN and NODATA as coded errors, a capped answer, the deadline, and the
// job's signal.
import t from 'tap'
import { createDnsResolver, DNS_MAX_ANSWERS, DNS_MAX_TXT_CHARS } from '../../core/net/dns-resolver.ts'
import { DnsLookupError } from '../../core/tools/contract.ts'
import { startDnsServer } from '../plugins/email/fixtures/dns-server.ts'

t.test('MX, TXT, A and AAAA; NXDOMAIN and NODATA are DnsLookupErrors that say which', async t => {
  const server = await startDnsServer(t, {
    'acme.test': { MX: [{ exchange: 'mx.acme.test', priority: 10 }], TXT: ['v=spf1 -all'], A: ['192.0.2.1'], AAAA: ['2001:db8::1'] },
    'bare.test': {},
  })
  const dns = createDnsResolver(new AbortController().signal).using({ servers: [server.address], timeoutMs: 500, tries: 1 })
  t.same(await dns.mx('acme.test'), [{ exchange: 'mx.acme.test', priority: 10 }])
  t.same(await dns.txt('acme.test'), ['v=spf1 -all'])
  t.same(await dns.a('acme.test'), ['192.0.2.1'])
  t.same(await dns.aaaa('acme.test'), ['2001:db8::1'])
  const nx = await dns.mx('gone.test').catch(err => err)
  t.ok(nx instanceof DnsLookupError && nx.nxdomain, 'NXDOMAIN')
  const none = await dns.mx('bare.test').catch(err => err)
  t.ok(none instanceof DnsLookupError && none.noData && !none.nxdomain, 'no record of the type')
  t.match(none.message, /DNS MX lookup for bare\.test failed \(ENODATA\)/)
})

t.test('an answer keeps at most maxAnswers records and maxTxtChars of a TXT record', async t => {
  // A UDP answer must fit 512 bytes here (the fixture server has no TCP), so the limits are made small.
  const server = await startDnsServer(t, { 'many.test': { A: ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5'], TXT: ['x'.repeat(200)] } })
  const dns = createDnsResolver(new AbortController().signal, {}, { maxAnswers: 3, maxTxtChars: 50 }).using({ servers: [server.address], timeoutMs: 2000, tries: 1 })
  t.equal((await dns.a('many.test')).length, 3)
  t.same(await dns.txt('many.test'), ['x'.repeat(50)])
  t.ok(DNS_MAX_ANSWERS >= 32 && DNS_MAX_TXT_CHARS >= 2048, 'the defaults leave room for real answers (SPF, DKIM, many MX)')
})

t.test('an unanswered query is ETIMEOUT; a stopped job rejects with its reason at once', async t => {
  const server = await startDnsServer(t, { 'mute.test': { silent: true } })
  const silent = await createDnsResolver(new AbortController().signal).using({ servers: [server.address], timeoutMs: 200, tries: 1 }).mx('mute.test').catch(err => err)
  t.ok(silent instanceof DnsLookupError && silent.code === 'ETIMEOUT', silent.message)
  const job = new AbortController()
  const pending = createDnsResolver(job.signal).using({ servers: [server.address], timeoutMs: 5000, tries: 3 }).mx('mute.test')
  const reason = new Error('job cancelled')
  job.abort(reason)
  t.equal(await pending.catch(err => err), reason)
  t.equal(await createDnsResolver(job.signal).a('acme.test').catch(err => err), reason, 'an aborted job looks nothing up')
})
