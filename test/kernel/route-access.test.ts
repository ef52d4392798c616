// Every route the app registers (fastify's own route table, seen through
// onRoute, so a new route is covered without being listed here) declares an
// access class and its answers, and behaves as its class says for each kind
// of key: refused kinds get exactly 401 or 403 `{detail}`, admitted kinds never
// do (a handler may refuse more, never less: the few that do are listed). The
// README's Authentication table is checked against the same classes and routes.
import { readFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import t from 'tap'
import type { RouteOptions } from 'fastify'
import { build, signup, ADMIN_KEY, PUBLIC_TOKEN, withKey } from '../helpers/build.ts'
import { openSocket } from '../helpers/socket.ts'
import { ROUTE_AUTH_CLASSES, type RouteAuth } from '../../core/fastify-types.ts'
import { isDetail, mintToken } from './_kernel.ts'

type Kind = 'none' | 'bad' | 'guest' | 'personal' | 'scoped' | 'admin'
const KINDS: Kind[] = ['personal', 'scoped', 'guest', 'admin', 'bad', 'none']

/** What each class answers each kind of key: 'yes' (let through), 401 or 403. */
export const CLASS_ACCESS: Record<RouteAuth, Record<Kind, 'yes' | 401 | 403>> = {
  none: { personal: 'yes', scoped: 'yes', guest: 'yes', admin: 'yes', bad: 'yes', none: 'yes' },
  key: { personal: 'yes', scoped: 'yes', guest: 'yes', admin: 'yes', bad: 401, none: 401 },
  user: { personal: 'yes', scoped: 'yes', guest: 'yes', admin: 403, bad: 401, none: 401 },
  account: { personal: 'yes', scoped: 'yes', guest: 403, admin: 403, bad: 401, none: 401 },
  personal: { personal: 'yes', scoped: 403, guest: 403, admin: 403, bad: 401, none: 401 },
  admin: { personal: 403, scoped: 403, guest: 403, admin: 'yes', bad: 401, none: 401 },
}

/** Where a handler refuses more than its class, HEAD included (README: blog reads refuse a bad key, so a mistyped admin key does not silently hide drafts). */
const NARROWER: Record<string, Partial<Record<Kind, 401 | 403>>> = {
  'GET /api/blog/list': { bad: 401 },
  'GET /api/blog/:slug': { bad: 401 },
  'GET /api/blog/images/:name': { bad: 401 },
}

type Route = RouteOptions & { websocket?: boolean, wsHandler?: unknown }

/** A path with its parameters filled: ids nobody has, so an admitted caller reads 404 or 400, never 401/403. */
const concrete = (url: string) => url.replace(/:fmt\b/g, 'csv').replace(/:([A-Za-z0-9_]+)/g, () => randomUUID())

// ------------------------------------------------------------ README table

interface AuthRow { auth: string, cells: Record<Kind, string>, endpoints: string[] }

/** The table under `### Authentication`: class in column 1, one column per key kind, the endpoints last. */
function readmeAuthTable (markdown: string): AuthRow[] {
  const section = markdown.split(/^### Authentication$/m)[1]?.split(/^#{2,3} /m)[0]
  if (!section) throw new Error('README.md has no "### Authentication" section')
  const lines = section.split('\n').filter(line => line.startsWith('|'))
  const header = lines[0]!.split('|').slice(1, -1).map(c => c.trim())
  const column = (kind: Kind) => header.findIndex(h => h.startsWith(({ personal: 'personal', scoped: 'scoped', guest: 'guest', admin: 'admin', bad: 'bad', none: 'none' })[kind]))
  return lines.slice(2).map(line => {
    const cells = line.split('|').slice(1, -1).map(c => c.trim())
    return {
      auth: /`([a-z]+)`/.exec(cells[0]!)?.[1] ?? '',
      cells: Object.fromEntries(KINDS.map(kind => [kind, cells[column(kind)] ?? ''])) as Record<Kind, string>,
      endpoints: [...cells[cells.length - 1]!.matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) [^`]+)`/g)].map(m => m[1]!).sort(),
    }
  })
}

/** A README cell says "yes…", "401…" or "403…" first; the rest is explanation. */
const cellAccess = (cell: string) => (/^yes\b/i.test(cell) ? 'yes' : /^(401|403)\b/.exec(cell)?.[1] ? Number(/^(401|403)/.exec(cell)![1]) : cell)

// The tests of the route table share one app, the parent test's (a top-level app would be shared with
// the other files of a test group, test/groups/).
t.test('every route\'s access, on one app', async t => {
  const recorded: Route[] = []
  const app = await build(t, { onRoute: route => { recorded.push(route as Route) } })
  const routes = recorded.flatMap(route => (Array.isArray(route.method) ? route.method : [route.method]).map(method => ({ method, route })))

  t.test('the route table was read', async t => {
    t.ok(routes.length >= 40, `${routes.length} routes`)
    t.ok(routes.some(r => r.route.url === '/api/search/status'), 'plugin endpoints included')
    t.ok(routes.some(r => r.route.url === '/api/scrape'), 'plugin aliases included')
  })

  t.test('every route declares an access class and its answers', async t => {
    for (const { method, route } of routes) {
      const name = `${method} ${route.url}`
      t.ok(ROUTE_AUTH_CLASSES.includes(route.config?.auth as RouteAuth), `${name}: declares an access class (${route.config?.auth})`)
      const isSocket = Boolean(route.websocket || route.wsHandler)
      const declared = Object.keys(route.config?.responses ?? (route.schema as { response?: object } | undefined)?.response ?? {})
      t.ok(isSocket || declared.length > 0, `${name}: declares its answers${isSocket ? ' (a WebSocket: 101)' : `: ${declared.join(', ')}`}`)
      if (route.config?.authAfterUpgrade) t.ok(isSocket, `${name}: only a WebSocket enforces its class after the upgrade`)
    }
  })

  t.test('each route answers each kind of key as its class says', async t => {
    const owner = await signup(app)
    const scoped = await mintToken(app, owner.apiKey, { tools: app.services.catalog.keys() })
    const fixedKeys = { scoped: scoped.token, guest: PUBLIC_TOKEN, admin: ADMIN_KEY, bad: 'sk-not-a-real-key', none: undefined }
    // The personal key's account is as good as fresh until a call may have changed it: a write
    // answered below 400 (a rotated key, a claimed Pro) retires it and the next one signs up
    // anew. Reads and refusals leave it as it was (a signup per route was a scrypt hash each,
    // most of this test's CPU).
    let personal: string | undefined
    for (const { method, route } of routes) {
      const name = `${method} ${route.url}`
      const auth = route.config!.auth!
      if (route.config?.authAfterUpgrade) continue // the WebSocket test below
      for (const kind of KINDS) {
        if (kind === 'personal') personal ??= (await signup(app)).apiKey
        const key = kind === 'personal' ? personal : fixedKeys[kind]
        const res = await app.inject({ method: method as 'GET', url: concrete(route.url), headers: withKey(key) })
        if (kind === 'personal' && method !== 'GET' && method !== 'HEAD' && res.statusCode < 400) personal = undefined
        const expected = NARROWER[`${method === 'HEAD' ? 'GET' : method} ${route.url}`]?.[kind] ?? CLASS_ACCESS[auth][kind]
        if (expected === 'yes') {
          t.notOk([401, 403].includes(res.statusCode), `${name} (${auth}): ${kind} is let through (${res.statusCode})`)
          continue
        }
        t.equal(res.statusCode, expected, `${name} (${auth}): ${kind} → ${expected}`)
        if (method !== 'HEAD') t.ok(isDetail(res.body), `${name}: ${kind} gets {detail}`)
        if (expected === 401 && route.config?.authChallenge) t.equal(res.headers['www-authenticate'], route.config.authChallenge.wwwAuthenticate, `${name}: the declared challenge`)
      }
    }
  })

  t.test('a route that accepts X-Blog-Key takes the right one instead of the admin key, and refuses a wrong one', async t => {
    const writes = routes.filter(r => r.route.config?.acceptsBlogKey)
    t.ok(writes.length >= 2, 'blog post and put')
    for (const { method, route } of writes) {
      const good = await app.inject({ method: method as 'POST', url: concrete(route.url), headers: { 'x-blog-key': 'blog-test-key-0123456789' } })
      t.notOk([401, 403].includes(good.statusCode), `${method} ${route.url}: the blog key is let through (${good.statusCode})`)
      const wrong = await app.inject({ method: method as 'POST', url: concrete(route.url), headers: { 'x-blog-key': 'not-the-blog-key-0000' } })
      t.equal(wrong.statusCode, 401, `${method} ${route.url}: a wrong blog key is 401`)
    }
  })

  t.test('a WebSocket route enforces its class after the upgrade: close 4401', async t => {
    const sockets = routes.filter(r => r.route.config?.authAfterUpgrade && r.method === 'GET')
    t.ok(sockets.length >= 1)
    for (const { route } of sockets) {
      const access = CLASS_ACCESS[route.config!.auth!]
      for (const kind of ['guest', 'admin', 'bad', 'personal'] as const) {
        const key = kind === 'personal' ? (await signup(app)).apiKey : { guest: PUBLIC_TOKEN, admin: ADMIN_KEY, bad: 'sk-not-a-real-key' }[kind]
        const code = await (await openSocket(app, concrete(route.url), { headers: { 'x-api-key': key } })).closed
        if (access[kind] === 'yes') t.not(code, 4401, `${route.url}: ${kind} passes the class (${code})`)
        else t.equal(code, 4401, `${route.url}: ${kind} → close 4401`)
      }
    }
  })

  t.test("README's Authentication table: one row per class, the class's answers, exactly its routes", async t => {
    const table = readmeAuthTable(readFileSync('README.md', 'utf8'))
    t.same(table.map(r => r.auth).sort(), [...ROUTE_AUTH_CLASSES].sort(), 'one row per access class')
    for (const row of table) {
      const auth = row.auth as RouteAuth
      for (const kind of KINDS) t.equal(cellAccess(row.cells[kind]), CLASS_ACCESS[auth]?.[kind], `${auth}: ${kind} reads "${row.cells[kind]}"`)
      const declared = routes.filter(r => r.method !== 'HEAD' && r.route.config?.auth === auth).map(r => `${r.method} ${r.route.url}`).sort()
      t.same(row.endpoints, declared, `${auth}: the README lists exactly the routes that declare it`)
    }
  })
})

t.test('the README table parser', async t => {
  const rows = readmeAuthTable('### Authentication\n\n| class | personal `sk-` | scoped `scp-` | guest `pub-` | admin key | bad key | none | endpoints |\n|---|---|---|---|---|---|---|---|\n| `key` | yes | yes | yes | yes | 401 | 401 | `GET /a`, `POST /b/:id` |\n\n## Next\n')
  t.same(rows, [{ auth: 'key', cells: { personal: 'yes', scoped: 'yes', guest: 'yes', admin: 'yes', bad: '401', none: '401' }, endpoints: ['GET /a', 'POST /b/:id'] }])
  t.equal(cellAccess('403 "sign up"'), 403)
  t.equal(cellAccess('yes (its tools only)'), 'yes')
})
