// HotReads.selectUnchanged (issue 17): the key lookup, `me`'s usage and the job
// status may be answered from memory, but only until anything is committed to
// the database, by this process or another: a revoked or rotated key fails on
// the very next request, a status is never staler than a fresh read.
import t from 'tap'
import Database from 'better-sqlite3'
import { build, signup, testDatabaseKind } from '../helpers/build.ts'
import { sqliteHotReads } from '../../core/db/hot-reads.ts'
import { sha256Hex } from '../../core/crypto.ts'

// SQLite only: PostgreSQL has no commit counter, so there selectUnchanged always reads (nothing to test).
const sqliteOnly = { skip: testDatabaseKind() !== 'sqlite' ? 'selectUnchanged keeps answers on SQLite only' : false }

const me = (app: Awaited<ReturnType<typeof build>>, key: string) =>
  app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': key } })

t.test('a key revoked by another connection fails on the very next request', sqliteOnly, async t => {
  const app = await build(t)
  const u = await signup(app)
  // Twice: the second answer may come from memory.
  t.equal((await me(app, u.apiKey)).statusCode, 200)
  t.equal((await me(app, u.apiKey)).statusCode, 200)
  // Another connection (another process sharing the file would be the same for SQLite).
  const other = new Database(app.services.config.sqlitePath!)
  t.teardown(() => other.close())
  const changed = other.prepare('UPDATE personal_keys SET revoked_at = ? WHERE digest = ?').run(Date.now(), sha256Hex(u.apiKey))
  t.equal(changed.changes, 1, 'the key row was revoked out of band')
  const after = await me(app, u.apiKey)
  t.equal(after.statusCode, 401, 'refused at once')
  t.ok(after.json().detail, '{detail}')
})

t.test('a rotated key fails on the very next request, the new one works', sqliteOnly, async t => {
  const app = await build(t)
  const u = await signup(app)
  t.equal((await me(app, u.apiKey)).statusCode, 200)
  t.equal((await me(app, u.apiKey)).statusCode, 200)
  const rotated = await app.inject({ method: 'POST', url: '/api/auth/regenerate-key', headers: { 'x-api-key': u.apiKey } })
  t.equal(rotated.statusCode, 200)
  t.equal((await me(app, u.apiKey)).statusCode, 401, 'old key refused')
  t.equal((await me(app, rotated.json().api_key)).statusCode, 200, 'new key accepted')
})

t.test('selectUnchanged keeps rows only until the next commit', sqliteOnly, async t => {
  const app = await build(t)
  const file = app.services.config.sqlitePath!
  const reads = sqliteHotReads(file)
  t.teardown(() => reads.close())
  const writer = new Database(file)
  t.teardown(() => writer.close())
  writer.exec('CREATE TABLE hot_reads_probe (id INTEGER PRIMARY KEY, v TEXT)')
  writer.prepare('INSERT INTO hot_reads_probe (id, v) VALUES (1, ?)').run('a')
  const sql = 'SELECT v FROM hot_reads_probe WHERE id = ?'
  // What is kept is the conversion of the rows, made once per kept answer.
  let conversions = 0
  const valueOf = (rows: Array<{ v: string }>) => { conversions++; return { values: rows.map(r => r.v) } }
  const first = await reads.selectUnchanged(sql, [1], valueOf)
  t.same(first, { values: ['a'] })
  t.equal(await reads.selectUnchanged(sql, [1], valueOf), first, 'no commit since: the same value, from memory')
  t.equal(conversions, 1, 'converted once')
  writer.prepare('UPDATE hot_reads_probe SET v = ? WHERE id = 1').run('b')
  t.same(await reads.selectUnchanged(sql, [1], valueOf), { values: ['b'] }, 'a commit of another connection is seen at once')
  t.equal(conversions, 2, 'converted again after the commit')
  // A commit to any table drops every kept answer.
  const kept = await reads.selectUnchanged(sql, [1], valueOf)
  writer.prepare('INSERT INTO hot_reads_probe (id, v) VALUES (2, ?)').run('c')
  t.not(await reads.selectUnchanged(sql, [1], valueOf), kept, 'read again after an unrelated commit')
  t.same(await reads.selectUnchanged(sql, [2], valueOf), { values: ['c'] })
  t.same(await reads.selectUnchanged(sql, [3], valueOf), { values: [] }, 'no row is an answer too')
  // An answer that converts to undefined is kept like any other.
  const firstOf = ([row]: Array<{ v: string }>) => { conversions++; return row?.v }
  const other = 'SELECT v FROM hot_reads_probe WHERE id = ? AND 1 = 1'
  const before = conversions
  t.equal(await reads.selectUnchanged(other, [9], firstOf), undefined)
  t.equal(await reads.selectUnchanged(other, [9], firstOf), undefined)
  t.equal(conversions, before + 1, 'an undefined answer is kept too')
  // Each statement has one conversion: another would be handed the first one's kept values.
  await t.rejects(reads.selectUnchanged(sql, [1], (rows: Array<{ v: string }>) => rows.length), /one conversion per statement/)
})
