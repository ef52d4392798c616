// Liveness: always 200 (the spec), with a body that says what is down. Keys
// are not looked up (`keyless`): that lookup needs the database, so a key sent
// while the database is down would otherwise turn the probe into a 503.
import { routeDefaults } from '../openapi/route-defaults.ts'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

/** A database that does not answer within this long counts as down: a probe must answer promptly. */
const DATABASE_CHECK_MS = 2000

const HealthAnswer = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  time: Type.String({ format: 'date-time' }),
})

export default async function healthRoutes (app: FastifyInstance): Promise<void> {
  routeDefaults(app, { tag: 'Service', auth: 'none' })
  const { db, clock } = app.services
  app.get('/api/health', { config: { keyless: true, auth: 'none', responses: { 200: HealthAnswer } } }, async () => {
    const database = await databaseState(() => db.$queryRaw`SELECT 1`)
    return { status: database === 'ok' ? 'ok' : 'degraded', database, time: clock().toISOString() }
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
