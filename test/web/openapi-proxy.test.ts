// The OpenAPI document against the service's real traffic: Prism
// (@stoplight/prism-cli) as a validation proxy in front of a listening app, a
// journey through every documented route (the answers a client meets: 2xx and
// the documented errors), and any request or response that Prism finds off
// the document (its `sl-violations` header) fails the test with its words.
// And the playground's copied calls (curl, MCP) against the same documents.
import { execFileSync, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join, resolve } from 'node:path'
import t from 'tap'
import { Compile } from 'typebox/compile'
import { ADMIN_KEY, BLOG_KEY, build, tempDir } from '../helpers/build.ts'
import { curlCommand, mcpCall, shellWord, type ManifestTool } from '../../core/features/web/dashboard/client/copy-call.ts'
import { minimalParams } from '../../core/openapi/openapi-document.ts'
import { listeningApp, startShops } from './_dashboard.ts'

const freePort = () => new Promise<number>((done, fail) => {
  const server = createServer().listen(0, '127.0.0.1', () => { const { port } = server.address() as AddressInfo; server.close(() => done(port)) }).on('error', fail)
})

t.test('Prism\'s validation proxy finds no request or response off the document on a journey through every route', async t => {
  const shops = await startShops(t, { delayMs: 0 })
  const { app, base } = await listeningApp(t, { network: shops.network })
  const doc = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> }
  const docFile = join(tempDir(t), 'openapi.json')
  writeFileSync(docFile, JSON.stringify(doc))

  const port = await freePort()
  const prism = spawn(process.execPath, [resolve('node_modules/@stoplight/prism-cli/dist/index.js'), 'proxy', docFile, base, '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { prism.kill() })
  let prismLog = ''
  await new Promise<void>((done, fail) => {
    const onData = (chunk: Buffer) => { prismLog += chunk.toString(); if (/Prism is listening/.test(prismLog)) done() }
    prism.stdout.on('data', onData)
    prism.stderr.on('data', onData)
    prism.on('exit', code => fail(new Error(`prism exited ${code}: ${prismLog}`)))
  })
  const proxy = `http://127.0.0.1:${port}`

  const seen = new Set<string>()
  const call = async (method: string, route: string, path: string, options: { key?: string, body?: unknown, headers?: Record<string, string>, status?: number, bad?: boolean } = {}) => {
    seen.add(`${method.toLowerCase()} ${route}`)
    const headers: Record<string, string> = { ...options.headers }
    if (options.key) headers['x-api-key'] = options.key
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(proxy + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) })
    const text = await res.text()
    const header = res.headers.get('sl-violations')
    let violations: Array<{ location: string[], message: string }> = []
    // Past a length Prism sends "Too many violations! [<JSON cut short>]": its side is still readable.
    try { violations = header ? JSON.parse(header) : [] } catch { violations = [{ location: [header!.includes('["response"') ? 'response' : 'request'], message: header! }] }
    // A request meant to be refused (no key, a bad body) breaks the document on purpose: its answer must still match it.
    if (options.bad) violations = violations.filter(v => v.location[0] !== 'request')
    t.same(violations, [], `${method} ${path} (${res.status}) matches the document`)
    // The answer's text names a wrong status (JSON only: a file's bytes would make the log binary).
    const isJson = (res.headers.get('content-type') ?? '').includes('json')
    if (options.status !== undefined) t.equal(res.status, options.status, `${method} ${path}${isJson ? `: ${text.slice(0, 300)}` : ''}`)
    const json = isJson && text ? JSON.parse(text) : null
    return { status: res.status, json, text, headers: res.headers }
  }
  const until = async (what: string, check: () => Promise<boolean>) => {
    for (const deadline = Date.now() + 60_000; !(await check());) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
      await new Promise(done => setTimeout(done, 100))
    }
  }

  // Public pages and documents.
  await call('GET', '/api/health', '/api/health', { status: 200 })
  // The pool's first answer awaited: a loaded machine may take longer than the probe's 2 s to start a worker.
  await app.services.extraction.answering()
  await call('GET', '/api/health/ready', '/api/health/ready', { status: 200 })
  await call('GET', '/openapi.json', '/openapi.json', { status: 200 })
  await call('GET', '/api/tools', '/api/tools', { status: 200 })
  await call('GET', '/mcp/manifest.json', '/mcp/manifest.json', { status: 200 })
  await call('GET', '/mcp/docs.md', '/mcp/docs.md', { status: 200 })
  const appPage = await call('GET', '/app', '/app', { status: 200 })
  const asset = /\/app\/assets\/([\w.-]+)/.exec(appPage.text)?.[1]
  t.ok(asset, 'the dashboard names its assets')
  await call('GET', '/app/assets/{name}', `/app/assets/${asset}`, { status: 200 })
  await call('GET', '/app/assets/{name}', '/app/assets/no-such.js', { status: 404 })
  await call('GET', '/api/blog/list', '/api/blog/list', { status: 200 })
  await call('GET', '/api/blog/{slug}', '/api/blog/no-such-post', { status: 404 })
  await call('GET', '/api/blog/images/{name}', '/api/blog/images/no-such.png', { status: 404 })
  await call('POST', '/api/blog/generate', '/api/blog/generate', { body: {}, status: 401, bad: true })
  await call('POST', '/api/blog/post', '/api/blog/post', { headers: { 'x-blog-key': BLOG_KEY }, body: { title: 'Hello', content: 'First words.', status: 'published' }, status: 201 })
  await call('PUT', '/api/blog/post/{slug}', '/api/blog/post/hello', { headers: { 'x-blog-key': BLOG_KEY }, body: { title: 'Hello again' }, status: 200 })
  await call('GET', '/api/blog/{slug}', '/api/blog/hello', { status: 200 })
  await call('GET', '/metrics', '/metrics', { key: ADMIN_KEY, status: 200 })

  // An account: sign-up, log-in, me, update, scoped tokens, the key's rotation, Pro.
  const email = `prism-${Date.now()}@example.com`
  const signedUp = await call('POST', '/api/auth/signup', '/api/auth/signup', { body: { email, password: 'correct horse battery' }, status: 200 })
  await call('POST', '/api/auth/signup', '/api/auth/signup', { body: { email, password: 'correct horse battery' }, status: 409 })
  await call('POST', '/api/auth/login', '/api/auth/login', { body: { email, password: 'wrong' }, status: 401 })
  let key = (await call('POST', '/api/auth/login', '/api/auth/login', { body: { email, password: 'correct horse battery' }, status: 200 })).json.api_key as string
  t.equal(key, signedUp.json.user.api_key)
  await call('GET', '/api/auth/me', '/api/auth/me', { status: 401, bad: true })
  await call('GET', '/api/auth/me', '/api/auth/me', { key, status: 200 })
  await call('POST', '/api/auth/update', '/api/auth/update', { key, body: { name: 'Prism' }, status: 200 })
  const token = await call('POST', '/api/auth/tokens', '/api/auth/tokens', { key, body: { name: 'ci', tools: ['webemail'] }, status: 201 })
  await call('GET', '/api/auth/tokens', '/api/auth/tokens', { key, status: 200 })
  await call('DELETE', '/api/auth/tokens/{id}', `/api/auth/tokens/${token.json.id}`, { key, status: 200 })
  key = (await call('POST', '/api/auth/regenerate-key', '/api/auth/regenerate-key', { key, status: 200 })).json.api_key
  await call('POST', '/api/auth/claim-pro', '/api/auth/claim-pro', { key, status: 200 })

  // The account's default webhook.
  await call('GET', '/api/account/webhook', '/api/account/webhook', { key, status: 404 })
  await call('PUT', '/api/account/webhook', '/api/account/webhook', { key, body: { url: 'https://hooks.example/x', events: ['done'] }, status: 200 })
  await call('GET', '/api/account/webhook', '/api/account/webhook', { key, status: 200 })
  await call('DELETE', '/api/account/webhook', '/api/account/webhook', { key, status: 200 })

  // A job: bad input first (400, nothing charged), then a crawl of a stand-in site to its end.
  await call('POST', '/api/tool-run', '/api/tool-run', { key, body: { tool: 'webemail', params: { website: 'not a url at all' } }, status: 400, bad: true })
  await call('POST', '/api/tool-run', '/api/tool-run', { key, body: { tool: 'no_such_tool', params: {} }, status: 400, bad: true })
  const started = await call('POST', '/api/tool-run', '/api/tool-run', { key, body: { tool: 'webemail', params: { website: shops.site(1), max_pages: 4 }, webhook: { url: 'https://hooks.example/y' } }, status: 202 })
  const id = started.json.job_id as string
  await until('the crawl ends', async () => (await call('GET', '/api/tool-run/{id}/status', `/api/tool-run/${id}/status`, { key })).json.status !== 'running')
  t.match((await call('GET', '/api/tool-run/{id}/status', `/api/tool-run/${id}/status`, { key, status: 200 })).json, { status: 'done' })
  await call('GET', '/api/tool-run/{id}/status', '/api/tool-run/no-such-job/status', { key, status: 404 })
  await call('GET', '/api/tool-run/{id}/results', `/api/tool-run/${id}/results?limit=1`, { key, status: 200 })
  for (const fmt of ['csv', 'json', 'jsonl', 'xlsx']) {
    await call('GET', '/api/tool-run/{id}/results.{fmt}', `/api/tool-run/${id}/results.${fmt}`, { key, status: 200 })
    await call('GET', '/api/jobs/{id}/results.{fmt}', `/api/jobs/${id}/results.${fmt}`, { key, status: 200 })
  }
  await call('GET', '/api/download/{id}/{fmt}', `/api/download/${id}/csv`, { key, status: 200 })
  const exploded = (await call('GET', '/api/tool-run/{id}/results.{fmt}', `/api/tool-run/${id}/results.json?explode=emails`, { key, status: 200 })).json
  t.same(exploded.map((row: { emails: string }) => row.emails).sort(), [`info@shop-1.example`, `sales@shop-1.example`], 'explode=emails: a row an e-mail')
  await call('GET', '/api/tool-run/{id}/artifacts', `/api/tool-run/${id}/artifacts`, { key, status: 200 })
  await call('GET', '/api/tool-run/{id}/artifacts.zip', `/api/tool-run/${id}/artifacts.zip`, { key, status: 200 })
  await call('GET', '/api/tool-run/{id}/artifacts/{artifactId}', `/api/tool-run/${id}/artifacts/no-such-file`, { key, status: 404 })
  await call('GET', '/api/jobs', '/api/jobs', { key, status: 200 })
  await call('GET', '/api/jobs/{id}', `/api/jobs/${id}`, { key, status: 200 })
  await call('GET', '/api/jobs/{id}/input', `/api/jobs/${id}/input`, { key, status: 200 })
  await call('GET', '/api/jobs/{id}/results', `/api/jobs/${id}/results`, { key, status: 200 })
  await call('GET', '/api/jobs/{id}/webhooks', `/api/jobs/${id}/webhooks`, { key, status: 200 })
  await call('POST', '/api/jobs/{id}/webhooks/redeliver', `/api/jobs/${id}/webhooks/redeliver`, { key, body: {}, status: 409 })
  await call('DELETE', '/api/tool-run/{id}', `/api/tool-run/${id}`, { key, status: 409 })
  // A crawl that never ends, cancelled.
  const stalled = (await call('POST', '/api/tool-run', '/api/tool-run', { key, body: { tool: 'webemail', params: { website: shops.stalledSite(1) } }, status: 202 })).json.job_id
  t.match((await call('DELETE', '/api/tool-run/{id}', `/api/tool-run/${stalled}`, { key, status: 200 })).json, { status: 'cancelled' })
  // The alias starts.
  await call('POST', '/api/website-email/find', '/api/website-email/find', { key, body: { website: shops.site(2), max_pages: 2 }, status: 200 })
  await call('POST', '/api/scrape', '/api/scrape', { key, body: {}, status: 400, bad: true })

  // Status pages of the plugins that have one.
  await call('GET', '/api/media/status', '/api/media/status', { key, status: 200 })
  await call('GET', '/api/search/status', '/api/search/status', { key, status: 200 })

  // A monitor, through its life.
  await call('POST', '/api/monitors', '/api/monitors', { key, body: { tool: 'webemail', params: { website: shops.site(3) }, schedule: { every: 'soon' } }, status: 400, bad: true })
  const monitor = (await call('POST', '/api/monitors', '/api/monitors', { key, body: { tool: 'webemail', params: { website: shops.site(3), max_pages: 2 }, schedule: { every: '1d' } }, status: 201 })).json
  const monitorPath = `/api/monitors/${monitor.monitor_id}`
  await call('GET', '/api/monitors', '/api/monitors', { key, status: 200 })
  await call('GET', '/api/monitors/{id}', monitorPath, { key, status: 200 })
  await call('PATCH', '/api/monitors/{id}', monitorPath, { key, body: { name: 'Shop 3' }, status: 200 })
  await call('POST', '/api/monitors/{id}/pause', `${monitorPath}/pause`, { key, status: 200 })
  await call('POST', '/api/monitors/{id}/resume', `${monitorPath}/resume`, { key, status: 200 })
  const run = (await call('POST', '/api/monitors/{id}/run', `${monitorPath}/run`, { key, status: 202 })).json
  await until('the monitor\'s run ends', async () => (await call('GET', '/api/tool-run/{id}/status', `/api/tool-run/${run.job_id}/status`, { key })).json.status !== 'running')
  await call('GET', '/api/monitors/{id}/changes', `${monitorPath}/changes`, { key, status: 200 })
  await call('GET', '/api/monitors/{id}/changes.{fmt}', `${monitorPath}/changes.csv`, { key, status: 200 })
  await call('DELETE', '/api/monitors/{id}', monitorPath, { key, status: 200 })
  await call('GET', '/api/monitors/{id}', monitorPath, { key, status: 404 })

  // The agent endpoint's plain HTTP answers (its protocol is the conformance suite's to check).
  await call('GET', '/mcp', '/mcp', { key, headers: { accept: 'application/json' }, status: 405 })

  const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map(method => `${method} ${path}`))
  const skipped = new Set([
    'get /api/tool-run/{id}/ws', // a WebSocket upgrade, which Prism does not proxy (progress-socket.test.ts)
    'post /mcp', 'delete /mcp', // MCP's own protocol (the conformance suite)
  ])
  t.same(documented.filter(route => !seen.has(route) && !skipped.has(route)), [], 'every documented route was called')
})

