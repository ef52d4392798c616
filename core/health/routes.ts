// Liveness: always 200, and says whether the database answers.
import type { FastifyInstance } from 'fastify'

export default async function healthRoutes (app: FastifyInstance): Promise<void> {
  const { db, clock } = app.services
  app.get('/api/health', async () => {
    let database = 'ok'
    try { await db.$queryRaw`SELECT 1` } catch { database = 'unavailable' }
    return { status: 'ok', database, time: clock().toISOString() }
  })
}
