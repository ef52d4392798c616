// Readiness (`GET /api/health/ready`): whether this process should get
// traffic now. Each check is named in the answer with its state and a short
// reason; any required check that fails makes the answer 503. The media
// programs are reported but not required: without them only the media tools
// fail (each naming its setting), and a server that offers none of them
// must not leave the load balancer for it.
import { statfs } from 'node:fs/promises'
import type { Services } from '../container.ts'
import { committedMigrations } from '../db/migrator.ts'

/** A check that does not answer within this long has failed: a probe must answer promptly. */
const CHECK_MS = 2000

interface CheckResult {
  status: 'ok' | 'fail'
  /** Whether a failure makes the process not ready. */
  required: boolean
  detail?: string
}

export type ReadinessChecks = Record<'database' | 'redis' | 'migrations' | 'extraction_pool' | 'disk' | 'media_programs', CheckResult>

const ok = (required = true, detail?: string): CheckResult => ({ status: 'ok', required, ...(detail ? { detail } : {}) })
const fail = (detail: string, required = true): CheckResult => ({ status: 'fail', required, detail })

async function within<T> (work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_MS} ms`)), CHECK_MS) })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Runs every check at once; never throws (a check that throws has failed, with a reason that names no secret). */
export async function checkReadiness (services: Pick<Services, 'db' | 'database' | 'redis' | 'extraction' | 'exec' | 'config'>): Promise<{ ready: boolean, checks: ReadinessChecks }> {
  const { db, database, redis, extraction, exec, config } = services
  const guarded = (work: () => Promise<CheckResult>, what: string): Promise<CheckResult> =>
    within(work(), what).catch(() => fail(`${what} failed or did not answer`))
  // A first read starts the programs: the probe reports what is known and never waits for it.
  const versions = exec.programVersions()
  versions.read.catch(() => {})
  const [databaseCheck, redisCheck, migrations, pool, disk, media] = await Promise.all([
    guarded(async () => { await db.$queryRaw`SELECT 1`; return ok() }, 'the database'),
    redis
      ? guarded(async () => (await redis.ready(CHECK_MS / 2) ? ok() : fail('Redis (REDIS_URL) is not reachable')), 'Redis')
      : Promise.resolve(ok(false, 'not configured (no REDIS_URL)')),
    guarded(async () => {
      const rows = await db.$queryRawUnsafe<Array<{ migration_name: string }>>('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL')
      const applied = new Set(rows.map(r => r.migration_name))
      const missing = committedMigrations(database.provider).filter(name => !applied.has(name))
      return missing.length === 0 ? ok() : fail(`${missing.length} migration(s) not applied: ${missing.join(', ')}`)
    }, 'the migrations check'),
    guarded(async () => {
      if (!extraction.open) return fail('the extraction pool is closed (the process is shutting down)')
      // Until a worker has answered once, the probe waits on an empty task: it proves the workers start and load.
      await extraction.answering()
      const { threads, running, waiting } = extraction.stats()
      return ok(true, `${threads} worker thread(s), ${running} task(s) running, ${waiting} waiting`)
    }, 'the extraction pool'),
    guarded(async () => {
      const stats = await statfs(config.dataDir)
      const freeMb = Math.floor((stats.bavail * stats.bsize) / (1024 * 1024))
      return freeMb >= config.readyMinFreeMb ? ok() : fail(`${freeMb} MB free in DATA_DIR, below READY_MIN_FREE_MB (${config.readyMinFreeMb})`)
    }, 'the free-space check'),
    Promise.resolve(((known): CheckResult => {
      if (!known) return ok(false, 'versions not read yet (read in the background)')
      const missing = Object.entries(known).filter(([, v]) => v.version === null).map(([name]) => name)
      // A stale yt-dlp answers, but the sites it reads have changed since: its runs fail one by one.
      const stale = Object.entries(known).filter(([, v]) => v.stale === true).map(([name, v]) => `${name} ${v.version} (released ${v.released})`)
      const problems = [
        ...(missing.length ? [`not installed or not answering: ${missing.join(', ')} (only the tools that run them fail)`] : []),
        ...(stale.length ? [`out of date, update: ${stale.join(', ')}`] : []),
      ]
      return problems.length === 0 ? ok(false) : fail(problems.join('; '), false)
    })(versions.known)),
  ])
  const checks: ReadinessChecks = { database: databaseCheck, redis: redisCheck, migrations, extraction_pool: pool, disk, media_programs: media }
  return { ready: Object.values(checks).every(c => c.status === 'ok' || !c.required), checks }
}
