// The HTTP client with private targets allowed (as in tests and for local
// fixture sites): redirects, limits, timeouts, cancellation, decoding, proxy.
import t from 'tap'
import { createServer } from 'node:http'
import { connect as netConnect, type AddressInfo } from 'node:net'
import { UpstreamError } from '../../core/tools/contract.ts'
import { createHttpClient, type HttpClientOptions } from '../../core/net/http-client.ts'
import { createNetworkPolicy } from '../../core/net/network-policy.ts'
import { localServer } from './fixtures/local-server.ts'
import { proxyPoolOf } from '../helpers/proxy-pool.ts'

interface Teardown { teardown (fn: () => unknown): void }

const USER_AGENT = 'extraction-jobs-test/1.0'

function openClient (t: Teardown, options: Partial<HttpClientOptions> = {}) {
  const client = createHttpClient({ policy: createNetworkPolicy({ allowPrivateTargets: true }), userAgent: USER_AGENT, ...options })
  t.teardown(() => client.close())
  return client
}

t.test('fetches from a local server with the configured user agent', async t => {
  const site = await localServer(t, (req, res) => {
    res.setHeader('content-type', 'text/plain; charset=utf-8')
    res.end(`ua=${req.headers['user-agent']}`)
  })
  const client = openClient(t)
  const response = await client.fetch(`${site.origin}/hello`)
  t.type(response, Response)
  t.equal(response.status, 200)
  t.equal(response.url, `${site.origin}/hello`)
  t.equal(await response.text(), `ua=${USER_AGENT}`)
  const own = await client.text(`${site.origin}/`, { headers: { 'User-Agent': 'caller/2' } })
  t.equal(own.body, 'ua=caller/2', 'a caller-set user agent is kept')
})

t.test('follows redirects, relative ones included, and reports the final URL', async t => {
  const site = await localServer(t, (req, res) => {
    if (req.url === '/a') return res.writeHead(301, { location: '/b' }).end()
    if (req.url === '/b') return res.writeHead(302, { location: 'c?x=1' }).end()
    if (req.url === '/form') return res.writeHead(303, { location: '/c?after=post' }).end()
    res.end(`${req.method} ${req.url}`)
  })
  const client = openClient(t)
  const followed = await client.text(`${site.origin}/a`)
  t.equal(followed.body, 'GET /c?x=1')
  t.equal(followed.url, `${site.origin}/c?x=1`)
  const posted = await client.text(`${site.origin}/form`, { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(posted.body, 'GET /c?after=post', '303 turns a POST into a GET')
  const manual = await client.fetch(`${site.origin}/a`, { redirect: 'manual' })
  t.equal(manual.status, 301)
  t.equal(manual.headers.get('location'), '/b')
})

t.test('a redirect loop and a too-long chain stop with a clear error', async t => {
  const site = await localServer(t, (req, res) => {
    if (req.url === '/ping') return res.writeHead(302, { location: '/pong' }).end()
    if (req.url === '/pong') return res.writeHead(302, { location: '/ping' }).end()
    const step = Number(req.url?.slice(1))
    res.writeHead(302, { location: `/${step + 1}` }).end()
  })
  const client = openClient(t)
  await t.rejects(client.fetch(`${site.origin}/ping`), { name: 'UpstreamError', message: /Redirect loop: .*\/ping -> .*\/pong -> .*\/ping/ })
  await t.rejects(client.fetch(`${site.origin}/0`), { name: 'UpstreamError', message: /Too many redirects \(more than 5\)/ })
  await t.rejects(client.fetch(`${site.origin}/0`, { maxRedirects: 2 }), { message: /more than 2/ })
  const before = site.hits.length
  await t.rejects(client.fetch(`${site.origin}/0`, { redirect: 'error' }), UpstreamError)
  t.equal(site.hits.length, before + 1)
})

t.test('the timeout aborts a slow server, headers or body', async t => {
  const site = await localServer(t, (req, res) => {
    if (req.url === '/slow-body') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('first part ')
       // never ends
    }
    // /slow-headers never answers
  })
  const client = openClient(t)
  const started = Date.now()
  await t.rejects(client.fetch(`${site.origin}/slow-headers`, { timeoutMs: 200 }), { name: 'UpstreamError', message: /Timed out after 200 ms/ })
  t.ok(Date.now() - started < 10_000, 'gave up (a hang would last until the test timeout)')
  await t.rejects(client.text(`${site.origin}/slow-body`, { timeoutMs: 200 }), { name: 'UpstreamError', message: /Timed out/ })
})

t.test('the caller signal and the client signal cancel requests and body reads', async t => {
  const site = await localServer(t, (req, res) => {
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('started')
    }
  })
  const client = openClient(t)
  const caller = new AbortController()
  const pending = client.fetch(`${site.origin}/hang`, { signal: caller.signal })
  setTimeout(() => caller.abort(new Error('job cancelled')), 50)
  await t.rejects(pending, { message: 'job cancelled' })

  const already = new AbortController()
  already.abort()
  await t.rejects(client.fetch(`${site.origin}/hang`, { signal: already.signal }), { name: 'AbortError' })

  const job = new AbortController()
  const jobClient = openClient(t, { signal: job.signal })
  const response = await jobClient.fetch(`${site.origin}/stream`)
  const reading = response.text()
  setTimeout(() => job.abort(new Error('job shut down')), 50)
  await t.rejects(reading, { message: 'job shut down' }, 'the body read is cancelled too')
  await t.rejects(jobClient.fetch(`${site.origin}/stream`), { message: 'job shut down' }, 'later requests fail at once')
})

