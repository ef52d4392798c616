// ctx.http against the hostile upstream (test/fixtures/hostile): decoded-byte
// cap on compression bombs and huge bodies, TLS verified, redirects and
// rebound names refused, and errors that name no inside address, port or URL
// credential.
import t from 'tap'
import { BlockedTargetError, UpstreamError } from '../../core/tools/contract.ts'
import { createHttpClient } from '../../core/net/http-client.ts'
import { createNetworkPolicy, type HostLookup } from '../../core/net/network-policy.ts'
import { BIG_PAGE_BYTES, URL_CREDENTIAL, rebindingLookup, startHostileUpstream, tableLookup } from '../fixtures/hostile/hostile-upstream.ts'
import { watchBufferPeak } from '../helpers/buffer-peak.ts'

const CAP = 5 * 1024 * 1024
const MB = 1024 * 1024

interface Teardown { teardown (fn: () => unknown): void }

function client (t: Teardown, options: { allowPrivateTargets?: boolean, allowedTargets?: string[], lookup?: HostLookup, maxResponseBytes?: number } = {}) {
  const http = createHttpClient({
    policy: createNetworkPolicy({ allowPrivateTargets: options.allowPrivateTargets ?? true, allowedTargets: options.allowedTargets }),
    userAgent: 'hostile-test/1.0',
    lookup: options.lookup,
    maxResponseBytes: options.maxResponseBytes ?? CAP,
  })
  t.teardown(() => http.close())
  return http
}

const failure = (promise: Promise<unknown>): Promise<Error> => promise.then(() => { throw new Error('expected a rejection') }, (err: Error) => err)

t.test('gzip, deflate and brotli bombs stop at the decoded-byte cap, in bounded memory', async t => {
  const site = await startHostileUpstream(t)
  const http = client(t)
  const buffers = watchBufferPeak()
  for (const path of ['/gzip-bomb', '/deflate-bomb', '/brotli-bomb', '/sitemap.xml']) {
    const err = await failure(http.text(`${site.origin}${path}`))
    t.type(err, UpstreamError, path)
    t.match(err.message, `larger than the ${CAP}-byte limit`, path)
  }
  const growth = buffers.stop()
  t.ok(growth < 100 * MB, `Buffer memory peaked ${Math.round(growth / MB)} MB above the start over four 256 MiB bombs`)
})

t.test('a declared Content-Length over the cap is refused before the body is read; an undeclared one stops at the cap', async t => {
  const site = await startHostileUpstream(t)
  const http = client(t)
  const declared = await failure(http.fetch(`${site.origin}/big-page`))
  t.match(declared, { name: 'ResponseTooLargeError', limitBytes: CAP, message: `is ${BIG_PAGE_BYTES} bytes, larger than the ${CAP}-byte limit` })
  const chunked = await failure(http.text(`${site.origin}/big-page-chunked`))
  t.match(chunked, { name: 'ResponseTooLargeError', limitBytes: CAP, message: `larger than the ${CAP}-byte limit` })
})

t.test('a caller can lower the cap, never raise it', async t => {
  const site = await startHostileUpstream(t)
  const http = client(t, { maxResponseBytes: 64 * 1024 })
  await t.rejects(http.text(`${site.origin}/nested`, { maxBytes: 10 * MB }), { message: /larger than the 65536-byte limit/ })
  await t.rejects(http.text(`${site.origin}/contact`, { maxBytes: 10 }), { message: /larger than the 10-byte limit/ })
})

t.test('a slow drip ends at the timeout', async t => {
  const site = await startHostileUpstream(t, { dripMs: 50 })
  const http = client(t)
  await t.rejects(http.text(`${site.origin}/slow-drip`, { timeoutMs: 400 }), { name: 'UpstreamError', message: /Timed out after 400 ms/ })
})

