// Files as results (core/artifacts): every ending removes the job's scratch
// and upload files; retention removes its artifacts (files and rows).
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { createReadStream, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { manualClock, HOUR_MS } from '../../core/clock.ts'
import { signup } from '../helpers/build.ts'
import { ARTIFACT_STORE_KINDS, artifactStoreUnderTest } from '../helpers/artifact-stores.ts'
import { buildWithCounter, startJob, waitForEnd } from '../helpers/jobs.ts'


async function runFiles (app: FastifyInstance, key: string, params: Record<string, unknown>) {
  const started = await startJob(app, key, params, 'files')
  if (started.statusCode !== 202) throw new Error(`start answered ${started.statusCode}: ${started.body}`)
  const id = started.json().job_id as string
  return { id, end: await waitForEnd(app, key, id, 60_000) }
}


for (const kind of ARTIFACT_STORE_KINDS) {
  t.test(`${kind} store`, async t => {
  const store = await artifactStoreUnderTest(t, kind)

  t.test('cancel removes the scratch directory; retention removes files and rows', async t => {
    const clock = manualClock('2026-03-10T12:00:00Z')
    const app = await buildWithCounter(t, { clock, env: store.env })
    const user = await signup(app)
    const headers = { 'x-api-key': user.apiKey }
    const started = (await startJob(app, user.apiKey, { files: 1, size: 10, scratch: true, hold_ms: 60_000 }, 'files')).json()
    const scratch = join(app.services.config.dataDir, 'work', started.job_id, 'scratch')
    const stored = () => app.services.db.artifact.count({ where: { jobId: started.job_id } })
    for (let i = 0; i < 1500 && !(existsSync(join(scratch, 'work.tmp')) && await stored() === 1); i++) await new Promise(r => setTimeout(r, 20))
    t.ok(existsSync(join(scratch, 'work.tmp')), 'the tool wrote into its scratch directory')
    const cancelled = await app.inject({ method: 'DELETE', url: `/api/tool-run/${started.job_id}`, headers })
    t.equal(cancelled.json().error, 'cancelled')
    t.notOk(existsSync(join(app.services.config.dataDir, 'work', started.job_id)), 'scratch removed at the ending')
    t.equal(store.jobFiles(app, started.job_id).length, 1, 'the files it stored stay until retention')

    clock.advance(7 * HOUR_MS)
    await app.services.maintenance.tick()
    t.same(store.jobFiles(app, started.job_id), [], 'files deleted with the job')
    t.equal(await app.services.db.artifact.count({ where: { jobId: started.job_id } }), 0, 'rows deleted with the job')
  })

  t.test('every ending removes the working directory: error and timeout too', async t => {
    const app = await buildWithCounter(t, { env: { ...store.env, JOB_TIMEOUT_SECONDS: '1' } })
    const user = await signup(app)
    const failed = await runFiles(app, user.apiKey, { files: 0, scratch: true, fail: true })
    t.equal(failed.end.status, 'error')
    t.notOk(existsSync(join(app.services.config.dataDir, 'work', failed.id)), 'error: scratch removed')
    const slow = await runFiles(app, user.apiKey, { files: 0, scratch: true, hold_ms: 10_000 })
    t.match(slow.end.error, /did not finish within 1 s/)
    t.notOk(existsSync(join(app.services.config.dataDir, 'work', slow.id)), 'timeout: scratch removed')
  })
  })
}

t.test('a body ctx.artifact never reads is closed: a file stream whose file is gone cannot crash the process', async t => {
  const app = await buildWithCounter(t)
  const cancelled = new AbortController()
  cancelled.abort(new Error('cancelled'))
  const job = { id: randomUUID(), accountId: randomUUID(), tier: 'registered' }
  // Opened lazily by Node: the open's ENOENT would be an 'error' event with no listener.
  const body = createReadStream(join(tmpdir(), `gone-${randomUUID()}`))
  await t.rejects(app.services.artifacts.save(job, { name: 'frame.jpg', contentType: 'image/jpeg', body }, cancelled.signal), /cancelled/)
  t.ok(body.destroyed, 'the unread stream was destroyed')
  await new Promise<void>(resolve => body.once('close', () => resolve()))
  t.pass('no unhandled error event reached the process')
})
