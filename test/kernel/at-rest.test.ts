// At rest and at the door: DATA_DIR 0700, SQLite files 0600 (new and existing),
// a short secret.key refuses the boot, HTTP timeouts are set.
import t from 'tap'
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { loadConfig } from '../../core/config.ts'
import { prepareDataDirs } from '../../core/data-dir.ts'
import { build, tempDir, testDatabaseKind } from '../helpers/build.ts'
import { prepareServiceBuild, runServiceToExit } from '../helpers/service-build.ts'

// The refused boot is package.json's start command on this run's build: it goes on meanwhile.
prepareServiceBuild()

const mode = (path: string) => statSync(path).mode & 0o777
const base = (dir: string) => ({ DATA_DIR: dir, TOOLS_CONFIG: resolve('tools.config.json') })
/** What a start does with an environment: read it, then ready the folders and the secret (core/data-dir.ts). */
const boot = (env: Record<string, string | undefined>) => prepareDataDirs(loadConfig(env))

t.test('DATA_DIR is made owner-only, created or existing', async t => {
  const parent = tempDir(t)
  const fresh = join(parent, 'fresh', 'data')
  boot({ ...base(fresh), SECRET_KEY: 'a-secret-of-sixteen+' })
  t.equal(mode(fresh), 0o700, 'created 0700')
  const wide = join(parent, 'wide')
  mkdirSync(wide, { mode: 0o755 })
  chmodSync(wide, 0o755)
  boot({ ...base(wide), SECRET_KEY: 'a-secret-of-sixteen+' })
  t.equal(mode(wide), 0o700, 'tightened at start')
})

t.test('a shared DATA_DIR (sticky, like /tmp) is refused and left as it was; a world-writable one of its own is tightened', async t => {
  const parent = tempDir(t)
  // A volume given to the service alone may come world-writable (Kubernetes' emptyDir): made owner-only as any wider directory.
  const open = join(parent, 'open')
  mkdirSync(open)
  chmodSync(open, 0o777)
  boot({ ...base(open), SECRET_KEY: 'a-secret-of-sixteen+' })
  t.equal(mode(open), 0o700, 'world-writable, not sticky: tightened')
  for (const [name, wanted] of [['sticky', 0o1777], ['sticky-group', 0o1770]] as const) {
    const shared = join(parent, name)
    mkdirSync(shared)
    chmodSync(shared, wanted)
    t.throws(() => boot({ ...base(shared), SECRET_KEY: 'a-secret-of-sixteen+' }), { name: 'ConfigError', message: /sticky, like \/tmp/ }, `${name}: refused`)
    t.equal(statSync(shared).mode & 0o7777, wanted, `${name}: its mode is unchanged`)
    const artifacts = join(parent, 'own-' + name)
    t.throws(() => boot({ ...base(artifacts), ARTIFACTS_DIR: shared, SECRET_KEY: 'a-secret-of-sixteen+' }), { message: /ARTIFACTS_DIR/ }, `${name}: refused as ARTIFACTS_DIR too`)
  }
})

t.test('the SQLite database and its -wal/-shm are 0600, new and existing', { skip: testDatabaseKind() !== 'sqlite' && 'SQLite files only' }, async t => {
  const dir = tempDir(t)
  const db = join(dir, 'app.db')
  const first = await build(t, { dataDir: dir, databaseUrl: `file:${db}` })
  // A write so WAL has pages to keep.
  await first.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: 'rest@example.com', password: 'password123' } })
  t.equal(mode(db), 0o600, 'a new database file')
  for (const side of ['-wal', '-shm']) if (existsSync(db + side)) t.equal(mode(db + side), 0o600, `a new ${side}`)
  await first.close()

  chmodSync(dir, 0o755)
  chmodSync(db, 0o644)
  writeFileSync(db + '-wal', '')
  chmodSync(db + '-wal', 0o644)
  const second = await build(t, { dataDir: dir, databaseUrl: `file:${db}` })
  t.equal(mode(dir), 0o700, 'DATA_DIR fixed')
  t.equal(mode(db), 0o600, 'an existing database file fixed')
  for (const side of ['-wal', '-shm']) if (existsSync(db + side)) t.equal(mode(db + side), 0o600, `${side} fixed`)
  t.equal((await second.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'rest@example.com', password: 'password123' } })).statusCode, 200, 'the data is intact')
})

t.test('a secret.key shorter than 16 characters (or empty) refuses the boot, naming the file', async t => {
  for (const content of ['', '\n', 'short-secret\n']) {
    const dir = tempDir(t)
    const file = join(dir, 'secret.key')
    writeFileSync(file, content, { mode: 0o600 })
    t.throws(() => boot(base(dir)), { name: 'ConfigError', message: new RegExp(file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')) }, JSON.stringify(content))
  }
  const dir = tempDir(t)
  writeFileSync(join(dir, 'secret.key'), 'a-long-enough-secret-value\n', { mode: 0o644 })
  chmodSync(join(dir, 'secret.key'), 0o644)
  t.equal(boot(base(dir)).secretKey, 'a-long-enough-secret-value')
  t.equal(mode(join(dir, 'secret.key')), 0o600, 'an existing secret file is made owner-only')

  const empty = tempDir(t)
  writeFileSync(join(empty, 'secret.key'), '')
  const res = await runServiceToExit('start', { ...base(empty), SECRET_KEY: '', PORT: '0', DATABASE_URL: '' })
  t.equal(res.status, 78, 'exit 78')
  t.match(res.stderr, /secret\.key/)
})

t.test('HTTP timeouts: defaults and settings', async t => {
  const app = await build(t)
  t.equal(app.server.requestTimeout, 30_000, 'REQUEST_TIMEOUT_MS default')
  t.equal(app.server.headersTimeout, 15_000, 'HEADERS_TIMEOUT_MS default')
  t.equal(app.server.keepAliveTimeout, 72_000, 'KEEP_ALIVE_TIMEOUT_MS default')
  t.equal(app.server.timeout, 300_000, 'CONNECTION_TIMEOUT_MS default')
  const tuned = await build(t, { env: { REQUEST_TIMEOUT_MS: '20000', HEADERS_TIMEOUT_MS: '5000', KEEP_ALIVE_TIMEOUT_MS: '6000', CONNECTION_TIMEOUT_MS: '120000' } })
  t.equal(tuned.server.requestTimeout, 20_000)
  t.equal(tuned.server.headersTimeout, 5_000)
  t.equal(tuned.server.keepAliveTimeout, 6_000)
  t.equal(tuned.server.timeout, 120_000)
})
