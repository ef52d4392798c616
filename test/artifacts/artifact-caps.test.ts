// Files as results (core/artifacts): the tier caps stop a write, leave nothing
// behind and say which limit of which tier; the job ends unrefunded unless the
// tool catches the error.
import t from 'tap'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { FileTooLargeError } from '../../core/tools/contract.ts'
import { MB } from '../../core/quotas/tiers.ts'
import { signup } from '../helpers/build.ts'
import { ARTIFACT_STORE_KINDS, artifactStoreUnderTest } from '../helpers/artifact-stores.ts'
import { buildWithCounter, startJob, usageOf, waitForEnd } from '../helpers/jobs.ts'


async function runFiles (app: FastifyInstance, key: string, params: Record<string, unknown>) {
  const started = await startJob(app, key, params, 'files')
  if (started.statusCode !== 202) throw new Error(`start answered ${started.statusCode}: ${started.body}`)
  const id = started.json().job_id as string
  return { id, end: await waitForEnd(app, key, id, 60_000) }
}


for (const kind of ARTIFACT_STORE_KINDS) {
  t.test(`${kind} store`, async t => {
  const store = await artifactStoreUnderTest(t, kind)

  t.test('caps: a file past the tier cap stops, leaves nothing, and ends the job unrefunded', async t => {
    const app = await buildWithCounter(t, { env: store.env })
    const user = await signup(app)
    const before = (await usageOf(app, user.apiKey)).calls_today
    const { id, end } = await runFiles(app, user.apiKey, { files: 1, size: 100 * MB + 1 })
    t.equal(end.status, 'error')
    t.equal(end.refunded, false, 'the caller chose the file: not refunded (like InputError)')
    t.match(end.error, /larger than the 100 MB limit of the registered tier/)
    t.same(store.jobFiles(app, id), [], 'the partial file is gone')
    if (store.bucket) t.notOk(store.bucket.requests.some(r => r.method === 'PUT' && r.key.includes(`/${id}/`)), 'a file past the cap never reaches the bucket')
    const staging = join(app.services.config.dataDir, 'work', '.s3-staging')
    t.same(existsSync(staging) ? readdirSync(staging) : [], [], 'no staged file left')
    t.equal(await app.services.db.artifact.count({ where: { jobId: id } }), 0)
    t.equal((await usageOf(app, user.apiKey)).calls_today, before + 1, 'charged')

    // A tool may catch it and go on.
    const tolerant = await runFiles(app, user.apiKey, { files: 1, size: 100 * MB + 1, tolerate_cap: true })
    t.equal(tolerant.end.status, 'done')
    t.match(tolerant.end.warning, /100 MB limit/)
  })

  t.test('caps: the per-job total counts every file, concurrent writes included', async t => {
    const app = await buildWithCounter(t, { env: store.env })
    const user = await signup(app)
    const { id } = await runFiles(app, user.apiKey, { files: 0 })
    // The guest tier's caps (25 MB a file, 50 MB a job) keep the test small; the job row says which tier holds.
    await app.services.db.job.update({ where: { id }, data: { tier: 'guest' } })
    const job = await app.services.db.job.findUniqueOrThrow({ where: { id } })
    const signal = new AbortController().signal
    const bytes = (n: number) => (async function * () { const c = Buffer.alloc(MB); for (let i = 0; i < n; i++) yield c })()
    await t.rejects(app.services.artifacts.save(job, { name: 'big.bin', contentType: 'video/mp4', body: bytes(26) }, signal), FileTooLargeError, 'past 25 MB')
    const results = await Promise.allSettled([20, 20, 20].map((n, i) => app.services.artifacts.save(job, { name: `part-${i}.bin`, contentType: 'video/mp4', body: bytes(n) }, signal)))
    const refused = results.filter(r => r.status === 'rejected')
    t.equal(refused.length, 1, 'one of three 20 MB files passes the 50 MB job total')
    t.match((refused[0] as PromiseRejectedResult).reason, { message: /job's files passed the 50 MB limit of the guest tier/ })
    t.equal(store.jobFiles(app, id).length, 2, 'only the kept files are on disk')
    t.equal(await app.services.db.artifact.count({ where: { jobId: id } }), 2)
  })
  })
}