t.test('the playground\'s copied calls: curl quotes any text; every tool\'s minimal call as an MCP call its agent tool accepts', async t => {
  const tricky = `it's "quoted" $HOME \`id\` \\ ; | & > <\nnew line`
  t.equal(execFileSync('bash', ['-c', `printf %s ${shellWord(tricky)}`], { encoding: 'utf8' }), tricky, 'a shell word is the text itself')
  const curl = curlCommand('https://x.example', 'webemail', { website: "o'brien.example" })
  t.match(curl, /-H "x-api-key: \$EXTRACTION_API_KEY"/, 'the key is a variable, never written')
  t.equal(execFileSync('bash', ['-c', `printf '%s\\n' ${curl.split('-d ')[1]}`], { encoding: 'utf8' }).trim(), JSON.stringify({ tool: 'webemail', params: { website: "o'brien.example" } }))
  t.match(curlCommand('https://x.example', 'video_frames', { every_seconds: 2 }, 'my clip.mp4'), /-F 'file=@my clip\.mp4'/)

  const app = await build(t)
  const manifest = (await app.inject({ url: '/mcp/manifest.json' })).json() as { protocol_versions: string[], tools: Array<ManifestTool & { inputSchema: object }> }
  t.same(manifest.protocol_versions.slice(0, 2), ['2026-07-28', '2025-11-25'], 'the manifest names the revisions served, newest first')
  for (const tool of app.services.registry.enabled()) {
    const { key } = tool.declaration
    const text = mcpCall(manifest.tools, key, minimalParams(tool.declaration))
    if (!t.ok(text, `${key}: an agent tool runs it`)) continue
    const message = JSON.parse(text!) as { method: string, params: { name: string, arguments: Record<string, unknown> } }
    t.equal(message.method, 'tools/call')
    const agentTool = manifest.tools.find(a => a.name === message.params.name)!
    t.equal(agentTool.rest_key, key)
    const check = Compile(agentTool.inputSchema as never)
    t.ok(check.Check(message.params.arguments), `${key}: ${agentTool.name}'s schema accepts ${JSON.stringify(message.params.arguments)}`)
  }
  t.equal(mcpCall(manifest.tools, 'no_such_tool', {}), null)
})
