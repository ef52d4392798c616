// Uploads past the tier's one-file cap: 413 while the file streams, nothing
// kept on disk, nothing charged.
import t from 'tap'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { MB } from '../../core/quotas/tiers.ts'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, usageOf } from '../helpers/jobs.ts'
import { multipartBody, type FormFile } from './multipart.ts'

const post = (app: FastifyInstance, key: string, fields: Array<[string, string]>, file?: FormFile, options?: { fileFirst?: boolean }) => {
  const { payload, headers } = multipartBody(fields, file, options)
  return app.inject({ method: 'POST', url: '/api/tool-run', headers: { ...headers, 'x-api-key': key }, payload })
}

const leftovers = (app: FastifyInstance) => {
  const work = join(app.services.config.dataDir, 'work')
  const incoming = join(work, '.incoming')
  return existsSync(incoming) ? readdirSync(incoming) : []
}

t.test('an upload past the tier cap is 413, removed, not charged', async t => {
  const app = await buildWithCounter(t)
  const user = await signup(app)
  const before = (await usageOf(app, user.apiKey)).calls_today
  const res = await post(app, user.apiKey, [['tool', 'files']], { name: 'big.mp4', type: 'video/mp4', size: 100 * MB + 1 })
  t.equal(res.statusCode, 413)
  t.match(res.json(), { detail: /larger than the 100 MB upload limit of the registered tier; nothing was charged/ })
  t.equal((await usageOf(app, user.apiKey)).calls_today, before)
  t.same(leftovers(app), [])
})

