// The outbound proxy pool (core/net/proxy-pool.ts): rotation over two local
// forward proxies (both used), a dead proxy cooled down and skipped then tried
// again, sticky per job (PROXY_ROTATION=job) through a real job, the per-tool
// `"proxy": "none"`, and the proxies' health in the search status record.
import t from 'tap'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { writeFileSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { manualClock } from '../../core/clock.ts'
import { ProxyPool } from '../../core/net/proxy-pool.ts'
import { createHttpClient } from '../../core/net/http-client.ts'
import { createNetworkPolicy } from '../../core/net/network-policy.ts'
import { ADMIN_KEY, build, signup, tempDir } from '../helpers/build.ts'
import { waitForEnd } from '../helpers/jobs.ts'
import { call } from '../kernel/_kernel.ts'
import { scrape, valueOf } from '../helpers/metrics.ts'

type Teardown = Parameters<typeof build>[0]

/** A forward proxy that tunnels CONNECT and records each target; `user:pass` required when given. */
async function forwardProxy (t: Teardown, auth?: string) {
  const tunnels: string[] = []
  const server: Server = createServer((_req, res) => { res.statusCode = 405; res.end() })
  server.on('connect', (req, socket, head) => {
    if (auth && req.headers['proxy-authorization'] !== `Basic ${Buffer.from(auth).toString('base64')}`) {
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n')
      return
    }
    tunnels.push(req.url ?? '')
    const [host, port] = (req.url ?? '').split(':')
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length) upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>(r => { server.closeAllConnections(); server.close(() => r()) }))
  const port = (server.address() as AddressInfo).port
  return { url: `http://${auth ? `${auth}@` : ''}127.0.0.1:${port}`, port, tunnels }
}

/** A port nothing listens on: a proxy that is down. */
async function deadPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>(r => server.close(() => r()))
  return port
}

async function site (t: Teardown) {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html')
    res.end(`<html><head><title>page ${req.url}</title></head><body><p>Hello from ${req.url}</p></body></html>`)
  })
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>(r => { server.closeAllConnections(); server.close(() => r()) }))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const clientOver = (t: Teardown, pool: ProxyPool, rotation?: 'request' | 'job') => {
  const client = createHttpClient({ policy: createNetworkPolicy({ allowPrivateTargets: true }), userAgent: 'test', proxies: pool.chooser(rotation) })
  t.teardown(() => client.close())
  return client
}

t.test('rotation per request over two proxies: both used, in turn', async t => {
  const origin = await site(t)
  const a = await forwardProxy(t)
  const b = await forwardProxy(t)
  const pool = new ProxyPool([a.url, b.url], { rotation: 'request', failureLimit: 3, cooldownMs: 60_000, clock: manualClock() })
  const client = clientOver(t, pool)
  for (let i = 0; i < 4; i++) t.match((await client.text(`${origin}/p${i}`)).body, `Hello from /p${i}`)
  // One tunnel per proxy (undici keeps each proxy's connection for the next request through it).
  t.equal(a.tunnels.length, 1, 'the first proxy carried requests')
  t.equal(b.tunnels.length, 1, 'and the second')
  t.same(pool.health().map(h => h.requests), [2, 2], 'two requests each')
  t.ok(pool.health().every(h => h.ok && !h.cooling_down))
})

