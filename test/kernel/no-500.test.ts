// Nothing a client sends yields a 500: every route in the OpenAPI document,
// every method, with hostile bodies, queries and path parameters, and each of
// the key kinds. The answer is always {detail} when it is an error.
import { resolve } from 'node:path'
import t from 'tap'
import { build, signup, ADMIN_KEY, PUBLIC_TOKEN } from '../helpers/build.ts'
import { modernMcpRequest } from '../helpers/mcp-request.ts'

const bodies: unknown[] = [
  undefined, null, [], '"text"', 'not json', 0, -1, 1e308, true,
  {}, { tool: null }, { tool: 'webemail', params: [] }, { tool: 'webemail', params: { website: ['a', 5] } },
  { tool: 'websearch', params: { query: 'x'.repeat(10_000), max_results: -5 } }, { tool: '\u0000', params: { '\u0000': '\u0000' } },
  { email: 'a@b.co\u0000', password: '\u0000'.repeat(8) }, { email: { $ne: 1 }, password: ['x'] }, { __proto__: { admin: true }, constructor: { prototype: {} } },
  { title: '<script>alert(1)</script>', content: 1 }, { name: 'x'.repeat(5000), tools: 'all' }, { website: 'javascript:alert(1)', max_pages: 1e12 },
  { query: '', prompt: null }, { topic: { nested: true } }, { webhook: { url: 'http://169.254.169.254/' } },
]
const ids = ['x', '%00', '..%2F..%2Fetc%2Fpasswd', 'ü', '00000000-0000-0000-0000-000000000000', "'; DROP TABLE jobs; --"]
const queries = ['', '?offset=-1', '?limit=abc', '?limit=1e9', '?fields=%00', '?offset=1&offset=2', '?limit[]=1']

t.test('no route answers 500 to hostile input', async t => {
  const app = await build(t, { env: { RATE_LIMIT_PER_MINUTE: '1000000' } })
  const user = await signup(app)
  const doc = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> }
  const paths = Object.keys(doc.paths)
  t.ok(paths.length > 20, `${paths.length} documented paths`)
  const keys = [undefined, user.apiKey, PUBLIC_TOKEN, ADMIN_KEY, 'sk-bad']
  let requests = 0
  for (const path of paths) {
    for (const method of Object.keys(doc.paths[path]!).filter(m => ['get', 'post', 'put', 'delete'].includes(m))) {
      if (path === '/mcp' || path.endsWith('/ws')) continue
      // A path without parameters is the same URL for every id: sent once, not once per id.
      for (const id of /\{[^}]+\}/.test(path) ? ids : ids.slice(0, 1)) {
        const url = path.replace(/\{[^}]+\}/g, id)
        for (const key of keys) {
          const headers: Record<string, string> = key ? { 'x-api-key': key } : {}
          const variants = method === 'get' || method === 'delete' ? queries.map(q => ({ url: url + q })) : bodies.map(b => ({ url, body: b }))
          for (const v of variants) {
            const body = 'body' in v ? v.body : undefined
            const res = await app.inject({
              method: method.toUpperCase() as 'GET',
              url: v.url,
              headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
              payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
            })
            requests++
            if (res.statusCode >= 500 && res.statusCode !== 503) t.fail(`${method.toUpperCase()} ${v.url} ${JSON.stringify(body)} → ${res.statusCode} ${res.body.slice(0, 200)}`)
            if (res.statusCode >= 400 && !String(res.headers['content-type'] ?? '').includes('json')) t.fail(`${method.toUpperCase()} ${v.url} → ${res.statusCode} without a JSON body`)
            if (res.statusCode >= 400 && typeof res.json().detail !== 'string') t.fail(`${method.toUpperCase()} ${v.url} → ${res.statusCode} without {detail}`)
          }
        }
      }
    }
  }
  t.ok(requests > 1000, `${requests} hostile requests, none answered 500`)
})

// Found by the route fuzz (route-fuzz-*.test.ts).
t.test('a body nested thousands of levels deep is a 400, not a stack overflow', async t => {
  const app = await build(t, { env: { TOOLS_CONFIG: resolve('test/fixtures/tools.fuzz.config.json') } })
  const user = await signup(app)
  for (const n of [100, 5000, 50_000]) {
    const payload = '{"tool":"counter","params":' + '{"a":'.repeat(n) + '1' + '}'.repeat(n) + '}'
    const res = await app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': user.apiKey, 'content-type': 'application/json' }, payload })
    t.equal(res.statusCode, 400, `depth ${n}`)
    t.match(res.json(), { detail: /nests deeper than 64 levels/ })
  }
  const mcp = await app.inject({ method: 'POST', url: '/mcp', headers: { 'x-api-key': user.apiKey, 'content-type': 'application/json' }, payload: '['.repeat(10_000) + ']'.repeat(10_000) })
  t.equal(mcp.statusCode, 400)
})

t.test('the progress WebSocket asked for over plain HTTP answers 426 {detail}', async t => {
  const app = await build(t)
  const user = await signup(app)
  const res = await app.inject({ method: 'GET', url: '/api/tool-run/00000000-0000-0000-0000-000000000000/ws', headers: { 'x-api-key': user.apiKey } })
  t.equal(res.statusCode, 426)
  t.equal(res.headers.upgrade, 'websocket')
  t.match(res.json(), { detail: /WebSocket/ })
})

t.test('MCP params that do not fit the method are -32602 Invalid params, not -32603', async t => {
  const app = await build(t, { env: { TOOLS_CONFIG: resolve('test/fixtures/tools.fuzz.config.json') } })
  const user = await signup(app)
  const bad = [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } },
    { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: 5 } },
    { jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: [] } },
    { jsonrpc: '2.0', id: 4, method: 'resources/read', params: {} },
    // Every paged list: a cursor that is not a string (a fuzzer's find on resources/templates/list).
    ...['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'].map((method, i) => ({ jsonrpc: '2.0', id: 5 + i, method, params: { cursor: { a: 1 } } })),
  ]
  for (const payload of bad) {
    const res = await app.inject({ method: 'POST', url: '/mcp', headers: { 'x-api-key': user.apiKey }, payload })
    t.equal(res.statusCode, 200)
    t.match(res.json(), { jsonrpc: '2.0', id: payload.id, error: { code: -32602, message: new RegExp(`Invalid params for ${payload.method}`) } })
  }
  const fine = await app.inject({ method: 'POST', url: '/mcp', headers: { 'x-api-key': user.apiKey }, payload: { jsonrpc: '2.0', id: 99, method: 'tools/list' } })
  t.ok(fine.json().result.tools.length > 0, 'a valid request still reaches the server')
  // The same in the 2026-07-28 revision, whose requests the SDK serves one exchange at a time (the fuzzer found its -32603 too).
  for (const payload of bad.filter(p => p.method !== 'initialize')) {
    const { headers, body } = modernMcpRequest(user.apiKey, payload.method, payload.params as Record<string, unknown>)
    const res = await app.inject({ method: 'POST', url: '/mcp', headers, payload: body })
    t.equal(res.statusCode, 200)
    t.match(res.json(), { jsonrpc: '2.0', error: { code: -32602, message: new RegExp(`Invalid params for ${payload.method}`) } }, `${payload.method} in the 2026-07-28 revision`)
  }
  const { headers, body } = modernMcpRequest(user.apiKey, 'tools/list', {})
  t.ok((await app.inject({ method: 'POST', url: '/mcp', headers, payload: body })).json().result.tools.length > 0, 'and a valid one is served')
})
