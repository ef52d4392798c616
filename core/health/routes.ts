// Liveness: always 200 (the spec), with a body that says what is down. Keys
// are not looked up (`keyless`): that lookup needs the database, so a key sent
// while the database is down would otherwise turn the probe into a 503.
import { routeDefaults } from '../route-defaults.ts'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

/** A database that does not answer within this long counts as down: a probe must answer promptly. */
const DATABASE_CHECK_MS = 2000

const ProgramVersion = Type.Object({
  version: Type.Union([Type.String(), Type.Null()], { description: 'What the program printed of its version; null: not installed, or it did not answer.' }),
  released: Type.Optional(Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'A program whose version is a release date: that date.' })),
  stale: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'A program whose version is a release date: older than its profile allows (update it: README, Media programs).' })),
})

const HealthAnswer = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  time: Type.String({ format: 'date-time' }),
  media_programs: Type.Union([
    Type.Record(Type.String(), ProgramVersion),
    Type.Null(),
  ], { description: 'The versions of the programs the enabled tools run, by name, read once per process (null until the first read is done: the first probe starts it and never waits for it).' }),
})

export default async function healthRoutes (app: FastifyInstance): Promise<void> {
  routeDefaults(app, { tag: 'Service', auth: 'none' })
  const { db, clock, exec } = app.services
  app.get('/api/health', { config: { keyless: true, auth: 'none', responses: { 200: HealthAnswer } } }, async () => {
    const database = await databaseState(() => db.$queryRaw`SELECT 1`)
    const versions = exec.programVersions()
    versions.read.catch(() => {})
    return { status: database === 'ok' ? 'ok' : 'degraded', database, time: clock().toISOString(), media_programs: versions.known }
  })
}

async function databaseState (probe: () => Promise<unknown>): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'unavailable'>(resolve => { timer = setTimeout(() => resolve('unavailable'), DATABASE_CHECK_MS) })
  try {
    return await Promise.race([probe().then(() => 'ok' as const, () => 'unavailable' as const), late])
  } finally {
    clearTimeout(timer)
  }
}
