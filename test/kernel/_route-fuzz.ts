// Property-based fuzzing of every route (issue 11): random and near-valid
// bodies, queries, path ids, keys and headers, at least 1,000 cases a route.
// The property: never a 5xx, every error is a JSON object whose `detail` is a
// non-empty string (extra keys only where README.md documents them), and no
// answer carries a stack trace or an internal path. Not a test file itself:
// route-fuzz-<n>.test.ts each run one shard of the routes, so tap's parallel
// jobs share the work.
//
// The route list comes from the app (an onRoute observer), so a new route is
// fuzzed without being listed here. The app runs only the test-only tools
// (tools.fuzz.config.json: counter and relay, no network); webhook URLs are
// private or invalid (ALLOW_PRIVATE_TARGETS stays 0, so none is ever contacted).
import { join, resolve } from 'node:path'
import { tmpdir } from 'node:os'
import { randomUUID } from 'node:crypto'
import net from 'node:net'
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions, RouteOptions } from 'fastify'
import type { LightMyRequestResponse } from 'fastify'
import { build, signup, ADMIN_KEY, BLOG_KEY, PUBLIC_TOKEN } from '../helpers/build.ts'
import { startJob, waitForEnd } from '../helpers/jobs.ts'

type Tap = Parameters<typeof build>[0] & {
  same: (found: unknown, wanted: unknown, message: string) => void
  test: (name: string, fn: (t: Tap) => Promise<void>) => Promise<unknown>
  comment: (...args: unknown[]) => void
  pass: (message: string) => void
  fail: (message: string) => void
  ok: (value: unknown, message: string) => void
}

export const FUZZ_TOOLS_CONFIG = resolve('test/fixtures/tools.fuzz.config.json')
/** The issue's floor: at least 1,000 cases a route. */
export const RUNS_PER_ROUTE = Math.max(1, Number(process.env.FUZZ_RUNS ?? 1000))

// JSON-Schema view of the TypeBox schemas a route validates with.
interface Schema {
  type?: string | string[]
  properties?: Record<string, Schema>
  patternProperties?: Record<string, Schema>
  additionalProperties?: boolean | Schema
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
  oneOf?: Schema[]
  enum?: unknown[]
  const?: unknown
  minLength?: number
  maxLength?: number
  pattern?: string
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
}

export interface FuzzRoute {
  method: string
  url: string
  schema: { body?: Schema, querystring?: Schema, params?: Schema, headers?: Schema }
  websocket: boolean
  /** A page for browsers (config.webPage): a client that asks for HTML gets its errors as an HTML page. */
  webPage: boolean
}

/** Collects the app's routes as it adds them (HEAD copies of GET routes left out). */
export function routeRecorder () {
  const routes: FuzzRoute[] = []
  const onRoute = (route: RouteOptions & { websocket?: boolean, wsHandler?: unknown }) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(m => m !== 'HEAD' && m !== 'OPTIONS')
    // webPage is read when asked: a plugin's own onRoute hook (the /docs reference's) may set the route's config after this one ran.
    for (const method of methods) routes.push({ method, url: route.url, schema: (route.schema ?? {}) as FuzzRoute['schema'], websocket: Boolean(route.websocket || route.wsHandler), get webPage () { return Boolean((route.config as { webPage?: boolean } | undefined)?.webPage) } })
  }
  return { routes, onRoute }
}

// ---------------------------------------------------------------------------
// The world the requests act on: two accounts with a finished job each, a
// scoped token each, a blog post. Ids are named here and resolved at send
// time, because some requests change them (a regenerated key, a revoked token).

type KeyKind = 'none' | 'bad' | 'guest' | 'personal' | 'scoped' | 'admin' | 'other'
type Ref = 'ownJob' | 'otherJob' | 'ownToken' | 'otherToken' | 'post'

interface World {
  keys: { personal: string, scoped: string, other: string }
  refs: Record<Ref, string>
  toolNames: string[]
  agentSchemas: Record<string, Schema>
  toolInputs: Record<string, Schema>
  /** What the owner's scoped token may run. */
  scope: string[]
}

async function mint (app: FastifyInstance, key: string, tools: string[]) {
  const res = await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: { 'x-api-key': key }, payload: { name: 'fuzz', tools } })
  if (res.statusCode !== 201) throw new Error(`mint failed: ${res.statusCode} ${res.body}`)
  return res.json() as { token: string, id: string }
}

