// The key kinds against each endpoint class, as a table: add a row per
// endpoint (admin-only and tool-run endpoints join when they exist).
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, signup, ADMIN_KEY, PUBLIC_TOKEN } from '../helpers/build.ts'
import { isDetail, mintToken } from './_kernel.ts'

type Kind = 'personal' | 'scoped' | 'guest' | 'admin' | 'bad' | 'none'
const KINDS: Kind[] = ['personal', 'scoped', 'guest', 'admin', 'bad', 'none']

interface Ctx { app: FastifyInstance, keys: Record<Kind, string | undefined>, tokenId: string, email: string }
interface Row {
  name: string
  method: 'GET' | 'POST' | 'DELETE'
  url: (c: Ctx) => string
  body?: (c: Ctx) => unknown
  expect: Record<Kind, number>
  /** Extra checks on a 200 (e.g. the guest body of me). */
  check?: (t: Tap, kind: Kind, body: any, c: Ctx) => void
}
type Tap = Test

// Endpoint classes.
const PUBLIC = { personal: 200, scoped: 200, guest: 200, admin: 200, bad: 200, none: 200 }
const READ = { personal: 200, scoped: 200, guest: 200, admin: 403, bad: 401, none: 401 }
const ACCOUNT = { personal: 200, scoped: 403, guest: 403, admin: 403, bad: 401, none: 401 }

let n = 0
const ROWS: Row[] = [
  { name: 'GET /api/health', method: 'GET', url: () => '/api/health', expect: PUBLIC },
  { name: 'POST /api/auth/signup', method: 'POST', url: () => '/api/auth/signup', body: () => ({ email: `kk${++n}@example.com`, password: 'password123' }), expect: PUBLIC },
  { name: 'POST /api/auth/login', method: 'POST', url: () => '/api/auth/login', body: c => ({ email: c.email, password: 'owner password' }), expect: PUBLIC },
  {
    name: 'GET /api/auth/me',
    method: 'GET',
    url: () => '/api/auth/me',
    expect: READ,
    check: (t, kind, body, c) => {
      if (kind === 'guest') t.match(body, { user: null, tier: 'guest', usage: null, limits: { calls_per_day: 5 } }, 'guest body')
      else t.match(body, { user: { email: c.email }, tier: 'registered', usage: { calls_today: 0 } }, `${kind} gets the account`)
    },
  },
  { name: 'POST /api/auth/update', method: 'POST', url: () => '/api/auth/update', body: () => ({ name: 'Owner' }), expect: ACCOUNT },
  { name: 'POST /api/auth/regenerate-key', method: 'POST', url: () => '/api/auth/regenerate-key', expect: ACCOUNT },
  { name: 'POST /api/auth/claim-pro', method: 'POST', url: () => '/api/auth/claim-pro', expect: ACCOUNT },
  { name: 'POST /api/auth/tokens', method: 'POST', url: () => '/api/auth/tokens', body: () => ({ name: 'x', tools: ['maps'] }), expect: { ...ACCOUNT, personal: 201 } },
  { name: 'GET /api/auth/tokens', method: 'GET', url: () => '/api/auth/tokens', expect: ACCOUNT },
  { name: 'DELETE /api/auth/tokens/:id', method: 'DELETE', url: c => `/api/auth/tokens/${c.tokenId}`, expect: ACCOUNT },
]

// One app for every row: each (row, kind) pair acts on an account of its own, so no row sees another's
// changes. The claim-pro row must stay within the first 100 signups (42 come before it: six a row, six more in the signup row).
// The app is the parent test's, not a root hook's, so the file can share a test process (test/groups/).
t.test('each endpoint class against each kind of key, on one app', async t => {
  const app = await build(t)
  for (const [rowIndex, row] of ROWS.entries()) {
    t.test(row.name, async t => {
      for (const kind of KINDS) {
        // A fresh account per kind: a success (rotation, claim, revoke) must not change what the next kind sees.
        const owner = await signup(app, { email: `owner-${rowIndex}-${kind}@example.com`, password: 'owner password' })
        const scoped = await mintToken(app, owner.apiKey, { tools: ['maps'] })
        const victim = await mintToken(app, owner.apiKey, { name: 'to revoke' })
        const c: Ctx = {
          app,
          email: owner.email,
          tokenId: victim.id,
          keys: { personal: owner.apiKey, scoped: scoped.token, guest: PUBLIC_TOKEN, admin: ADMIN_KEY, bad: 'sk-not-a-real-key', none: undefined },
        }
        const key = c.keys[kind]
        const body = row.body?.(c)
        const res = await app.inject({
          method: row.method,
          url: row.url(c),
          headers: key === undefined ? {} : { 'x-api-key': key },
          ...(body === undefined ? {} : { payload: body as object }),
        })
        t.equal(res.statusCode, row.expect[kind], `${kind} → ${row.expect[kind]}`)
        if (res.statusCode >= 400) t.ok(isDetail(res.body), `${kind}: {detail}`)
        else if (row.check) row.check(t, kind, res.json(), c)
      }
    })
  }
})