t.test('a self-signed certificate is refused', async t => {
  const site = await startHostileUpstream(t)
  const http = client(t)
  const err = await failure(http.text(`${site.httpsOrigin}/contact`))
  t.match(err, { name: 'UpstreamError', message: /TLS certificate not valid for this host/ })
  t.notOk(site.hits.some(hit => hit.startsWith('https')), 'no request was sent over the untrusted connection')
})

t.test('redirects to the inside or to cloud metadata are refused and name neither', async t => {
  const site = await startHostileUpstream(t)
  // The hostile site looks public: its exact address:port is excepted, nothing else on loopback.
  const http = client(t, { allowPrivateTargets: false, allowedTargets: [`127.0.0.1:${site.port}`] })
  const inward = await failure(http.fetch(`${site.origin}/redirect-inside`))
  t.type(inward, BlockedTargetError)
  t.notMatch(inward.message, /127\.0\.0\.2/)
  t.notMatch(inward.message, String(site.inside.port))
  const metadata = await failure(http.fetch(`${site.origin}/redirect-metadata`))
  t.match(metadata, { name: 'BlockedTargetError', reason: 'cloud metadata' })
  t.notMatch(metadata.message, /169\.254/)
  t.same(site.inside.hits, [], 'the inside was never reached')
})

t.test('a name that rebinds to a private address after the check is refused, never connected to', async t => {
  const site = await startHostileUpstream(t)
  const lookup = rebindingLookup('rebind.hostile.test', '127.0.0.1', '127.0.0.2')
  const options = { allowPrivateTargets: false, allowedTargets: [`127.0.0.1:${site.port}`], lookup }
  const first = await client(t, options).text(`http://rebind.hostile.test:${site.port}/contact`)
  t.equal(first.status, 200, 'the first answer (public) is used')
  t.equal(lookup.calls.length, 1, 'one lookup: the connection went to the address checked')
  // A fresh client opens a fresh connection, so the name is looked up again and now answers the inside.
  const err = await failure(client(t, options).text(`http://rebind.hostile.test:${site.port}/contact`))
  t.match(err, { name: 'BlockedTargetError', reason: 'loopback', message: /^Refused to connect to rebind\.hostile\.test: loopback/ })
  t.notMatch(err.message, /127\.0\.0\.2/)
  t.same(site.inside.hits, [], 'the inside was never reached')
})

t.test('a closed port and a refused private target read alike; library text never shows through', async t => {
  const site = await startHostileUpstream(t)
  const guarded = client(t, { allowPrivateTargets: false })
  const closed = await failure(guarded.fetch(`http://127.0.0.1:${site.closedPort}/`))
  const open = await failure(guarded.fetch(`http://127.0.0.1:${site.port}/`))
  t.equal(closed.message, open.message, 'refused before connecting: nothing tells the two apart')
  t.notMatch(closed.message, String(site.closedPort))

  // A closed port on a host the policy lets through says "could not connect", not ECONNREFUSED and the address.
  const lookup = tableLookup({ 'closed.hostile.test': ['127.0.0.1'] })
  const allowed = client(t, { allowPrivateTargets: false, allowedTargets: [`127.0.0.1:${site.closedPort}`], lookup })
  const refused = await failure(allowed.fetch(`http://closed.hostile.test:${site.closedPort}/`))
  t.match(refused, { name: 'UpstreamError', message: /could not connect/ })
  t.notMatch(refused.message, /ECONNREFUSED|127\.0\.0\.1/)
})

t.test('an upstream failure does not repeat the credential of its URL', async t => {
  const site = await startHostileUpstream(t)
  const http = client(t)
  const err = await failure(http.fetch(`http://${URL_CREDENTIAL}@127.0.0.1:${site.port}/fail-with-credential`))
  t.type(err, UpstreamError)
  t.notMatch(err.message, URL_CREDENTIAL.split(':')[1]!)
  const reset = await failure(http.fetch(`${site.origin}/reset`))
  t.match(reset, { name: 'UpstreamError', message: /connection reset/ })
})
