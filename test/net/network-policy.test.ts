import t from 'tap'
import { BlockedTargetError } from '../../core/tools/contract.ts'
import { createNetworkPolicy, vetTarget } from '../../core/net/network-policy.ts'

/** The error a function throws, for t.match against its fields. */
function thrownBy (fn: () => unknown): unknown {
  try { fn() } catch (err) { return err }
  return undefined
}

t.test('assertAllowedAddress refuses private addresses unless private targets are allowed', async t => {
  const strict = createNetworkPolicy({ allowPrivateTargets: false })
  t.equal(strict.allowPrivateTargets, false)
  t.throws(() => strict.assertAllowedAddress('127.0.0.1'), BlockedTargetError)
  t.match(thrownBy(() => strict.assertAllowedAddress('fe80::1', 'mx.example (fe80::1)')), { target: 'mx.example (fe80::1)', reason: 'link-local' })
  t.match(thrownBy(() => strict.assertAllowedAddress('mail.example.com')), { reason: 'not an IP address' })
  t.doesNotThrow(() => strict.assertAllowedAddress('93.184.216.34'))
  t.match(thrownBy(() => strict.assertAllowedHostName('metadata.google.internal')), { reason: 'cloud metadata' })

  const open = createNetworkPolicy({ allowPrivateTargets: true })
  t.doesNotThrow(() => open.assertAllowedAddress('127.0.0.1'))
  t.doesNotThrow(() => open.assertAllowedAddress('169.254.169.254'))
  t.doesNotThrow(() => open.assertAllowedHostName('localhost'))
})

t.test('allowedTargets are exact address:port pairs', async t => {
  const policy = createNetworkPolicy({ allowPrivateTargets: false, allowedTargets: ['10.0.0.5:8080', '[fd00::5]:443'] })
  t.doesNotThrow(() => policy.assertAllowedTarget('10.0.0.5', 8080))
  t.doesNotThrow(() => policy.assertAllowedTarget('::ffff:10.0.0.5', 8080), 'IPv4-mapped form matches')
  t.doesNotThrow(() => policy.assertAllowedTarget('fd00:0:0:0:0:0:0:5', 443), 'IPv6 compared canonically')
  t.throws(() => policy.assertAllowedTarget('10.0.0.5', 8081), BlockedTargetError)
  t.throws(() => policy.assertAllowedTarget('10.0.0.6', 8080), BlockedTargetError)
  t.throws(() => policy.assertAllowedAddress('10.0.0.5'), BlockedTargetError, 'without a port no exception applies')
  t.throws(() => createNetworkPolicy({ allowPrivateTargets: false, allowedTargets: ['10.0.0.0/8'] }), /exact IP address and port/)
  t.throws(() => createNetworkPolicy({ allowPrivateTargets: false, allowedTargets: ['internal.example:80'] }), /exact IP address and port/)
})

t.test('vetTarget checks every resolved address and returns them', async t => {
  const policy = createNetworkPolicy({ allowPrivateTargets: false })
  const lookup = async (name: string) => name === 'two.example'
    ? [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }]
    : [{ address: '93.184.216.34', family: 4 }, { address: '192.168.0.9', family: 4 }]
  t.same(await vetTarget(policy, lookup, 'two.example', 443), [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }])
  t.match(await vetTarget(policy, lookup, 'rebind.example', 443).catch((err: unknown) => err), { name: 'BlockedTargetError', reason: 'private', target: 'rebind.example', message: /^Refused to connect to rebind.example: private\./ })
  t.same(await vetTarget(policy, lookup, '[2606:4700::1]', 443), [{ address: '2606:4700::1', family: 6 }])
})