/** `withJobs`: the app runs the test-only counter tool, so each account gets a finished job (else the job ids are unknown ones). */
async function prepareWorld (app: FastifyInstance, withJobs = true): Promise<World> {
  const owner = await signup(app)
  const other = await signup(app)
  const scope = withJobs ? ['counter'] : app.services.catalog.keys().slice(0, 1)
  const jobOf = async (key: string) => {
    if (!withJobs) return randomUUID()
    const res = await startJob(app, key, { max_results: 3 })
    const id = res.json().job_id as string
    await waitForEnd(app, key, id)
    return id
  }
  const ownToken = await mint(app, owner.apiKey, scope)
  const otherToken = await mint(app, other.apiKey, scope)
  const post = await app.inject({ method: 'POST', url: '/api/blog/post', headers: { 'x-api-key': ADMIN_KEY }, payload: { title: 'Fuzz target', content: 'A post the fuzz reads and edits.' } })
  if (post.statusCode !== 201) throw new Error(`blog post failed: ${post.statusCode} ${post.body}`)
  // The agent's own tool list: names and argument schemas for tools/call.
  const list = await app.inject({ method: 'POST', url: '/mcp', headers: { 'x-api-key': owner.apiKey }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
  const tools = (list.json() as { result: { tools: Array<{ name: string, inputSchema: Schema }> } }).result.tools
  const { registry } = app.services
  return {
    keys: { personal: owner.apiKey, scoped: ownToken.token, other: other.apiKey },
    refs: { ownJob: await jobOf(owner.apiKey), otherJob: await jobOf(other.apiKey), ownToken: ownToken.id, otherToken: otherToken.id, post: post.json().post.slug },
    toolNames: tools.map(t => t.name),
    agentSchemas: Object.fromEntries(tools.map(t => [t.name, t.inputSchema])),
    toolInputs: Object.fromEntries(registry.enabled().map(t => [t.declaration.key, t.declaration.input as Schema])),
    scope,
  }
}

/** Keeps the world usable after a request that changed it. */
async function followChanges (app: FastifyInstance, world: World, sent: { key: KeyKind }, res: LightMyRequestResponse) {
  if (res.statusCode >= 300) return
  // Only the two answers below change the world; the others are not parsed (JSON.parse of the
  // ~100 kB OpenAPI document on each of 1,000 cases was a tenth of a shard's CPU).
  if (!res.body.includes('"api_key"') && !res.body.includes('"revoked"')) return
  let body: Record<string, unknown>
  try { body = res.json() } catch { return }
  if (!body || typeof body !== 'object') return
  // regenerate-key: the owner's old key is revoked at once.
  if (sent.key === 'personal' && typeof body.api_key === 'string' && body.api_key.startsWith('sk-')) world.keys.personal = body.api_key
  // The owner's scoped token was revoked: mint a new one.
  if (body.revoked === true && body.id === world.refs.ownToken) {
    const fresh = await mint(app, world.keys.personal, world.scope)
    world.keys.scoped = fresh.token
    world.refs.ownToken = fresh.id
  }
}

// ---------------------------------------------------------------------------
// Arbitraries.

const ascii = fc.integer({ min: 0x20, max: 0x7e }).map(c => String.fromCharCode(c))
const latin1 = fc.integer({ min: 0xa0, max: 0xff }).map(c => String.fromCharCode(c))
/** What an HTTP client can put in a header value. */
const headerText = (maxLength = 120) => fc.string({ unit: fc.oneof({ weight: 8, arbitrary: ascii }, { weight: 1, arbitrary: latin1 }, { weight: 1, arbitrary: fc.constant('\t') }), maxLength })

/**
 * Any code point, lone surrogates included: what fast-check's `unit: 'binary'` draws, without
 * its set-up, a map of all 1.1 million code points built once per process (3 s of CPU on this
 * machine, every shard of the fuzz paid it).
 */
const anyCodePoint = fc.integer({ min: 0, max: 0x10FFFF }).map(c => String.fromCodePoint(c))
const oddUnits = fc.constantFrom('\u0000', '\uD800', '\uDFFF', '\u202E', '\uFEFF', 'é', '𝕏', '👩‍👩‍👧', '\n', '"', '\\', '<', '%', '\u2028')
/** Long and odd unicode: lone surrogates, NUL, bidi overrides, emoji, up to 20,000 characters. */
const unicodeText = fc.oneof(
  fc.string({ unit: anyCodePoint, maxLength: 200 }),
  fc.string({ unit: oddUnits, maxLength: 50 }),
  fc.tuple(fc.string({ unit: oddUnits, minLength: 1, maxLength: 3 }), fc.integer({ min: 100, max: 20_000 })).map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n)),
)
const nanIsh = fc.constantFrom('NaN', 'Infinity', '-Infinity', '-0', '0x10', '1e3', '1e999', ' 1 ', '', '1,5', '٣', 'null', 'undefined', 'true', '[]', '{}', '0b1', '+1', '١٢')
const oddNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 1.5, -1.5, 1e308, -1e308, 5e-324, 2 ** 31, -(2 ** 31), 2 ** 53, 2 ** 53 + 2, -(2 ** 53) - 2, Number.MAX_SAFE_INTEGER, 1e21),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)
const scalar = fc.oneof(oddNumber, nanIsh, unicodeText, fc.boolean(), fc.constant(null))
const protoKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf')
/** Any JSON value: nested objects and arrays of odd scalars under odd keys. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>(tie => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('tool', 'params', 'webhook', 'email', 'password', 'limit', 'offset', 'id', 'jsonrpc', 'method')), tie('value'), { maxKeys: 5 }),
  ),
})).value

/** A wrong value for what a schema expects: another JSON type, or just past a bound. */
function wrongFor (s: Schema): fc.Arbitrary<unknown> {
  const past: unknown[] = []
  if (s.maxLength !== undefined) past.push('x'.repeat(s.maxLength + 1), 'é'.repeat(s.maxLength + 1))
  if (s.minLength !== undefined && s.minLength > 0) past.push('', ' '.repeat(s.minLength))
  if (s.pattern !== undefined) past.push('Not A Slug!', '../x', '-', 'a--b')
  if (s.minimum !== undefined) past.push(s.minimum - 1, s.minimum - 0.5, -(2 ** 53))
  if (s.maximum !== undefined) past.push(s.maximum + 1, s.maximum + 0.5, 2 ** 53 + 2)
  if (s.type === 'integer') past.push(1.5, String(s.minimum ?? 1), '1e2')
  if (s.minItems !== undefined) past.push([])
  if (s.maxItems !== undefined) past.push(Array.from({ length: s.maxItems + 1 }, () => 'counter'))
  if (s.enum || s.const !== undefined || s.anyOf) past.push('not-a-member', 'DRAFT', 0)
  const otherTypes = fc.constantFrom<unknown>(null, 0, -1, 1.5, true, false, '', 'x', [], {}, [1], { a: 1 }, '1', 1e308, 'NaN')
  return past.length ? fc.oneof(fc.constantFrom(...past), otherTypes, hostileValue) : fc.oneof(otherTypes, hostileValue)
}

