import t from 'tap'
import { build, signup, ADMIN_KEY, PUBLIC_TOKEN } from '../helpers/build.ts'

t.test('GET /api/health answers 200 with the database state', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/health' })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { status: 'ok', database: 'ok' })
})

t.test('GET /api/health with the database down: still 200, with any key or none, and the body says what is down', async t => {
  const app = await build(t)
  const user = await signup(app)
  // The database goes away: every query fails as a driver does when the server is unreachable.
  const down = async () => { throw Object.assign(new Error("Can't reach database server"), { code: 'P1001' }) }
  const { database, db } = app.services
  const hotSelect = database.hot.select
  const hotSelectUnchanged = database.hot.selectUnchanged
  const queryRaw = db.$queryRaw
  database.hot.select = down
  database.hot.selectUnchanged = down
  ;(db as unknown as { $queryRaw: unknown }).$queryRaw = down
  t.teardown(() => { database.hot.select = hotSelect; database.hot.selectUnchanged = hotSelectUnchanged; (db as unknown as { $queryRaw: unknown }).$queryRaw = queryRaw })

  for (const key of [undefined, user.apiKey, 'sk-not-a-real-key', 'scp-whatever', ADMIN_KEY, PUBLIC_TOKEN]) {
    const res = await app.inject({ method: 'GET', url: '/api/health', headers: key ? { 'x-api-key': key } : {} })
    t.equal(res.statusCode, 200, `key ${key?.slice(0, 4) ?? 'none'}`)
    t.match(res.json(), { status: 'degraded', database: 'unavailable' })
  }
  // Elsewhere the same outage is a 503 {detail}, as the spec's error table says.
  const me = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': user.apiKey } })
  t.equal(me.statusCode, 503)
  t.type(me.json().detail, 'string')
})

t.test('unknown route is a 404 {detail}', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/nope' })
  t.equal(res.statusCode, 404)
  t.type(res.json().detail, 'string')
})

t.test('GET /api/health/ready: every check named; each required one failing makes it 503, the media programs only report', async t => {
  const app = await build(t, { env: { YTDLP_PATH: 'no-such-yt-dlp' } })
  const ready = async () => app.inject({ method: 'GET', url: '/api/health/ready' })
  // The versions are read in the background; the probe reports them once known.
  await app.services.exec.programVersions().read
  // No worker thread before the first probe; the probe starts one with an empty task. On a loaded machine that may
  // take longer than the probe's 2 s: then it alone fails, and the task goes on for the next probe.
  t.notOk(app.services.extraction.stats().started, 'no worker thread before the first probe')
  let res = await ready()
  t.ok(app.services.extraction.stats().started, 'the first probe started the pool')
  if (res.statusCode !== 200) t.match(res.json(), { status: 'not_ready', detail: /^extraction_pool: / }, 'only the pool, still starting')
  await app.services.extraction.answering()
  res = await ready()
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), {
    status: 'ready',
    checks: {
      database: { status: 'ok', required: true },
      redis: { status: 'ok', required: false, detail: /not configured/ },
      migrations: { status: 'ok' },
      extraction_pool: { status: 'ok', required: true, detail: /^1 worker thread\(s\), 0 task\(s\) running, 0 waiting$/ },
      disk: { status: 'ok' },
      media_programs: { status: 'fail', required: false, detail: /yt-dlp/ },
    },
  })
  const { db, config, extraction } = app.services
  const expectNotReady = async (check: string, detail: RegExp) => {
    res = await ready()
    t.equal(res.statusCode, 503, check)
    t.match(res.json(), { status: 'not_ready', detail: new RegExp(`${check}: `), checks: { [check]: { status: 'fail', required: true, detail } } })
  }
  // The database: every query fails, as when the server is unreachable.
  const queryRaw = db.$queryRaw
  ;(db as unknown as { $queryRaw: unknown }).$queryRaw = async () => { throw new Error("Can't reach database server") }
  await expectNotReady('database', /database/)
  ;(db as unknown as { $queryRaw: unknown }).$queryRaw = queryRaw
  const expectReady = async (after: string) => t.equal((await ready()).statusCode, 200, `ready again after ${after}`)
  // A committed migration the database has not applied.
  const [last] = await db.$queryRawUnsafe<Array<{ migration_name: string }>>('SELECT max(migration_name) AS migration_name FROM _prisma_migrations')
  await db.$executeRaw`UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = ${last!.migration_name}`
  await expectNotReady('migrations', new RegExp(`1 migration\\(s\\) not applied: ${last!.migration_name}`))
  await db.$executeRaw`UPDATE _prisma_migrations SET finished_at = CURRENT_TIMESTAMP WHERE migration_name = ${last!.migration_name}`
  await expectReady('the migration')
  // Less free space than asked for.
  const minFree = config.readyMinFreeMb
  ;(config as { readyMinFreeMb: number }).readyMinFreeMb = 10_485_760
  await expectNotReady('disk', /below READY_MIN_FREE_MB/)
  ;(config as { readyMinFreeMb: number }).readyMinFreeMb = minFree
  await expectReady('the free space')
  // The extraction pool closed (as at shutdown).
  const open = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(extraction), 'open')!
  Object.defineProperty(extraction, 'open', { get: () => false, configurable: true })
  await expectNotReady('extraction_pool', /closed/)
  Object.defineProperty(extraction, 'open', open)
  await expectReady('the pool')
  // Open, but no worker answers (as when a worker cannot start or load its module): failed once the check's time is up.
  const answering = extraction.answering
  extraction.answering = () => new Promise<void>(() => {})
  await expectNotReady('extraction_pool', /the extraction pool failed or did not answer/)
  extraction.answering = answering
})

t.test('GET /api/health/ready with Redis configured and unreachable: 503 naming redis', async t => {
  // Nothing listens on port 1: the connection never becomes ready.
  const app = await build(t, { env: { REDIS_URL: 'redis://127.0.0.1:1' }, distributed: false })
  const res = await app.inject({ method: 'GET', url: '/api/health/ready' })
  t.equal(res.statusCode, 503)
  t.match(res.json(), { status: 'not_ready', checks: { redis: { status: 'fail', required: true, detail: /not reachable/ } } })
})