t.test('maxBytes limits the body read', async t => {
  const big = 'x'.repeat(64 * 1024)
  const site = await localServer(t, (req, res) => {
    if (req.url === '/declared') return res.writeHead(200, { 'content-length': String(big.length) }).end(big)
    res.writeHead(200, { 'content-type': 'text/plain' }) // chunked, no length given
    for (let i = 0; i < 8; i++) res.write(big.slice(0, 8192))
    res.end()
  })
  const client = openClient(t)
  await t.rejects(client.fetch(`${site.origin}/declared`, { maxBytes: 1000 }), { name: 'ResponseTooLargeError', message: /larger than the 1000-byte limit/ })
  await t.rejects(client.text(`${site.origin}/chunked`, { maxBytes: 10_000 }), { name: 'ResponseTooLargeError', message: /larger than the 10000-byte limit/ })
  const response = await client.fetch(`${site.origin}/chunked`, { maxBytes: 10_000 })
  const late = await response.arrayBuffer().then(() => null, (err: unknown) => err)
  t.ok(late instanceof UpstreamError && late.name === 'ResponseTooLargeError', 'also when the caller reads the body')
  t.equal((await client.text(`${site.origin}/chunked`)).body.length, 64 * 1024, 'within the default limit')
})

t.test('text() decodes with the Content-Type charset, the meta charset, else UTF-8', async t => {
  const cafe1252 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]) // "café €" in windows-1252
  const pages: Record<string, [string | undefined, Buffer]> = {
    '/win1252': ['text/plain; charset=windows-1252', cafe1252],
    '/latin1': ['text/html; charset="ISO-8859-1"', Buffer.from([0x63, 0x61, 0x66, 0xe9])],
    '/meta': ['text/html', Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"><title>'), Buffer.from([0xe9, 0x74, 0xe9]), Buffer.from('</title>')])],
    '/http-equiv': ['text/html', Buffer.concat([Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>'), Buffer.from([0xfc, 0x62, 0x65, 0x72])])],
    '/utf8': ['text/plain', Buffer.from('naïve ✓', 'utf8')],
    '/bom': ['text/html; charset=iso-8859-1', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('é', 'utf8')])],
    '/unknown': ['text/html; charset=x-made-up', Buffer.from('ok é', 'utf8')],
  }
  const site = await localServer(t, (req, res) => {
    const [type, body] = pages[req.url ?? '']
    if (type) res.setHeader('content-type', type)
    res.end(body)
  })
  const client = openClient(t)
  t.equal((await client.text(`${site.origin}/win1252`)).body, 'café €')
  t.equal((await client.text(`${site.origin}/latin1`)).body, 'café')
  t.match((await client.text(`${site.origin}/meta`)).body, '<title>été</title>')
  t.match((await client.text(`${site.origin}/http-equiv`)).body, '<p>über')
  t.equal((await client.text(`${site.origin}/utf8`)).body, 'naïve ✓')
  t.equal((await client.text(`${site.origin}/bom`)).body, 'é', 'a byte-order mark wins over the header')
  t.equal((await client.text(`${site.origin}/unknown`)).body, 'ok é', 'an unknown charset falls back to UTF-8')
})

t.test('json() parses JSON and refuses anything else', async t => {
  const site = await localServer(t, (req, res) => {
    if (req.url === '/ok') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ accept: req.headers.accept, n: 1 }))
    res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>')
  })
  const client = openClient(t)
  const ok = await client.json<{ accept: string, n: number }>(`${site.origin}/ok`)
  t.same(ok.body, { accept: 'application/json', n: 1 })
  t.equal(ok.status, 200)
  await t.rejects(client.json(`${site.origin}/html`), { name: 'UpstreamError', status: 502, message: /Expected JSON .*Bad gateway/ })
})

t.test('sends requests through the configured proxy', async t => {
  const site = await localServer(t, (req, res) => res.end(`via proxy: ${req.url}`))
  const tunnels: string[] = []
  const proxy = createServer()
  // A CONNECT proxy, which is how undici's ProxyAgent reaches every target.
  proxy.on('connect', (req, clientSocket, head) => {
    tunnels.push(req.url ?? '')
    const [host, port] = (req.url ?? '').split(':')
    const upstream = netConnect(Number(port), host, () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(clientSocket)
      clientSocket.pipe(upstream)
    })
    upstream.on('error', () => clientSocket.destroy())
    clientSocket.on('error', () => upstream.destroy())
  })
  await new Promise<void>(resolve => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => { proxy.closeAllConnections(); proxy.close(() => resolve()) }))
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`

  const client = openClient(t, { proxies: proxyPoolOf(proxyUrl) })
  t.equal((await client.text(`${site.origin}/x`)).body, 'via proxy: /x')
  t.same(tunnels, [`127.0.0.1:${site.port}`])

  // With private targets refused, the target is checked before the proxy is asked.
  const guarded = createHttpClient({ policy: createNetworkPolicy({ allowPrivateTargets: false }), userAgent: USER_AGENT, proxies: proxyPoolOf(proxyUrl) })
  t.teardown(() => guarded.close())
  await t.rejects(guarded.fetch(`${site.origin}/y`), { name: 'BlockedTargetError' })
  t.same(tunnels, [`127.0.0.1:${site.port}`], 'no tunnel was opened for the refused target')
})