/** Field names whose valid values must not reach the network or repeat an account. */
function validString (name: string | undefined, s: Schema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0
  const max = Math.min(s.maxLength ?? 40, 40)
  if (name === 'url' || name === 'website' || name === 'featured_image' || name === 'image_url') {
    // Private or unresolvable targets: refused by the guard, never contacted.
    return fc.constantFrom('http://127.0.0.2:9/hook', 'https://10.0.0.1/x', 'http://169.254.169.254/latest', 'http://[::1]:9/', 'http://localhost:9/')
  }
  if (name === 'email') return fc.oneof(fc.uuid().map(u => `fuzz-${u.slice(0, 8)}@example.com`), fc.constantFrom('not-an-email', '@', 'a@b', ' FUZZ@Example.COM '))
  if (s.pattern !== undefined) return fc.stringMatching(new RegExp(s.pattern)).filter(v => v.length >= min && v.length <= (s.maxLength ?? Infinity))
  return fc.string({ minLength: min, maxLength: Math.max(min, max) })
}

/** Values that satisfy the schema (small ones: a valid start must stay cheap). */
function validFor (s: Schema, name?: string, depth = 0): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const)
  if (s.enum) return fc.constantFrom(...s.enum)
  const union = s.anyOf ?? s.oneOf
  if (union) return fc.oneof(...union.map(u => validFor(u, name, depth)))
  const type = Array.isArray(s.type) ? s.type[0] : s.type
  switch (type) {
    case 'string': return validString(name, s)
    case 'integer': {
      const min = s.minimum ?? 0
      return fc.integer({ min, max: Math.min(s.maximum ?? min + 3, min + 3) })
    }
    case 'number': {
      const min = s.minimum ?? 0
      return fc.double({ min, max: Math.min(s.maximum ?? min + 3, min + 3), noNaN: true })
    }
    case 'boolean': return fc.boolean()
    case 'null': return fc.constant(null)
    case 'array': return fc.array(s.items ? validFor(s.items, name, depth + 1) : hostileValue, { minLength: s.minItems ?? 0, maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 3, 3)) })
    case 'object': {
      if (depth > 4) return fc.constant({})
      const props = s.properties ?? {}
      if (Object.keys(props).length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 3 })
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validFor(v, k, depth + 1)]))
      return fc.record(model, { requiredKeys: s.required ?? [] }) as fc.Arbitrary<unknown>
    }
    default: return fc.oneof(scalar, fc.constant({}))
  }
}

type Mutation = 'none' | 'wrong' | 'drop' | 'unknown-field' | 'nested' | 'as-array'

