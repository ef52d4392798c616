import t from 'tap'
import { build, freshDatabaseUrl, signup, tempDir, testDatabaseKind } from '../helpers/build.ts'
import { manualClock } from '../../core/clock.ts'
import { call, me, mintToken } from './_kernel.ts'
import { migrateSqlite } from '../../core/db/migrator.ts'
import { join } from 'node:path'

t.test('a restart on the same DATA_DIR and DATABASE_URL loses no account, key, token or counter', async t => {
  const dataDir = tempDir(t)
  const databaseUrl = await freshDatabaseUrl(t, dataDir)
  const clock = manualClock('2026-09-09T09:00:00Z')
  // No SECRET_KEY: the generated one in DATA_DIR must be found again, or login could not give the key back.
  const env = { SECRET_KEY: undefined }
  const first = await build(t, { dataDir, databaseUrl, clock, env })
  const a = await signup(first)
  const b = await signup(first)
  await call(first, 'POST', '/api/auth/claim-pro', b.apiKey)
  const rotated = (await call(first, 'POST', '/api/auth/regenerate-key', a.apiKey)).json().api_key as string
  const tok = await mintToken(first, rotated, { name: 'kept' })
  const revoked = await mintToken(first, rotated, { name: 'gone' })
  await call(first, 'DELETE', `/api/auth/tokens/${revoked.id}`, rotated)
  for (let i = 0; i < 3; i++) await first.services.quotas.charge(a.id, 'registered')
  await first.services.quotas.addRecords(a.id, 9)
  const before = (await me(first, rotated)).json()
  await first.close()

  const second = await build(t, { dataDir, databaseUrl, clock, env })
  const after = await me(second, rotated)
  t.equal(after.statusCode, 200, 'the rotated key works after the restart')
  t.same(after.json(), before, 'the same profile, limits and usage')
  t.equal((await me(second, a.apiKey)).statusCode, 401, 'the old key stays dead')
  t.equal((await me(second, tok.token)).statusCode, 200, 'the scoped token works')
  t.equal((await me(second, revoked.token)).statusCode, 401, 'the revoked token stays revoked')
  const login = await second.inject({ method: 'POST', url: '/api/auth/login', payload: { email: a.email, password: a.password } })
  t.equal(login.json().api_key, rotated, 'login decrypts the key with the kept secret')
  const bMe = (await me(second, b.apiKey)).json()
  t.equal(bMe.tier, 'pro', 'Pro survives')
  t.equal((await call(second, 'POST', '/api/auth/claim-pro', b.apiKey)).statusCode, 403, 'and stays claimed')
  t.same((await second.services.quotas.usage(a.id)), { calls_today: 3, calls_this_month: 3, records_today: 9, jobs_running: 0, jobs_queued: 0 })
  const c = await signup(second)
  t.equal((await second.services.db.account.findUniqueOrThrow({ where: { id: c.id } })).signupNumber, 3, 'the signup sequence continues')
  t.equal(await second.services.db.account.count(), 3)
})

t.test('the database is migrated at start, once', async t => {
  const dataDir = tempDir(t)
  const databaseUrl = await freshDatabaseUrl(t, dataDir)
  const logLines: string[] = []
  const first = await build(t, { dataDir, databaseUrl, logLines })
  t.equal((await first.inject({ method: 'GET', url: '/api/health' })).json().database, 'ok')
  t.match(logLines.join(''), /database migrated/, 'the first start applied migrations')
  t.ok(first.services.database.applied.length >= 1)
  const rows = await first.services.db.$queryRawUnsafe<Array<{ migration_name: string }>>('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL')
  t.equal(rows.length, first.services.database.applied.length, 'recorded in _prisma_migrations')
  await first.close()
  const second = await build(t, { dataDir, databaseUrl })
  t.same(second.services.database.applied, [], 'nothing to apply on the second start')
  t.ok(await signup(second), 'and the schema works')
})

t.test('SQLite: migrating an up-to-date file applies nothing', { skip: testDatabaseKind() !== 'sqlite' && 'SQLite only' }, async t => {
  const dir = tempDir(t)
  const file = join(dir, 'x.db')
  t.ok(migrateSqlite(file).length >= 1)
  t.same(migrateSqlite(file), [])
})
