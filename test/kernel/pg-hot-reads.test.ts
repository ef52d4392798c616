// The hot reads on PostgreSQL (core/db/hot-reads.ts, pgHotReads): named prepared
// statements through `pg` on the pool Prisma's adapter shares. They must give
// callers the values Prisma's raw queries gave (TIMESTAMP(3) as a UTC Date,
// count(*) as a bigint, booleans, integers), and never keep an answer: a write
// of another connection is seen by the very next read, a revoked key fails on
// the very next request. The pool is the app's own: a connection the server
// ends while it is idle, even during the close, is no crash.
import t from 'tap'
import { build, migratedDatabaseUrl, signup, tempDir, testDatabaseKind } from '../helpers/build.ts'
import { sha256Hex } from '../../core/crypto.ts'
import { openDatabase } from '../../core/db/database.ts'

const pgOnly = { skip: testDatabaseKind() !== 'postgresql' ? 'PostgreSQL only (TEST_DATABASE_URL)' : false }

t.test('the hot reads give the values Prisma\'s raw query gives', pgOnly, async t => {
  const app = await build(t)
  const { db, database } = app.services
  const hot = database.hot
  await db.$executeRawUnsafe('CREATE TABLE hot_reads_probe (id INTEGER PRIMARY KEY, at TIMESTAMP(3), at_tz TIMESTAMPTZ(3), flag BOOLEAN, n INTEGER, label TEXT)')
  await db.$executeRawUnsafe("INSERT INTO hot_reads_probe VALUES (1, '2026-11-26 23:59:58.123', '2026-11-26 23:59:58.123+00', true, 7, 'a'), (2, NULL, NULL, false, 0, NULL)")
  const sql = 'SELECT id, at, at_tz, flag, n, label, (SELECT count(*) FROM hot_reads_probe WHERE id >= ?) AS c FROM hot_reads_probe WHERE id = ?'
  for (const id of [1, 2]) {
    const viaPrisma = await db.$queryRawUnsafe<Array<Record<string, unknown>>>(sql.replace('?', '$1').replace('?', '$2'), 1, id)
    const viaHot = await hot.select<Record<string, unknown>>(sql, [1, id])
    t.same(viaHot, viaPrisma, `row ${id}: the same values`)
    // t.same compares loosely: check the kinds too.
    for (const [column, value] of Object.entries(viaPrisma[0]!)) {
      const mine = viaHot[0]![column]
      t.equal(typeof mine, typeof value, `row ${id}, ${column}: ${typeof value}`)
      if (value instanceof Date) t.equal((mine as Date).getTime(), value.getTime(), `row ${id}, ${column}: the same instant`)
    }
  }
  const [row] = await hot.select<{ at: Date, c: bigint }>(sql, [1, 1])
  t.equal(row!.at.toISOString(), '2026-11-26T23:59:58.123Z', 'TIMESTAMP(3) is read as UTC, whatever the process time zone')
  t.equal(row!.c, 2n, 'count(*) is a bigint')
})

t.test('a write of another connection is seen by the very next read', pgOnly, async t => {
  const app = await build(t)
  const { db, database } = app.services
  await db.$executeRawUnsafe('CREATE TABLE hot_reads_probe (id INTEGER PRIMARY KEY, v TEXT)')
  await db.$executeRawUnsafe("INSERT INTO hot_reads_probe VALUES (1, 'a')")
  const sql = 'SELECT v FROM hot_reads_probe WHERE id = ?'
  const rowsOf = (rows: unknown[]) => rows
  t.same(await database.hot.selectUnchanged(sql, [1], rowsOf), [{ v: 'a' }])
  t.same(await database.hot.selectUnchanged(sql, [1], rowsOf), [{ v: 'a' }], 'prepared once, executed again')
  // Another client, outside the pool (another process would be the same).
  const { default: pg } = await import('pg')
  const other = new pg.Client({ connectionString: app.services.config.databaseUrl })
  await other.connect()
  t.teardown(() => other.end())
  await other.query("UPDATE hot_reads_probe SET v = 'b' WHERE id = 1")
  t.same(await database.hot.selectUnchanged(sql, [1], rowsOf), [{ v: 'b' }], 'seen at once')
})

t.test('a key revoked by another connection fails on the very next request', pgOnly, async t => {
  const app = await build(t)
  const u = await signup(app)
  const me = () => app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': u.apiKey } })
  t.equal((await me()).statusCode, 200)
  t.equal((await me()).statusCode, 200)
  const { default: pg } = await import('pg')
  const other = new pg.Client({ connectionString: app.services.config.databaseUrl })
  await other.connect()
  t.teardown(() => other.end())
  const changed = await other.query('UPDATE personal_keys SET revoked_at = now() WHERE digest = $1', [sha256Hex(u.apiKey)])
  t.equal(changed.rowCount, 1, 'the key row was revoked out of band')
  const after = await me()
  t.equal(after.statusCode, 401, 'refused at once')
  t.ok(after.json().detail, '{detail}')
})

t.test('a pooled connection ended by the server, while open or closing, is dropped and replaced, never thrown', pgOnly, async t => {
  const databaseUrl = await migratedDatabaseUrl(t, tempDir(t))
  const database = await openDatabase({ databaseProvider: 'postgresql', databaseUrl, sqlitePath: null })
  const { default: pg } = await import('pg')
  const admin = new pg.Client({ connectionString: databaseUrl })
  await admin.connect()
  t.teardown(() => admin.end())
  const endOthers = async () => {
    const ended = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')
    // The error reaches the pool's idle clients a moment later.
    await new Promise(resolve => setTimeout(resolve, 200))
    return ended.rowCount ?? 0
  }
  const sql = 'SELECT count(*) AS n FROM accounts WHERE id <> ?'
  await database.hot.select(sql, ['x'])
  t.ok(await endOthers() >= 1, 'the pool\'s idle connection was ended by the server')
  t.same(await database.hot.select(sql, ['x']), [{ n: 0n }], 'the next read opens another connection')
  // Prisma's adapter stops listening at its disconnect; the pool is ended only after it.
  await database.hot.select(sql, ['x'])
  await database.prisma.$disconnect()
  await endOthers()
  await database.close()
  t.pass('no unhandled error event')
})
