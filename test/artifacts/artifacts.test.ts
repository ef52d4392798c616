// Files as results (core/artifacts): a tool's streamed files are listed,
// downloaded whole and by range, zipped; their names are made safe; other
// accounts cannot fetch them; the tier caps stop a write and leave nothing
// behind; cancel and retention remove files and scratch directories.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { signup } from '../helpers/build.ts'
import { ARTIFACT_STORE_KINDS, artifactStoreUnderTest } from '../helpers/artifact-stores.ts'
import { buildWithCounter, startJob, waitForEnd } from '../helpers/jobs.ts'

const HOSTILE = '../../etc/pass"wd\r\nX-Injected: 1\u202Etxt.exe résumé ✓.txt'

async function runFiles (app: FastifyInstance, key: string, params: Record<string, unknown>) {
  const started = await startJob(app, key, params, 'files')
  if (started.statusCode !== 202) throw new Error(`start answered ${started.statusCode}: ${started.body}`)
  const id = started.json().job_id as string
  return { id, end: await waitForEnd(app, key, id, 60_000) }
}


for (const kind of ARTIFACT_STORE_KINDS) {
  t.test(`${kind} store`, async t => {
  const store = await artifactStoreUnderTest(t, kind)

  t.test('streamed files: listed, rows carry their URL, downloaded whole, by range, zipped', async t => {
    const app = await buildWithCounter(t, { env: store.env })
    const user = await signup(app)
    const headers = { 'x-api-key': user.apiKey }
    const size = 200_000
    for (const body of ['iterable', 'stream', 'buffer']) {
      const { id, end } = await runFiles(app, user.apiKey, { files: 2, size, body, name: 'frame.jpg', content_type: 'image/jpeg' })
      t.equal(end.status, 'done', `${body}: job done`)
      const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers })).json().results
      const list = await app.inject({ url: `/api/tool-run/${id}/artifacts`, headers })
      t.equal(list.statusCode, 200)
      const files = list.json().files
      t.equal(list.json().count, 2)
      t.same(files.map((f: { url: string }) => f.url), rows.map((r: { url: string }) => r.url), 'the rows carry each file\'s download path')
      t.match(files[0], { name: 'frame-0.jpg', content_type: 'image/jpeg', size, sha256: /^[0-9a-f]{64}$/, url: `/api/tool-run/${id}/artifacts/${files[0].id}` })
      t.same(store.jobFiles(app, id).sort(), files.map((f: { id: string }) => f.id).sort(), 'one stored file per row, no partial left')
    }

    const { id } = await runFiles(app, user.apiKey, { files: 1, size, name: 'data.bin' })
    const [file] = (await app.inject({ url: `/api/tool-run/${id}/artifacts`, headers })).json().files
    const whole = await app.inject({ url: file.url, headers })
    t.equal(whole.statusCode, 200)
    t.equal(whole.rawPayload.length, size)
    t.equal(whole.headers['content-length'], String(size))
    t.equal(whole.headers['accept-ranges'], 'bytes')
    t.equal(whole.headers['x-content-type-options'], 'nosniff')
    t.match(whole.headers.etag, /^"[0-9a-f]{32}"$/)
    t.equal(whole.headers['content-type'], 'application/octet-stream')

    const part = await app.inject({ url: file.url, headers: { ...headers, range: 'bytes=100-199' } })
    t.equal(part.statusCode, 206)
    t.equal(part.headers['content-range'], `bytes 100-199/${size}`)
    t.equal(part.rawPayload.length, 100)
    // On the bucket, the range is S3's to serve: passed through, not cut out of a whole download.
    if (store.bucket) t.ok(store.bucket.requests.some(r => r.method === 'GET' && r.key.endsWith(`/${id}/${file.id}`) && r.range === 'bytes=100-199'), 'the Range went to the bucket')
    const tail = await app.inject({ url: file.url, headers: { ...headers, range: 'bytes=-10' } })
    t.equal(tail.statusCode, 206)
    t.equal(tail.headers['content-range'], `bytes ${size - 10}-${size - 1}/${size}`)
    const open = await app.inject({ url: file.url, headers: { ...headers, range: `bytes=${size - 5}-` } })
    t.equal(open.rawPayload.length, 5)
    const past = await app.inject({ url: file.url, headers: { ...headers, range: `bytes=${size}-` } })
    t.equal(past.statusCode, 416)
    t.equal(past.headers['content-range'], `bytes */${size}`)
    t.match(past.json(), { detail: /outside the file/ })
    const several = await app.inject({ url: file.url, headers: { ...headers, range: 'bytes=0-1,5-6' } })
    t.equal(several.statusCode, 200, 'several ranges: the whole file (RFC 9110 allows ignoring Range)')
    const stale = await app.inject({ url: file.url, headers: { ...headers, range: 'bytes=0-9', 'if-range': '"other"' } })
    t.equal(stale.statusCode, 200, 'If-Range with another validator: the whole file')
    const cached = await app.inject({ url: file.url, headers: { ...headers, 'if-none-match': whole.headers.etag as string } })
    t.equal(cached.statusCode, 304)

    const missing = await app.inject({ url: `/api/tool-run/${id}/artifacts/no-such-file`, headers })
    t.equal(missing.statusCode, 404)
    t.match(missing.json(), { detail: /No file/ })
  })

  t.test('a hostile file name is stored safe and offered with RFC 6266/5987 Content-Disposition', async t => {
    const app = await buildWithCounter(t, { env: store.env })
    const user = await signup(app)
    const headers = { 'x-api-key': user.apiKey }
    const { id, end } = await runFiles(app, user.apiKey, { files: 1, size: 10, name: HOSTILE, content_type: 'text/html; charset=utf-8' })
    t.equal(end.status, 'done')
    const [file] = (await app.inject({ url: `/api/tool-run/${id}/artifacts`, headers })).json().files
    t.notMatch(file.name, /[/\\\r\n\u202E]/, 'no separators, controls or bidi overrides')
    t.notOk(file.name.startsWith('.'), 'no leading dots')
    t.equal(file.content_type, 'text/html', 'type without parameters')
    const res = await app.inject({ url: file.url, headers })
    const disposition = res.headers['content-disposition'] as string
    t.match(disposition, /^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''[A-Za-z0-9%._~!$&+^`|-]+$/)
    t.notMatch(disposition, /[\r\n]/)
    t.equal(res.headers['x-injected'], undefined, 'no header injected')
    t.equal(decodeURIComponent(disposition.split("filename*=UTF-8''")[1]!), file.name, 'filename* round-trips the stored name')
    t.equal(res.headers['x-content-type-options'], 'nosniff')
    t.match(res.headers['content-security-policy'], /sandbox/, 'an HTML file cannot run as a page of this origin')
  })

  t.test('the zip holds every file, duplicate names made unique, streamed', async t => {
    const app = await buildWithCounter(t, { env: store.env })
    const user = await signup(app)
    const headers = { 'x-api-key': user.apiKey }
    const { id } = await runFiles(app, user.apiKey, { files: 3, size: 5000, name: 'frame.png', content_type: 'image/png' })
    // A second file named like the first.
    const job = await app.services.db.job.findUniqueOrThrow({ where: { id } })
    await app.services.artifacts.save(job, { name: 'frame-0.png', contentType: 'image/png', body: Buffer.from('again') }, new AbortController().signal)
    const zip = await app.inject({ url: `/api/tool-run/${id}/artifacts.zip`, headers })
    t.equal(zip.statusCode, 200)
    t.equal(zip.headers['content-type'], 'application/zip')
    t.match(zip.headers['content-disposition'], /^attachment; filename="files-[0-9a-f-]+-files\.zip"/)
    const bytes = zip.rawPayload
    t.same([...bytes.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04], 'a zip local file header')
    const text = bytes.toString('latin1')
    for (const name of ['frame-0.png', 'frame-1.png', 'frame-2.png', 'frame-0 (2).png']) t.ok(text.includes(name), `entry ${name}`)
    t.ok(text.includes('PK\x05\x06'), 'the zip has its end of central directory')
    const empty = await runFiles(app, user.apiKey, { files: 0 })
    const none = await app.inject({ url: `/api/tool-run/${empty.id}/artifacts.zip`, headers })
    t.equal(none.statusCode, 200, 'a job without files zips to an empty archive')
  })

  t.test('another account cannot list, fetch or zip a job\'s files', async t => {
    const app = await buildWithCounter(t, { env: store.env })
    const owner = await signup(app)
    const stranger = await signup(app)
    const { id } = await runFiles(app, owner.apiKey, { files: 1, size: 10 })
    const [file] = (await app.inject({ url: `/api/tool-run/${id}/artifacts`, headers: { 'x-api-key': owner.apiKey } })).json().files
    for (const url of [`/api/tool-run/${id}/artifacts`, `/api/tool-run/${id}/artifacts.zip`, file.url]) {
      const res = await app.inject({ url, headers: { 'x-api-key': stranger.apiKey } })
      t.equal(res.statusCode, 404, `${url} for another account`)
      t.same(res.json(), { detail: `No job ${id} for this account.` })
      t.equal((await app.inject({ url })).statusCode, 401, `${url} without a key`)
    }
  })
  })
}
