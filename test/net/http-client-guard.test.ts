// The guard of the HTTP client, with private targets refused. Every refused
// target is also a live local server, to prove the request never reached it.
import t from 'tap'
import { BlockedTargetError, InputError, UpstreamError } from '../../core/tools/contract.ts'
import { createHttpClient } from '../../core/net/http-client.ts'
import { createNetworkPolicy, type HostLookup } from '../../core/net/network-policy.ts'
import { localServer } from './fixtures/local-server.ts'

interface Teardown { teardown (fn: () => unknown): void }

const USER_AGENT = 'extraction-jobs-test/1.0'

/** A lookup for made-up names; anything else fails as an unknown name would. */
function fakeLookup (table: Record<string, string[]>, calls: string[] = []): HostLookup {
  return async (hostName) => {
    calls.push(hostName)
    const addresses = table[hostName]
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostName}`), { code: 'ENOTFOUND' })
    return addresses.map(address => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
}

function guardedClient (t: Teardown, options: { lookup?: HostLookup, allowedTargets?: string[] } = {}) {
  const client = createHttpClient({
    policy: createNetworkPolicy({ allowPrivateTargets: false, allowedTargets: options.allowedTargets }),
    userAgent: USER_AGENT,
    lookup: options.lookup,
  })
  t.teardown(() => client.close())
  return client
}

t.test('refuses literal private, loopback and metadata addresses', async t => {
  const site = await localServer(t, (_req, res) => res.end('secret'))
  const client = guardedClient(t)
  for (const [url, reason] of [
    [`http://127.0.0.1:${site.port}/`, 'loopback'],
    [`http://[::1]:${site.port}/`, 'loopback'],
    [`http://[::ffff:127.0.0.1]:${site.port}/`, 'loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://10.0.0.1/', 'private'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://2130706433/', 'loopback'], // 127.0.0.1 as a decimal integer; the URL parser normalises it
  ]) {
    const err = await client.fetch(url).then(() => null, (e: unknown) => e)
    t.type(err, BlockedTargetError, url)
    t.equal((err as BlockedTargetError).reason, reason, `${url} is ${reason}`)
  }
  t.same(site.hits, [], 'the local server never saw a request')
})

t.test('refuses host names that resolve to a private address', async t => {
  const site = await localServer(t, (_req, res) => res.end('secret'))
  const calls: string[] = []
  const client = guardedClient(t, {
    lookup: fakeLookup({
      'evil.example': ['127.0.0.1'],
      'mixed.example': ['93.184.216.34', '10.1.2.3'],
      'v6.example': ['::1'],
    }, calls),
  })
  for (const host of ['evil.example', 'mixed.example', 'v6.example']) {
    const err = await client.text(`http://${host}:${site.port}/`).then(() => null, (e: unknown) => e)
    t.type(err, BlockedTargetError, `${host} refused`)
    t.match((err as Error).message, host)
  }
  const metadata = await client.fetch('http://metadata.google.internal/computeMetadata/v1/').then(() => null, (e: unknown) => e)
  t.type(metadata, BlockedTargetError)
  t.equal((metadata as BlockedTargetError).reason, 'cloud metadata')
  t.notOk(calls.includes('metadata.google.internal'), 'metadata names are refused before any lookup')
  t.same(site.hits, [])
})

t.test('refuses localhost through the system resolver', async t => {
  const site = await localServer(t, (_req, res) => res.end('secret'))
  const client = createHttpClient({ policy: createNetworkPolicy({ allowPrivateTargets: false }), userAgent: USER_AGENT })
  t.teardown(() => client.close())
  await t.rejects(client.fetch(`http://localhost:${site.port}/`), BlockedTargetError)
  t.same(site.hits, [])
})

t.test('an unresolvable name is an UpstreamError, not a refusal', async t => {
  const client = guardedClient(t, { lookup: fakeLookup({}) })
  await t.rejects(client.fetch('http://nowhere.example/'), UpstreamError)
})

t.test('only http and https URLs are fetched', async t => {
  const client = guardedClient(t)
  await t.rejects(client.fetch('file:///etc/passwd'), InputError)
  await t.rejects(client.fetch('ftp://example.com/'), InputError)
  await t.rejects(client.fetch('not a url'), InputError)
})

// The redirect case needs a first hop the guard allows and that still reaches
// a local server. Rather than a test-only connect override, the policy has a
// production feature for it: an exact `address:port` exception (for operators
// allowing one self-hosted upstream). `public.example` resolves to 127.0.0.1
// and only 127.0.0.1:<first server's port> is excepted, so the second hop, to
// another port on loopback, must be refused by the per-hop check.
t.test('a redirect to loopback is refused after an allowed first hop', async t => {
  const secret = await localServer(t, (_req, res) => res.end('secret'))
  const entry = await localServer(t, (req, res) => {
    const target = req.url === '/to-localhost' ? `http://localhost:${secret.port}/admin` : `http://127.0.0.1:${secret.port}/admin`
    res.writeHead(302, { location: target }).end()
  })
  const client = guardedClient(t, {
    lookup: fakeLookup({ 'public.example': ['127.0.0.1'], localhost: ['127.0.0.1'] }),
    allowedTargets: [`127.0.0.1:${entry.port}`],
  })
  const err = await client.fetch(`http://public.example:${entry.port}/start`).then(() => null, (e: unknown) => e)
  t.type(err, BlockedTargetError, 'second hop refused')
  t.match((err as Error).message, 'Refused to connect to an IP address: loopback')
  t.notMatch((err as Error).message, String(secret.port), 'the redirect target is not shown')
  await t.rejects(client.fetch(`http://public.example:${entry.port}/to-localhost`), BlockedTargetError)
  t.same(entry.hits, ['/start', '/to-localhost'], 'the first hop was allowed')
  t.same(secret.hits, [], 'the redirect target was never reached')
})

t.test('the exception is exact: another port on the same address stays refused', async t => {
  const site = await localServer(t, (_req, res) => res.end('ok'))
  const client = guardedClient(t, { allowedTargets: [`127.0.0.1:${site.port}`] })
  t.equal((await client.text(`${site.origin}/`)).body, 'ok')
  await t.rejects(client.fetch(`http://127.0.0.1:${site.port + 1 === 65536 ? 1 : site.port + 1}/`), BlockedTargetError)
  await t.rejects(client.fetch(`http://[::1]:${site.port}/`), BlockedTargetError)
})