/** A valid value with one thing wrong: a field of a wrong type or out of range, a required field dropped, an unknown field added. */
function nearValid (s: Schema, depth = 0): fc.Arbitrary<unknown> {
  const valid = validFor(s)
  const props = Object.keys(s.properties ?? {})
  if (!props.length) return fc.oneof(valid, wrongFor(s))
  return fc.tuple(valid, fc.constantFrom(...props), fc.constantFrom<Mutation>('none', 'none', 'none', 'wrong', 'wrong', 'wrong', 'drop', 'unknown-field', 'nested', 'as-array'))
    .chain(([base, key, how]) => {
      const value = { ...(base as Record<string, unknown>) }
      const field = s.properties![key]!
      switch (how) {
        case 'none': return fc.constant<unknown>(value)
        case 'drop': delete value[key]; return fc.constant<unknown>(value)
        case 'as-array': return fc.constant<unknown>([value])
        case 'unknown-field': return fc.tuple(fc.oneof(fc.string({ maxLength: 12 }), protoKey), hostileValue).map(([k, v]) => {
          Object.defineProperty(value, k, { value: v, enumerable: true, configurable: true, writable: true })
          return value as unknown
        })
        case 'nested':
          if (depth < 3 && (field.properties || field.items)) {
            return (field.properties ? nearValid(field, depth + 1) : fc.array(nearValid(field.items!, depth + 1), { maxLength: 3 })).map(v => ({ ...value, [key]: v }) as unknown)
          }
          return wrongFor(field).map(v => ({ ...value, [key]: v }) as unknown)
        default: return wrongFor(field).map(v => ({ ...value, [key]: v }) as unknown)
      }
    })
}

/** The route's body schema, with a `tool`+`params` envelope opened up: params from each enabled tool's own input schema. */
function schemaBodies (s: Schema, world: World): fc.Arbitrary<unknown> {
  const props = s.properties ?? {}
  const tools = Object.entries(world.toolInputs)
  if (props.tool && props.params && tools.length) {
    return fc.constantFrom(...tools).chain(([key, input]) => {
      const open: Schema = { ...s, properties: { ...props, tool: { const: key }, params: input } }
      return nearValid(open)
    })
  }
  return nearValid(s)
}

/** JSON-RPC envelopes for the agent endpoint, single and batched. */
function rpcEnvelopes (world: World): fc.Arbitrary<unknown> {
  const names = world.toolNames.length ? world.toolNames : ['none']
  const toolCall = fc.constantFrom(...names).chain(name => fc.record({
    name: fc.oneof({ weight: 5, arbitrary: fc.constant<unknown>(name) }, { weight: 1, arbitrary: hostileValue }),
    arguments: fc.oneof({ weight: 5, arbitrary: world.agentSchemas[name] ? nearValid(world.agentSchemas[name]) : hostileValue }, { weight: 1, arbitrary: hostileValue }),
    _meta: fc.record({ progressToken: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.constant({})) }, { requiredKeys: [] }),
  }, { requiredKeys: ['name'] }))
  const params = fc.oneof(
    toolCall,
    fc.record({ protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01', ''), hostileValue), capabilities: hostileValue, clientInfo: fc.record({ name: fc.string(), version: fc.oneof(fc.string(), oddNumber) }) }, { requiredKeys: [] }),
    fc.record({ name: fc.oneof(fc.string(), hostileValue), uri: fc.oneof(fc.constantFrom('docs://guide', 'docs://nothing', 'file:///etc/passwd', ''), fc.string()), arguments: hostileValue, cursor: fc.oneof(fc.string(), hostileValue), level: fc.string() }, { requiredKeys: [] }),
    hostileValue,
  )
  const envelope = fc.record({
    jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant<unknown>('2.0') }, { weight: 1, arbitrary: fc.constantFrom<unknown>('1.0', 2, null, '') }),
    id: fc.oneof({ weight: 8, arbitrary: fc.oneof(fc.integer(), fc.string({ maxLength: 20 })) }, { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 1.5, {}, [], true) }),
    method: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('initialize', 'ping', 'tools/list', 'tools/call', 'tools/call', 'tools/call', 'prompts/list', 'prompts/get', 'resources/list', 'resources/read', 'resources/templates/list', 'completion/complete', 'logging/setLevel', 'notifications/initialized', 'notifications/cancelled', 'notifications/progress') }, { weight: 1, arbitrary: fc.oneof(fc.string(), hostileValue) }),
    params,
  }, { requiredKeys: ['jsonrpc', 'method'] })
  // A response-shaped message sent to the server, now and then.
  const stray = fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), result: hostileValue, error: hostileValue }, { requiredKeys: ['jsonrpc'] })
  return fc.oneof({ weight: 10, arbitrary: envelope }, { weight: 2, arbitrary: fc.array(envelope, { maxLength: 4 }) }, { weight: 1, arbitrary: stray })
}

type Body = { kind: 'none' } | { kind: 'json', value: unknown } | { kind: 'raw', text: string }

