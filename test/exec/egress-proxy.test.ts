// The egress proxy media programs reach the network through: a plain GET and a
// CONNECT to an allowed fixture, a private target refused before any byte
// reaches it, the run token required, the run's signal and byte cap, and
// chaining through PROXY_URL.
import t, { type Test } from 'tap'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { once } from 'node:events'
import { BlockedTargetError } from '../../core/tools/contract.ts'
import { execService } from './_exec.ts'
import { proxyPoolOf } from '../helpers/proxy-pool.ts'

interface Fixture { server: Server, port: number, hits: string[] }

async function fixture (t: Test, host = '127.0.0.1', body = 'hello from the fixture'): Promise<Fixture> {
  const hits: string[] = []
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`)
    res.setHeader('content-type', 'text/plain')
    res.end(body)
  })
  // A raw TCP peer (a CONNECT tunnel) counts as a hit too, before any request line.
  server.on('connection', () => hits.push('connection'))
  server.listen(0, host)
  await once(server, 'listening')
  t.teardown(() => new Promise<void>(resolve => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { server, port: (server.address() as { port: number }).port, hits }
}

const authOf = (proxyUrl: string, password?: string) => {
  const url = new URL(proxyUrl)
  return `Basic ${Buffer.from(`${url.username}:${password ?? url.password}`).toString('base64')}`
}
const portOf = (proxyUrl: string) => Number(new URL(proxyUrl).port)

/** A GET through the proxy, in absolute form. */
async function proxiedGet (proxyUrl: string, target: string, auth: string | null = authOf(proxyUrl)): Promise<{ status: number, body: string, headers: IncomingMessage['headers'] }> {
  const req = request({ host: '127.0.0.1', port: portOf(proxyUrl), path: target, headers: auth ? { 'proxy-authorization': auth } : {} })
  req.end()
  const [res] = await once(req, 'response') as [IncomingMessage]
  let body = ''
  for await (const chunk of res) body += chunk
  return { status: res.statusCode!, body, headers: res.headers }
}

/** A CONNECT through the proxy; on 200, a GET over the tunnel. */
async function tunnelGet (proxyUrl: string, authority: string, auth: string | null = authOf(proxyUrl)): Promise<{ status: number, body: string, socket?: Socket, proxyAnswer: IncomingMessage }> {
  const req = request({ host: '127.0.0.1', port: portOf(proxyUrl), method: 'CONNECT', path: authority, headers: auth ? { 'proxy-authorization': auth } : {} })
  req.end()
  const [res, socket, head] = await once(req, 'connect') as [IncomingMessage, Socket, Buffer]
  if (res.statusCode !== 200) {
    let body = head.toString('utf8')
    socket.setEncoding('utf8')
    socket.on('data', (c: string) => { body += c })
    await once(socket, 'close').catch(() => {})
    return { status: res.statusCode!, body, proxyAnswer: res }
  }
  socket.write(`GET /through-tunnel HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`)
  let raw = ''
  socket.setEncoding('utf8')
  socket.on('data', (c: string) => { raw += c })
  await once(socket, 'close').catch(() => {})
  return { status: 200, body: raw.split('\r\n\r\n').slice(1).join('\r\n\r\n'), socket, proxyAnswer: res }
}

t.test('a plain GET and a CONNECT to an allowed target go through', async t => {
  const site = await fixture(t)
  const { proxy } = execService(t, { allowedTargets: [`127.0.0.1:${site.port}`] })
  const grant = await proxy.grant(new AbortController().signal, 1024 ** 2)
  const plain = await proxiedGet(grant.proxyUrl, `http://127.0.0.1:${site.port}/plain?q=1`)
  t.equal(plain.status, 200)
  t.equal(plain.body, 'hello from the fixture')
  const tunnel = await tunnelGet(grant.proxyUrl, `127.0.0.1:${site.port}`)
  t.equal(tunnel.status, 200)
  t.equal(tunnel.body, 'hello from the fixture')
  t.match(site.hits, ['connection', 'GET /plain?q=1', 'connection', 'GET /through-tunnel'])
  t.ok(grant.bytes > 40, 'bytes are counted against the run')
  t.same(grant.refused, [])
})

t.test('a private target is refused (403) and nothing reaches it', async t => {
  const inside = await fixture(t, '127.0.0.2')
  const site = await fixture(t)
  // Only the exact fixture address:port is allowed; 127.0.0.2 stands for the server's own network.
  const { proxy } = execService(t, { allowedTargets: [`127.0.0.1:${site.port}`], lookup: async (name) => name === 'inside.example' ? [{ address: '127.0.0.2', family: 4 }] : [] })
  const grant = await proxy.grant(new AbortController().signal, 1024 ** 2)
  const plain = await proxiedGet(grant.proxyUrl, `http://127.0.0.2:${inside.port}/secret`)
  t.equal(plain.status, 403)
  t.match(plain.body, /Refused to connect to an IP address: loopback/)
  t.notMatch(plain.body, /127\.0\.0\.2|:\d{4,5}/, 'the refusal names neither the address nor the port')
  const tunnel = await tunnelGet(grant.proxyUrl, `inside.example:${inside.port}`)
  t.equal(tunnel.status, 403)
  t.match(tunnel.body, /Refused to connect to inside\.example/)
  const metadata = await tunnelGet(grant.proxyUrl, '169.254.169.254:80')
  t.equal(metadata.status, 403)
  // The allowed port on the same host does not open the others.
  const otherPort = await tunnelGet(grant.proxyUrl, `127.0.0.1:${inside.port}`)
  t.equal(otherPort.status, 403)
  t.same(inside.hits, [], 'the private server saw nothing')
  t.equal(grant.refused.length, 4)
  t.type(grant.refused[0], BlockedTargetError)
})

