import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { manualClock, HOUR_MS } from '../../core/clock.ts'
import { signup } from '../helpers/build.ts'
import { buildWithCounter, startJob, waitForEnd } from '../helpers/jobs.ts'

t.test('after the plan\'s retention, status, results and exports are 404 and the sweeper deletes rows and files', async t => {
  const clock = manualClock('2026-03-10T12:00:00Z')
  const app = await buildWithCounter(t, { clock })
  const user = await signup(app)
  const headers = { 'x-api-key': user.apiKey }
  const { job_id: id } = (await startJob(app, user.apiKey, { max_results: 3 })).json()
  const done = await waitForEnd(app, user.apiKey, id)
  t.equal(done.expires_at, new Date(clock().getTime() + 6 * HOUR_MS).toISOString(), 'registered tier keeps results 6 h after the end')
  // A file artifact kept with the job.
  const artifact = await app.services.artifacts.save({ id, accountId: user.id, tier: 'registered' }, { name: 'frame 1.png', contentType: 'image/png', body: Buffer.from('png') }, new AbortController().signal)
  const file = await app.inject({ url: artifact.url, headers })
  t.equal(file.statusCode, 200)
  t.equal(file.body, 'png')

  clock.advance(6 * HOUR_MS - 1000)
  t.equal((await app.inject({ url: `/api/tool-run/${id}/results`, headers })).statusCode, 200, 'still there just before expiry')
  clock.advance(2000)
  for (const url of [`/api/tool-run/${id}/status`, `/api/tool-run/${id}/results`, `/api/tool-run/${id}/results.csv`, `/api/download/${id}/xlsx`, artifact.url]) {
    t.equal((await app.inject({ url, headers })).statusCode, 404, url)
  }
  t.equal((await app.inject({ url: '/api/jobs', headers })).json().count, 0, 'expired jobs leave the list')
  await app.services.maintenance.tick()
  t.equal(await app.services.db.resultRow.count({ where: { jobId: id } }), 0, 'rows deleted')
  t.equal(await app.services.db.artifact.count({ where: { jobId: id } }), 0, 'artifact records deleted')
  t.notOk(existsSync(join(app.services.config.artifactsDir, id)), 'artifact files deleted')
})