/** Raw JSON text: prototype-pollution keys, deep nesting, numbers JSON.parse turns into Infinity, broken text. */
function rawBodies (base: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  const polluted = fc.tuple(base, fc.constantFrom(
    '"__proto__":{"admin":true,"tier":"pro"}', '"constructor":{"prototype":{"polluted":1}}', '"prototype":{"x":1}',
    '"__proto__":null', '"__proto__":[]', '"constructor":"x"',
  )).map(([value, key]) => {
    const text = JSON.stringify(value) ?? '{}'
    return text.startsWith('{') ? `{${key}${text.length > 2 ? ',' : ''}${text.slice(1)}` : `{${key}}`
  })
  const deep = fc.tuple(fc.integer({ min: 50, max: 5000 }), fc.constantFrom('array', 'object', 'params')).map(([n, how]) =>
    how === 'array' ? '['.repeat(n) + ']'.repeat(n)
      : how === 'object' ? '{"a":'.repeat(n) + '1' + '}'.repeat(n)
        : '{"tool":"counter","params":' + '{"a":'.repeat(n) + '1' + '}'.repeat(n) + '}')
  const numbers = fc.constantFrom('{"limit":1e400}', '{"max_results":-1e400}', '{"tool":"counter","params":{"max_results":1e400}}', '1e400', '-0', '9007199254740993',
    '{"expires_in_days":1.0000000000000002}', '{"offset":-0}')
  const broken = fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('{', '}', '{"a":}', "{'a':1}", 'NaN', 'undefined', '{"a":1,}', '[1,]', '\u0000', '\uFEFF{}', '{"a":"\\ud800"}', '{"a":"\\u0000"}', 'null', '""', 'true', '{"a":1}{"b":2}'))
  return fc.oneof(polluted, deep, numbers, broken)
}

const CONTENT_TYPES = ['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=latin1', 'application/json;;', 'text/plain', 'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/merge-patch+json', 'application/vnd.api+json', '', ';', '*/*', 'application/', 'application/json, text/plain']

// Query strings: schema names and odd ones, repeated, bracketed, empty, badly escaped.
function queries (s: Schema | undefined): fc.Arbitrary<string> {
  const names = [...Object.keys(s?.properties ?? {}), 'limit', 'offset', 'fields', '__proto__', 'constructor', 'x']
  const key = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map(encodeURIComponent) })
  const value = fc.oneof(
    fc.constantFrom('', '-1', '0', '1', '2', '100', '1000', '1001', 'abc', '1e9', '1e400', 'NaN', 'Infinity', '0x10', '1.5', '%20%31', 'true', 'null', '[]', '{}', '%00', '%zz', '%', '%E0%A4%A', 'csv', 'n,label', ',,,', 'n,n,n', '__proto__'),
    fc.integer().map(String),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
    fc.string({ unit: anyCodePoint, maxLength: 10 }).map(v => encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, 'x'))),
  )
  const pair = fc.tuple(key, value, fc.constantFrom('kv', 'kv', 'kv', 'bare', 'brackets', 'index', 'empty')).map(([k, v, form]) =>
    form === 'bare' ? k : form === 'brackets' ? `${k}[]=${v}` : form === 'index' ? `${k}[0]=${v}` : form === 'empty' ? `${k}=` : `${k}=${v}`)
  return fc.tuple(fc.array(pair, { maxLength: 6 }), fc.constantFrom('?', '?', '?', '?', '?', '?', '??', '?&')).map(([pairs, lead]) => (pairs.length || lead === '??' ? lead + pairs.join('&') : ''))
}

type ParamValue = { ref: Ref } | { text: string }
const paramValues: fc.Arbitrary<ParamValue> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Ref>('ownJob', 'otherJob', 'ownToken', 'otherToken', 'post').map(ref => ({ ref })) },
  { weight: 2, arbitrary: fc.constantFrom('csv', 'xlsx', 'json', 'jsonl', 'CSV', 'md', 'exe', '').map(text => ({ text })) },
  { weight: 1, arbitrary: fc.uuid().map(text => ({ text })) },
  { weight: 2, arbitrary: fc.string({ maxLength: 80 }).map(v => ({ text: encodeURIComponent(v) })) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%00', '..', '.', '%2e%2e', '%2F', 'a%2Fb', '%C0%AF', '%ED%A0%80', '%FF', 'é', '%20', "'%20OR%201=1--", 'x'.repeat(65), 'x'.repeat(5000)).map(text => ({ text })) },
)

interface KeyChoice { kind: KeyKind, style: 'x-api-key' | 'bearer' | 'bearer-lower' | 'padded' | 'both' | 'empty' | 'basic', bad: string }
const keyChoices: fc.Arbitrary<KeyChoice> = fc.record({
  kind: fc.constantFrom<KeyKind>('none', 'bad', 'guest', 'personal', 'personal', 'scoped', 'admin', 'other'),
  style: fc.constantFrom<KeyChoice['style']>('x-api-key', 'x-api-key', 'x-api-key', 'bearer', 'bearer-lower', 'padded', 'both', 'empty', 'basic'),
  bad: fc.oneof(
    fc.constantFrom('sk-', 'sk-bad', 'scp-', 'scp-nope', 'pub-', 'pub-nope', ' ', 'Bearer', 'null', 'undefined', `${ADMIN_KEY}x`, ADMIN_KEY.toUpperCase(), ADMIN_KEY.slice(0, -1), `${PUBLIC_TOKEN} `, 'x'.repeat(10_000)),
    headerText(300),
  ),
})