t.test('a missing, wrong or revoked token is refused with 407', async t => {
  const site = await fixture(t)
  const { proxy } = execService(t, { allowedTargets: [`127.0.0.1:${site.port}`] })
  const grant = await proxy.grant(new AbortController().signal, 1024 ** 2)
  const target = `http://127.0.0.1:${site.port}/`
  const missing = await proxiedGet(grant.proxyUrl, target, null)
  t.equal(missing.status, 407)
  t.match(missing.headers['proxy-authenticate'], /^Basic/, 'asks for credentials (ffmpeg sends them only then)')
  t.equal((await proxiedGet(grant.proxyUrl, target, authOf(grant.proxyUrl, 'guessed-token'))).status, 407)
  t.equal((await tunnelGet(grant.proxyUrl, `127.0.0.1:${site.port}`, null)).status, 407)
  t.equal((await proxiedGet(await proxy.refusingUrl(), target)).status, 407, 'the refusing URL of an offline run')
  grant.revoke()
  t.equal((await proxiedGet(grant.proxyUrl, target)).status, 407, 'revoked at the end of its run')
  t.same(site.hits, [], 'nothing was forwarded')
})

t.test("the run's signal cuts its open tunnels and ends its token", async t => {
  // A target that answers slowly: the tunnel is open while the job is cancelled.
  const server = createServer(() => {})
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  const port = (server.address() as { port: number }).port
  const { proxy } = execService(t, { allowedTargets: [`127.0.0.1:${port}`] })
  const job = new AbortController()
  const grant = await proxy.grant(job.signal, 1024 ** 2)
  const req = request({ host: '127.0.0.1', port: portOf(grant.proxyUrl), method: 'CONNECT', path: `127.0.0.1:${port}`, headers: { 'proxy-authorization': authOf(grant.proxyUrl) } })
  req.end()
  const [res, socket] = await once(req, 'connect') as [IncomingMessage, Socket]
  t.equal(res.statusCode, 200)
  const closed = once(socket, 'close')
  job.abort(new Error('cancelled'))
  await closed
  t.pass('the tunnel was cut')
  t.equal((await proxiedGet(grant.proxyUrl, `http://127.0.0.1:${port}/`)).status, 407)
})

t.test("past the run's byte cap its connections are cut", async t => {
  const site = await fixture(t, '127.0.0.1', 'x'.repeat(200_000))
  const { proxy } = execService(t, { allowedTargets: [`127.0.0.1:${site.port}`] })
  const grant = await proxy.grant(new AbortController().signal, 10_000)
  const result = await proxiedGet(grant.proxyUrl, `http://127.0.0.1:${site.port}/big`).catch(err => err)
  t.ok(result instanceof Error || result.body.length < 200_000, 'the body did not arrive whole')
  t.equal(grant.capExceeded, true)
})

t.test('with PROXY_URL set, connections go on through it, vetted first', async t => {
  const site = await fixture(t)
  const inside = await fixture(t, '127.0.0.2')
  // The operator's proxy, played by a second egress proxy that allows the fixture.
  const outer = execService(t, { allowedTargets: [`127.0.0.1:${site.port}`] })
  const outerGrant = await outer.proxy.grant(new AbortController().signal, 1024 ** 2)
  const { proxy } = execService(t, { allowedTargets: [`127.0.0.1:${site.port}`] })
  const grant = await proxy.grant(new AbortController().signal, 1024 ** 2, proxyPoolOf(outerGrant.proxyUrl))
  const plain = await proxiedGet(grant.proxyUrl, `http://127.0.0.1:${site.port}/chained`)
  t.equal(plain.status, 200)
  t.equal(plain.body, 'hello from the fixture')
  const tunnel = await tunnelGet(grant.proxyUrl, `127.0.0.1:${site.port}`)
  t.equal(tunnel.body, 'hello from the fixture')
  t.ok(outerGrant.bytes > 0, 'the outer proxy carried them')
  const refused = await tunnelGet(grant.proxyUrl, `127.0.0.2:${inside.port}`)
  t.equal(refused.status, 403, 'refused here, before the outer proxy is asked')
  t.same(inside.hits, [])
  t.equal(outerGrant.refused.length, 0)
})