t.test('a dead proxy cools down after PROXY_FAILURE_LIMIT failures in a row, is skipped, then tried again', async t => {
  const origin = await site(t)
  const live = await forwardProxy(t)
  const dead = `http://127.0.0.1:${await deadPort()}`
  const clock = manualClock()
  const pool = new ProxyPool([dead, live.url], { rotation: 'request', failureLimit: 2, cooldownMs: 60_000, clock })
  const changes: string[] = []
  pool.onHealthChange(h => changes.push(`${h.proxy}:${h.cooling_down ? 'cooling' : h.ok ? 'ok' : 'failing'}`))
  const client = clientOver(t, pool)
  const outcomes: string[] = []
  for (let i = 0; i < 8; i++) {
    outcomes.push(await client.text(`${origin}/r${i}`).then(() => 'ok', (err: Error) => err.name))
  }
  // dead, live, dead (second failure: cooling), then live only.
  t.same(outcomes, ['UpstreamError', 'ok', 'UpstreamError', 'ok', 'ok', 'ok', 'ok', 'ok'])
  const [deadHealth, liveHealth] = pool.health()
  t.match(deadHealth, { proxy: dead, ok: false, consecutive_failures: 2, cooling_down: true, cooldown_remaining_s: 60, requests: 2, failures: 2, last_error: 'could not connect' })
  t.match(liveHealth, { ok: true, cooling_down: false, requests: 6 })
  t.same(changes, [`${dead}:failing`, `${dead}:cooling`], 'the metrics hook heard each change')

  clock.advance(60_000)
  t.equal(await client.text(`${origin}/again`).then(() => 'ok', (err: Error) => err.name), 'UpstreamError', 'after the cooldown the dead proxy is tried again')
  t.match(pool.health()[0], { cooling_down: true, consecutive_failures: 3 }, 'and cools down again at once')

  // Every proxy cooling: the one cooling longest is used, never a direct connection.
  const lonely = new ProxyPool([dead], { rotation: 'request', failureLimit: 1, cooldownMs: 60_000, clock })
  const direct = clientOver(t, lonely)
  await t.rejects(direct.text(`${origin}/x`), { name: 'UpstreamError' })
  await t.rejects(direct.text(`${origin}/y`), { name: 'UpstreamError' }, 'still through the cooling proxy, not around it')
  t.equal(lonely.health()[0]!.requests, 2)
})

t.test('metrics: each proxy\'s health read at the scrape, a cool-down counted once as it begins; labelled by position, never by host', async t => {
  const origin = await site(t)
  const live = await forwardProxy(t, 'user:proxy-secret-1')
  const dead = `http://user:proxy-secret-2@127.0.0.1:${await deadPort()}`
  const clock = manualClock()
  const app = await build(t, { clock, env: { ALLOW_PRIVATE_TARGETS: '1', PROXY_URLS: `${live.url}, ${dead}`, PROXY_FAILURE_LIMIT: '2', PROXY_COOLDOWN_MS: '60000' } })
  const client = app.services.net.http()
  t.teardown(() => client.close())
  const proxy = (i: number) => ({ proxy: String(i) })
  let samples = await scrape(app)
  t.same([0, 1].map(i => [valueOf(samples, 'proxy_up', proxy(i)), valueOf(samples, 'proxy_cooling_down', proxy(i))]), [[1, 0], [1, 0]], 'both up at the start')
  const cooldowns0 = valueOf(samples, 'proxy_cooldowns_total', proxy(1))

  // Per request: live, dead (failing), live, dead (second failure: cooling), then live only.
  const outcomes: string[] = []
  for (let i = 0; i < 6; i++) outcomes.push(await client.text(`${origin}/r${i}`).then(() => 'ok', (err: Error) => err.name))
  t.same(outcomes, ['ok', 'UpstreamError', 'ok', 'UpstreamError', 'ok', 'ok'])
  samples = await scrape(app)
  t.equal(valueOf(samples, 'proxy_up', proxy(0)), 1, 'the live one up')
  t.equal(valueOf(samples, 'proxy_up', proxy(1)), 0, 'the dead one down')
  t.equal(valueOf(samples, 'proxy_cooling_down', proxy(1)), 1, 'and cooling down')
  t.equal(valueOf(samples, 'proxy_cooldowns_total', proxy(1)) - cooldowns0, 1, 'one cool-down begun')
  t.equal(valueOf(samples, 'proxy_cooldowns_total', proxy(0)), 0, 'none for the live one')

  // The cool-down ends with time, no request needed: the next scrape shows it.
  clock.advance(60_000)
  samples = await scrape(app)
  t.equal(valueOf(samples, 'proxy_cooling_down', proxy(1)), 0, 'no longer cooling')
  t.equal(valueOf(samples, 'proxy_up', proxy(1)), 0, 'still down until a request through it gets an answer')
  const labels = samples.filter(s => s.name.startsWith('proxy_')).flatMap(s => Object.values(s.labels))
  t.ok(labels.every(v => /^\d+$/.test(v)), `positions only (${[...new Set(labels)].join(', ')})`)
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: { 'x-api-key': ADMIN_KEY } })
  t.notMatch(res.body, /proxy-secret|127\.0\.0\.1/, 'no proxy host or credential anywhere in the exposition')
})