interface Extras { idempotency?: string, blogKey?: string, accept?: string, protocolVersion?: string, origin?: string, host?: string, forwardedFor?: string, contentType: string | null }
/** A header that is usually absent (each odd header alone should not hide the rest of the request). */
const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb })
const extras: fc.Arbitrary<Extras> = fc.record({
  idempotency: sometimes(fc.oneof(fc.constantFrom('', ' ', 'same-key', 'same-key', 'x'.repeat(200), 'x'.repeat(201)), headerText(60))),
  blogKey: sometimes(fc.oneof(fc.constantFrom(BLOG_KEY, '', ' ', `${BLOG_KEY} `), headerText(40))),
  accept: sometimes(fc.oneof(fc.constantFrom('application/json', 'text/event-stream', 'application/json, text/event-stream', 'text/event-stream;q=0', 'text/html', '*/*;q=abc', ''), headerText(60))),
  protocolVersion: sometimes(fc.oneof(fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05', 'garbage', ''), headerText(20))),
  origin: sometimes(fc.oneof(fc.constantFrom('http://localhost', 'https://evil.example', 'null', ''), headerText(40))),
  host: sometimes(fc.constantFrom('localhost', '127.0.0.1:3000', 'evil.example', '[::1]', 'localhost:99999')),
  forwardedFor: sometimes(fc.oneof(fc.constantFrom('1.2.3.4', '::1, 10.0.0.1', 'garbage'), headerText(40))),
  contentType: fc.oneof({ weight: 12, arbitrary: fc.constant<string | null>('application/json') }, { weight: 2, arbitrary: fc.constantFrom<string | null>(...CONTENT_TYPES) }, { weight: 1, arbitrary: fc.constant<string | null>(null) }),
})

export interface FuzzCase { key: KeyChoice, params: ParamValue[], query: string, body: Body, extras: Extras }

export function caseArbitrary (route: FuzzRoute, world: World): fc.Arbitrary<FuzzCase> {
  const paramCount = (route.url.match(/:[A-Za-z0-9_]+/g) ?? []).length
  const mcp = route.method === 'POST' && /\/mcp$/.test(route.url)
  const base = route.schema.body ? schemaBodies(route.schema.body, world) : hostileValue
  const jsonBodies = fc.oneof(
    { weight: route.schema.body ? 5 : 1, arbitrary: base },
    { weight: 3, arbitrary: hostileValue },
    { weight: 1, arbitrary: fc.array(base, { maxLength: 3 }) },
    { weight: mcp ? 12 : 1, arbitrary: rpcEnvelopes(world) },
  )
  const body: fc.Arbitrary<Body> = fc.oneof(
    { weight: route.method === 'GET' ? 6 : 1, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    { weight: 8, arbitrary: jsonBodies.map(value => ({ kind: 'json', value }) as Body) },
    { weight: 3, arbitrary: rawBodies(base).map(text => ({ kind: 'raw', text }) as Body) },
  )
  return fc.record({
    key: keyChoices,
    params: fc.array(paramValues, { minLength: paramCount, maxLength: paramCount }),
    query: queries(route.schema.querystring),
    body,
    extras,
  })
}

function keyHeaders (choice: KeyChoice, world: World): Record<string, string> {
  const key = choice.kind === 'none' ? undefined
    : choice.kind === 'bad' ? choice.bad
      : choice.kind === 'guest' ? PUBLIC_TOKEN
        : choice.kind === 'admin' ? ADMIN_KEY
          : choice.kind === 'other' ? world.keys.other
            : world.keys[choice.kind]
  if (key === undefined) return choice.style === 'empty' ? { 'x-api-key': '' } : {}
  switch (choice.style) {
    case 'bearer': return { authorization: `Bearer ${key}` }
    case 'bearer-lower': return { authorization: `bearer   ${key}  ` }
    case 'padded': return { 'X-API-KEY': `  ${key}\t` }
    case 'both': return { 'x-api-key': choice.bad, authorization: `Bearer ${key}` }
    case 'empty': return { 'x-api-key': '', authorization: `Bearer ${key}` }
    case 'basic': return { authorization: `Basic ${Buffer.from(`${key}:x`).toString('base64')}` }
    default: return { 'x-api-key': key }
  }
}

export function toInject (route: FuzzRoute, c: FuzzCase, world: World): InjectOptions {
  let i = 0
  const path = route.url.replace(/:[A-Za-z0-9_]+/g, () => {
    const v = c.params[i++]!
    return 'ref' in v ? encodeURIComponent(world.refs[v.ref]) : v.text
  })
  const headers: Record<string, string> = { ...keyHeaders(c.key, world) }
  const x = c.extras
  if (x.idempotency !== undefined) headers['idempotency-key'] = x.idempotency
  if (x.blogKey !== undefined) headers['x-blog-key'] = x.blogKey
  if (x.accept !== undefined) headers.accept = x.accept
  if (x.protocolVersion !== undefined) headers['mcp-protocol-version'] = x.protocolVersion
  if (x.origin !== undefined) headers.origin = x.origin
  if (x.host !== undefined) headers.host = x.host
  if (x.forwardedFor !== undefined) headers['x-forwarded-for'] = x.forwardedFor
  let payload: string | undefined
  if (c.body.kind === 'json') payload = JSON.stringify(c.body.value) ?? 'null'
  if (c.body.kind === 'raw') payload = c.body.text
  if (x.contentType !== null && (payload !== undefined || x.contentType !== 'application/json')) headers['content-type'] = x.contentType
  return { method: route.method as InjectOptions['method'], url: path + c.query, headers, ...(payload === undefined ? {} : { payload }) }
}

// ---------------------------------------------------------------------------
// The property.

/** Keys beside `detail` that README.md documents (API → Errors, website e-mail finder). */
const DOCUMENTED_EXTRAS: Record<number, string[]> = { 400: ['did_you_mean'], 408: ['job_id', 'status_url', 'results_url'] }
/** 503 is documented for a missing or failing article model (blog generate): the server's state, not the input. */
const documented503 = (route: FuzzRoute) => /\/generate$/.test(route.url)

// The repository, the test apps' data dirs (build's tempDir prefix) and dependencies; not a bare
// `file://` or `/tmp`, which a client's own text (an MCP resource URI) may carry and see echoed.
const INTERNALS = [process.cwd(), join(tmpdir(), 'ejs-'), 'node_modules']
const STACK = /\n\s+at [^\n]*[(:]\d*|at (async )?[A-Za-z.<>]+ \([^)]*:\d+:\d+\)/

const isRpcError = (v: unknown) => typeof v === 'object' && v !== null && (v as { jsonrpc?: unknown }).jsonrpc === '2.0' && typeof (v as { error?: { message?: unknown } }).error?.message === 'string'

/** Why this answer breaks the property, or null. */
export function problemWith (route: FuzzRoute, res: LightMyRequestResponse): string | null {
  const status = res.statusCode
  if (status >= 500 && !(status === 503 && documented503(route))) return `answered ${status}`
  const text = res.body
  if (STACK.test(text)) return 'the body carries a stack trace'
  const leak = INTERNALS.find(p => text.includes(p))
  if (leak) return `the body names an internal path (${leak})`
  // JSON-RPC's 500: the agent endpoint answers a client's mistake with -32602/-32600, never -32603.
  if (/"code":\s*-32603\b/.test(text)) return 'a JSON-RPC internal error (-32603)'
  if (status < 400) return null
  // A page for browsers answers an Accept: text/html request's error as a page, the detail as its lead (core/features/web/README.md);
  // so does the not-found answer to a browser outside the API's paths (a fuzzed URL that matches no route, e.g. an empty parameter).
  const apiPath = /^\/(?:api|mcp)(?:[/?.]|$)|^\/openapi\.json/.test(route.url)
  if ((route.webPage || (status === 404 && !apiPath)) && /^text\/html/.test(String(res.headers['content-type'] ?? ''))) return /<h1>[^<]+<\/h1>\s*<p class="lead">[^<]+<\/p>/.test(text) ? null : 'an HTML error page without its title and detail'
  if (!String(res.headers['content-type'] ?? '').includes('json')) return `an error without a JSON body (${res.headers['content-type']})`
  let parsed: unknown
  try { parsed = JSON.parse(text) } catch { return 'an error body that does not parse' }
  if (route.url.endsWith('/mcp') && (isRpcError(parsed) || (Array.isArray(parsed) && parsed.every(isRpcError)))) return null
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'an error body that is not a JSON object'
  const detail = (parsed as { detail?: unknown }).detail
  if (typeof detail !== 'string' || detail.trim() === '') return 'an error without a non-empty detail'
  const allowed = DOCUMENTED_EXTRAS[status] ?? []
  const extra = Object.keys(parsed).filter(k => k !== 'detail' && !allowed.includes(k))
  if (extra.length) return `undocumented keys beside detail: ${extra.join(', ')}`
  return null
}

const FUZZ_ENV = {
  TOOLS_CONFIG: FUZZ_TOOLS_CONFIG,
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_PRO_PER_MINUTE: '1000000',
  ALLOW_PRIVATE_TARGETS: '0',
  // Starts that succeed stay cheap: short jobs, short waits, no retried webhooks.
  JOB_TIMEOUT_SECONDS: '2',
  JOB_CONCURRENCY: '8',
  SYNC_WAIT_SECONDS: '1',
  WEBHOOK_RETRY_BASE_MS: '1',
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\]|::ffff:127(\.\d{1,3}){3})$/i

/**
 * Refuses, and records, every TCP connection this process tries to open off
 * the machine while the fuzz runs (a webhook or tool start that slipped
 * through would show here): the fuzz asserts the list stays empty.
 */
function refuseOutbound (t: Tap): string[] {
  const attempts: string[] = []
  const original = net.Socket.prototype.connect
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    // net.connect hands over its normalised [options, callback] pair as one array.
    const first = (Array.isArray(args[0]) ? args[0][0] : args[0]) as { host?: string, port?: number, path?: string } | number | string
    const target = typeof first === 'object' && first !== null ? first : { port: Number(first), host: typeof args[1] === 'string' ? args[1] : undefined }
    const host = target.host ?? 'localhost'
    if (!target.path && !LOOPBACK.test(host)) {
      attempts.push(`${host}:${target.port}`)
      process.nextTick(() => this.destroy(new Error('the route fuzz refuses connections off the machine')))
      return this
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args)
  } as typeof original
  t.teardown(() => { net.Socket.prototype.connect = original })
  return attempts
}

export function fuzzSeed (): number {
  const fromEnv = process.env.FUZZ_SEED
  return fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : Math.floor(Math.random() * 2 ** 31)
}

async function fuzzRoute (t: Tap, app: FastifyInstance, world: World, route: FuzzRoute, seed: number) {
  const statuses: Record<string, number> = {}
  const property = fc.asyncProperty(caseArbitrary(route, world), async (c) => {
    const request = toInject(route, c, world)
    const res = await app.inject(request)
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1
    await followChanges(app, world, { key: c.key.kind }, res)
    const problem = problemWith(route, res)
    if (problem) {
      const payload = typeof request.payload === 'string' ? request.payload.slice(0, 300) : ''
      throw new Error(`${request.method} ${String(request.url).slice(0, 300)} ${payload} → ${res.statusCode}: ${problem}\n${res.body.slice(0, 500)}`)
    }
  })
  // No shrinking: the app is stateful, so a replayed case may not fail again; the first failure is reported as is.
  const details = await fc.check(property, { numRuns: RUNS_PER_ROUTE, seed, endOnFailure: true })
  if (!details.failed) {
    t.pass(`${route.method} ${route.url}: ${details.numRuns} cases, statuses ${JSON.stringify(statuses)}`)
    return
  }
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
  t.fail(`${route.method} ${route.url}: ${cause.slice(0, 2000)} (replay: FUZZ_SEED=${details.seed}, case path ${details.counterexamplePath})`)
}

/** What no request may have done: reach off the machine, or pollute Object.prototype. */
async function afterwards (t: Tap, outbound: string[]) {
  t.same(outbound, [], 'no connection left the machine (webhooks and tools stayed local)')
  const probe = {} as Record<string, unknown>
  t.ok(probe.admin === undefined && probe.polluted === undefined && probe.tier === undefined && probe.x === undefined, 'Object.prototype is untouched')
}

/**
 * Fuzzes shard `shard` of `shards` of the app's routes (sorted, dealt round-robin).
 * Shard 0 also fuzzes the read endpoints that plugins add (e.g. GET /api/search/status),
 * on an app with the real tools config: only GET routes, which start no job.
 */
export async function fuzzShard (t: Tap, shard: number, shards: number): Promise<void> {
  const seed = fuzzSeed()
  t.comment(`route fuzz seed ${seed} (rerun with FUZZ_SEED=${seed})`)
  const outbound = refuseOutbound(t)
  const recorder = routeRecorder()
  const app = await build(t, { env: FUZZ_ENV, onRoute: recorder.onRoute })
  const world = await prepareWorld(app)
  const sorted = [...recorder.routes].sort((a, b) => `${a.url} ${a.method}`.localeCompare(`${b.url} ${b.method}`))
  t.ok(sorted.length > 20, `${sorted.length} routes in the app`)
  // FUZZ_ROUTE=<regex> narrows the run to matching routes (to replay one failure).
  const only = process.env.FUZZ_ROUTE ? new RegExp(process.env.FUZZ_ROUTE) : undefined
  const mine = sorted.filter((r, i) => i % shards === shard && (!only || only.test(`${r.method} ${r.url}`)))
  for (const route of mine) await t.test(`${route.method} ${route.url}`, async t => fuzzRoute(t, app, world, route, seed))
  await t.test('afterwards', async t => afterwards(t, outbound))

  if (shard !== 0) return
  const known = new Set(sorted.map(r => `${r.method} ${r.url}`))
  const real = routeRecorder()
  const full = await build(t, { env: { ...FUZZ_ENV, TOOLS_CONFIG: resolve('tools.config.json') }, onRoute: real.onRoute })
  const added = real.routes.filter(r => r.method === 'GET' && !known.has(`${r.method} ${r.url}`) && (!only || only.test(`${r.method} ${r.url}`)))
  if (only && !added.length) return
  t.ok(added.length >= 1, `${added.length} read endpoints declared by plugins`)
  const fullWorld = await prepareWorld(full, false)
  for (const route of added) await t.test(`${route.method} ${route.url} (plugin endpoint)`, async t => fuzzRoute(t, full, fullWorld, route, seed))
  await t.test('afterwards (plugin endpoints)', async t => afterwards(t, outbound))
}
