import t from 'tap'
import { spawnSync } from 'node:child_process'
import { statSync, writeFileSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ConfigError, loadConfig } from '../../core/config.ts'
import { build, tempDir } from '../helpers/build.ts'

const base = (dir: string) => ({ DATA_DIR: dir, SECRET_KEY: 'a-secret-of-sixteen+', TOOLS_CONFIG: resolve('tools.config.json') })

t.test('each bad value stops loadConfig with a message naming it', async t => {
  const dir = tempDir(t)
  const toolsBad = join(dir, 'tools-bad.json')
  writeFileSync(toolsBad, JSON.stringify({ tools: [{ key: 'a', plugin: null, enabled: 'yes' }], retired: [] }))
  const toolsDup = join(dir, 'tools-dup.json')
  writeFileSync(toolsDup, JSON.stringify({ tools: [{ key: 'a', plugin: null, enabled: true }], retired: [{ key: 'a', replacement: null }] }))
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, /RATE_LIMIT_PER_MINUTE/],
    [{ RATE_LIMIT_PER_MINUTE: 'ten' }, /RATE_LIMIT_PER_MINUTE/],
    [{ RATE_LIMIT_PRO_PER_MINUTE: '-1' }, /RATE_LIMIT_PRO_PER_MINUTE/],
    [{ JOB_CONCURRENCY: '1.5' }, /JOB_CONCURRENCY/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'file:' }, /DATABASE_URL/],
    [{ PUBLIC_TOKENS: 'pub-ok,notpub' }, /PUBLIC_TOKENS/],
    [{ ADMIN_API_KEY: 'short' }, /ADMIN_API_KEY/],
    [{ SECRET_KEY: 'short' }, /SECRET_KEY/],
    [{ ALLOW_PRIVATE_TARGETS: 'maybe' }, /ALLOW_PRIVATE_TARGETS/],
    [{ TRUST_PROXY: 'true' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '10.0.0.0/99' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: 'proxy.internal' }, /TRUST_PROXY/],
    [{ ALLOWED_HOSTS: 'https://x.example' }, /ALLOWED_HOSTS/],
    [{ ALLOWED_ORIGINS: 'app.example.com' }, /ALLOWED_ORIGINS/],
    [{ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '9000' }, /HEADERS_TIMEOUT_MS/],
    [{ PROXY_URL: 'not a url' }, /PROXY_URL/],
    [{ LLM_BASE_URL: '::' }, /LLM_BASE_URL/],
    [{ TOOLS_CONFIG: join(dir, 'missing.json') }, /TOOLS_CONFIG/],
    [{ TOOLS_CONFIG: toolsBad }, /TOOLS_CONFIG.*enabled/],
    [{ TOOLS_CONFIG: toolsDup }, /TOOLS_CONFIG.*twice/],
  ]
  for (const [env, pattern] of cases) {
    t.throws(() => loadConfig({ ...base(dir), ...env }), { name: 'ConfigError', message: pattern }, JSON.stringify(env))
  }
})

t.test('good values are read', async t => {
  const dir = tempDir(t)
  const c = loadConfig({ ...base(dir), PORT: '8080', RATE_LIMIT_PER_MINUTE: '10', RATE_LIMIT_PRO_PER_MINUTE: '100', PUBLIC_TOKENS: ' pub-a , pub-b ,', ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn' })
  t.match(c, { port: 8080, rateLimitPerMinute: 10, rateLimitProPerMinute: 100, publicTokens: ['pub-a', 'pub-b'], allowPrivateTargets: true, logLevel: 'warn', databaseProvider: 'sqlite' })
  t.equal(c.sqlitePath, join(dir, 'app.db'), 'default database is DATA_DIR/app.db')
  const pg = loadConfig({ ...base(dir), DATABASE_URL: 'postgresql://u@127.0.0.1:5432/db' })
  t.equal(pg.databaseProvider, 'postgresql')
})

t.test('without SECRET_KEY one is generated once, kept in DATA_DIR, owner-only', async t => {
  const dir = tempDir(t)
  const a = loadConfig({ ...base(dir), SECRET_KEY: undefined })
  const b = loadConfig({ ...base(dir), SECRET_KEY: '' })
  t.equal(a.secretKey, b.secretKey, 'the same secret on the second start')
  t.ok(a.secretKey.length >= 32)
  t.equal(readFileSync(join(dir, 'secret.key'), 'utf8').trim(), a.secretKey)
  t.equal(statSync(join(dir, 'secret.key')).mode & 0o777, 0o600)
})

t.test('buildApp refuses a bad config', async t => {
  await t.rejects(build(t, { env: { RATE_LIMIT_PRO_PER_MINUTE: 'lots' } }), ConfigError)
})

t.test('npm start with a bad value exits with a message naming it', async t => {
  const dir = tempDir(t)
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'core/server.ts'], {
    env: { ...process.env, ...base(dir), PORT: '0', RATE_LIMIT_PER_MINUTE: 'sixty' },
    encoding: 'utf8',
    timeout: 30_000,
  })
  t.not(res.status, 0, 'non-zero exit')
  t.match(res.stderr, /RATE_LIMIT_PER_MINUTE/)
  t.notMatch(res.stderr, /at loadConfig|\.ts:\d+/, 'a message, not a stack')
})