t.test('sticky per job: one chooser keeps its proxy; the next job gets the next one; a cooling proxy is left', async t => {
  const origin = await site(t)
  const a = await forwardProxy(t)
  const b = await forwardProxy(t)
  const pool = new ProxyPool([a.url, b.url], { rotation: 'job', failureLimit: 1, cooldownMs: 60_000, clock: manualClock() })
  const first = clientOver(t, pool)
  for (let i = 0; i < 3; i++) await first.text(`${origin}/a${i}`)
  const second = clientOver(t, pool)
  for (let i = 0; i < 3; i++) await second.text(`${origin}/b${i}`)
  t.same(pool.health().map(h => h.requests), [3, 3], 'each job kept one proxy for all its requests')

  const chooser = pool.chooser()!
  const stuck = chooser.pick()
  t.equal(chooser.pick(), stuck)
  chooser.failed(stuck, 'could not connect')
  const moved = chooser.pick()
  t.not(moved, stuck, 'its proxy cooled down: the job moves on')
  t.equal(chooser.pick(), moved, 'and sticks to the new one')
})

t.test('through the kernel: PROXY_URLS with PROXY_ROTATION=job, a tool with "proxy": "none", health in the search status record', async t => {
  const origin = await site(t)
  const a = await forwardProxy(t, 'user:proxy-secret-1')
  const b = await forwardProxy(t, 'user:proxy-secret-2')
  const app = await build(t, { env: { ALLOW_PRIVATE_TARGETS: '1', PROXY_URLS: `${a.url}, ${b.url}`, PROXY_ROTATION: 'job' } })
  const user = await signup(app)
  const scrape = async (pages: string[]) => {
    const res = await call(app, 'POST', '/api/tool-run', user.apiKey, { tool: 'websearch', params: { urls: pages.map(p => `${origin}${p}`) } })
    t.equal(res.statusCode, 202)
    const end = await waitForEnd(app, user.apiKey, res.json().job_id, 60_000)
    t.equal(end.status, 'done', JSON.stringify(end.error))
    return end
  }
  await scrape(['/one', '/two', '/three'])
  const afterFirst = [a.tunnels.length, b.tunnels.length]
  t.ok(afterFirst.filter(n => n > 0).length === 1, `the first job went through one proxy (${afterFirst})`)
  await scrape(['/four', '/five'])
  t.ok(a.tunnels.length > 0 && b.tunnels.length > 0, 'the second job through the other')

  const status = await call(app, 'GET', '/api/search/status', user.apiKey)
  t.equal(status.statusCode, 200)
  const health = status.json().proxy_health as Array<Record<string, unknown>>
  t.same(health.map(h => h.proxy), [`http://127.0.0.1:${a.port}`, `http://127.0.0.1:${b.port}`], 'named by scheme, host and port only')
  t.ok(health.every(h => h.ok === true && (h.requests as number) > 0))
  t.notMatch(status.body, /proxy-secret/, 'no proxy credential in the record')
  t.equal(status.json().proxy_configured, true)

  // The same tool with "proxy": "none": it connects directly.
  const dir = tempDir(t)
  const tools = JSON.parse(readFileSync(resolve('tools.config.json'), 'utf8')) as { tools: Array<Record<string, unknown>> }
  for (const tool of tools.tools) if (tool.key === 'websearch') tool.proxy = 'none'
  const toolsConfig = join(dir, 'tools.json')
  writeFileSync(toolsConfig, JSON.stringify(tools))
  const before = a.tunnels.length + b.tunnels.length
  const directApp = await build(t, { env: { ALLOW_PRIVATE_TARGETS: '1', PROXY_URLS: `${a.url}, ${b.url}`, TOOLS_CONFIG: toolsConfig } })
  const other = await signup(directApp)
  const res = await call(directApp, 'POST', '/api/tool-run', other.apiKey, { tool: 'websearch', params: { urls: [`${origin}/direct`] } })
  const end = await waitForEnd(directApp, other.apiKey, res.json().job_id, 60_000)
  t.equal(end.status, 'done')
  t.equal(a.tunnels.length + b.tunnels.length, before, 'no request went through a proxy')
})
