// DNS-rebinding and cross-origin defence: with a loopback listener, a Host that
// is not loopback or an Origin that is not loopback is refused (403 {detail});
// ALLOWED_HOSTS / ALLOWED_ORIGINS open it for deployments.
import t from 'tap'
import { build, signup } from '../helpers/build.ts'
import { hostNameOf, isLoopbackName } from '../../core/auth/host-origin-guard.ts'
import { isDetail } from './_kernel.ts'

type App = Awaited<ReturnType<typeof build>>
const get = (app: App, url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url, headers })
const mcp = (app: App, key: string, headers: Record<string, string>) => app.inject({
  method: 'POST',
  url: '/mcp',
  headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
  payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
})

t.test('loopback names and Host parsing', async t => {
  for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1', '[0:0:0:0:0:0:0:1]', '[::ffff:127.0.0.1]', 'LOCALHOST']) t.ok(isLoopbackName(h), h)
  for (const h of ['evil.example.com', '10.0.0.1', '[::2]', 'localhost.evil.example', '0.0.0.0', '[::]']) t.notOk(isLoopbackName(h), h)
  t.equal(hostNameOf('127.0.0.1:3000'), '127.0.0.1')
  t.equal(hostNameOf('[::1]:8080'), '[::1]')
  t.equal(hostNameOf('Evil.Example.com'), 'evil.example.com')
  t.equal(hostNameOf('a b'), null)
})

t.test('loopback listener (the default HOST): foreign Host or Origin is 403 on /mcp and every other route', async t => {
  const app = await build(t)
  const user = await signup(app)
  t.equal((await mcp(app, user.apiKey, { host: '127.0.0.1:3000' })).statusCode, 200, 'loopback Host, no Origin')
  t.equal((await mcp(app, user.apiKey, { host: 'localhost:1234', origin: 'http://localhost:5173' })).statusCode, 200, 'loopback Origin on another port')
  t.equal((await mcp(app, user.apiKey, { host: '[::1]:3000', origin: 'http://[::1]:3000' })).statusCode, 200, 'IPv6 loopback')

  const rebound = await mcp(app, user.apiKey, { host: 'evil.example.com', origin: 'http://evil.example.com' })
  t.equal(rebound.statusCode, 403, 'DNS rebinding: Host and Origin evil.example.com')
  t.ok(isDetail(rebound.body))
  t.match(rebound.json().detail, /Host/)
  t.equal((await mcp(app, user.apiKey, { host: 'evil.example.com:3000' })).statusCode, 403, 'foreign Host with a port, no Origin')
  const crossSite = await mcp(app, user.apiKey, { host: '127.0.0.1:3000', origin: 'https://evil.example.com' })
  t.equal(crossSite.statusCode, 403, 'loopback Host, foreign Origin')
  t.match(crossSite.json().detail, /Origin/)
  t.equal((await mcp(app, user.apiKey, { host: '127.0.0.1:3000', origin: 'null' })).statusCode, 403, 'Origin: null (sandboxed page)')

  t.equal((await get(app, '/api/health', { host: 'evil.example.com' })).statusCode, 403, 'health too')
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', headers: { host: 'evil.example.com' }, payload: { email: user.email, password: user.password } })
  t.equal(login.statusCode, 403, 'a rebound page cannot read a key from login')
  t.equal((await get(app, '/api/health', { host: '127.0.0.1:3000' })).statusCode, 200)
})

t.test('ALLOWED_HOSTS and ALLOWED_ORIGINS extend a loopback listener', async t => {
  const app = await build(t, { env: { ALLOWED_HOSTS: 'api.example.com', ALLOWED_ORIGINS: 'https://app.example.com' } })
  const user = await signup(app)
  t.equal((await mcp(app, user.apiKey, { host: 'api.example.com', origin: 'https://app.example.com' })).statusCode, 200)
  t.equal((await mcp(app, user.apiKey, { host: 'API.example.com:8443' })).statusCode, 200, 'any port, any case')
  t.equal((await mcp(app, user.apiKey, { host: 'api.example.com', origin: 'http://app.example.com' })).statusCode, 403, 'the scheme is part of the origin')
  t.equal((await mcp(app, user.apiKey, { host: 'other.example.com' })).statusCode, 403)
  t.equal((await mcp(app, user.apiKey, { host: 'localhost' })).statusCode, 200, 'loopback names stay allowed')
})

t.test('a non-loopback HOST: Host unchecked without a list; Origin checked only against ALLOWED_ORIGINS', async t => {
  const open = await build(t, { env: { HOST: '0.0.0.0' } })
  const u1 = await signup(open)
  t.equal((await mcp(open, u1.apiKey, { host: 'whatever.example.net', origin: 'https://anything.example' })).statusCode, 200, 'no lists: nothing checked')

  const origins = await build(t, { env: { HOST: '0.0.0.0', ALLOWED_ORIGINS: 'https://app.example.com' } })
  const u2 = await signup(origins)
  t.equal((await mcp(origins, u2.apiKey, { host: 'whatever.example.net' })).statusCode, 200, 'Host not checked')
  t.equal((await mcp(origins, u2.apiKey, { host: 'whatever.example.net', origin: 'https://app.example.com' })).statusCode, 200)
  t.equal((await mcp(origins, u2.apiKey, { host: 'whatever.example.net', origin: 'https://evil.example.com' })).statusCode, 403)

  const hosts = await build(t, { env: { HOST: '0.0.0.0', ALLOWED_HOSTS: 'api.example.com' } })
  const u3 = await signup(hosts, {})
  t.equal((await mcp(hosts, u3.apiKey, { host: 'api.example.com' })).statusCode, 200)
  t.equal((await mcp(hosts, u3.apiKey, { host: 'rebound.example.net' })).statusCode, 403, 'with ALLOWED_HOSTS the Host is checked')
})
