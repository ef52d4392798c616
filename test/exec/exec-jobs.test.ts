// ctx.exec through real jobs: a cancel, the job's time limit and a shutdown
// each leave no child process behind; a missing binary warns at boot and fails
// the job fast, refunded, naming the variable and no path.
import t, { type Test } from 'tap'
import { join, resolve } from 'node:path'
import { randomInt } from 'node:crypto'
import { build, signup, tempDir } from '../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../helpers/jobs.ts'
import { eventually, processesWith } from './_exec.ts'

const TOOLS_CONFIG = resolve('test/fixtures/tools.exec.test.config.json')
const uniqueSleep = () => `sleep ${5000 + randomInt(1000)}.${randomInt(100000, 999999)}`

const buildApp = (t: Test, env: Record<string, string> = {}, logLines?: string[]) =>
  build(t, { env: { TOOLS_CONFIG, FFMPEG_PATH: '/bin/sh', ...env }, logLines })

t.test('cancelling the job kills its process group', async t => {
  const app = await buildApp(t)
  const user = await signup(app)
  const marker = uniqueSleep()
  const res = await startJob(app, user.apiKey, { program: 'ffmpeg', args: ['-c', `${marker} & ${marker} & wait`] }, 'exec_probe')
  t.equal(res.statusCode, 202, res.body)
  const id = res.json().job_id
  t.ok(await eventually(() => processesWith(marker).length === 2, 10_000), 'the children run')
  const del = await app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': user.apiKey } })
  t.match(del.json(), { status: 'error', error: 'cancelled', refunded: true })
  t.ok(await eventually(() => processesWith(marker).length === 0), 'no orphan after cancel')
})

t.test("the job's time limit kills its process group", async t => {
  const app = await buildApp(t, { JOB_TIMEOUT_SECONDS: '1' })
  const user = await signup(app)
  const marker = uniqueSleep()
  const { job_id: id } = (await startJob(app, user.apiKey, { program: 'ffmpeg', args: ['-c', `${marker} & ${marker} & wait`] }, 'exec_probe')).json()
  const end = await waitForEnd(app, user.apiKey, id)
  t.match(end, { status: 'error', refunded: true, error: /1 s|time/i })
  t.ok(await eventually(() => processesWith(marker).length === 0), 'no orphan after the timeout')
})

t.test('shutting the app down kills running children', async t => {
  const app = await buildApp(t)
  const user = await signup(app)
  const marker = uniqueSleep()
  await startJob(app, user.apiKey, { program: 'ffmpeg', args: ['-c', `${marker} & ${marker} & wait`] }, 'exec_probe')
  t.ok(await eventually(() => processesWith(marker).length === 2, 10_000), 'the children run')
  await app.close()
  t.ok(await eventually(() => processesWith(marker).length === 0), 'no orphan after shutdown')
})

t.test('a missing binary: a warning at boot, and the job fails fast naming the variable, refunded', async t => {
  const lines: string[] = []
  const app = await buildApp(t, { YTDLP_PATH: '/opt/nowhere/yt-dlp' }, lines)
  t.ok(lines.some(l => /"level":40/.test(l) && l.includes('YTDLP_PATH')), 'boot warned about yt-dlp')
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { program: 'yt-dlp', args: ['--version'] }, 'exec_probe')).json()
  const end = await waitForEnd(app, user.apiKey, id)
  t.match(end, { status: 'error', refunded: true, error: /YTDLP_PATH/ })
  t.notMatch(end.error, /\/opt\/nowhere/, 'no path in what the client reads')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0)
})

t.test('a run that works: its exit code and output become the row', async t => {
  const app = await buildApp(t)
  const user = await signup(app)
  const { job_id: id } = (await startJob(app, user.apiKey, { program: 'ffmpeg', args: ['-c', 'echo "$0 $1"; exit 4', 'x; id', '$(id)'] }, 'exec_probe')).json()
  t.match(await waitForEnd(app, user.apiKey, id), { status: 'done' })
  const rows = (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json()
  t.match(rows.results, [{ available: true, exit_code: 4, stdout: 'x; id $(id)\n' }])
})

t.test("a media run's texts name no server path: error, warning and stage of the status record", async t => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, env: { TOOLS_CONFIG, FFMPEG_PATH: '/bin/sh' } })
  const user = await signup(app)
  // What ffmpeg said of an ffconcat upload, with DATA_DIR's paths in it (the upload's, an artifact's).
  const upload = join(dataDir, 'work', 'a1b2c3', 'upload', 'file')
  const script = 'echo "[concat @ 0x1] Unsafe file name \'/x.mp4\' file:$0: Operation not permitted; see $1 and $2" >&2; exit 1'
  const { job_id: id } = (await startJob(app, user.apiKey, { program: 'ffmpeg', args: ['-c', script, upload, join(dataDir, 'artifacts', 'ab', 'cd'), join(dataDir, 'app.db')], fail_with_paths: true }, 'exec_probe')).json()
  const end = await waitForEnd(app, user.apiKey, id)
  t.match(end, { status: 'error', error: /Unsafe file name '\/x\.mp4' file:\[upload\]: Operation not permitted; see \[artifacts\]\/ab\/cd and \[data\]\/app\.db/ })
  t.match(end.error, /failed in \[scratch\]:/, 'the scratch dir in the thrown text')
  t.match(end.warning, /^wrote \[scratch\]\/part\.mp4$/)
  for (const text of [end.error, end.warning, end.stage]) t.notMatch(String(text), dataDir, 'no DATA_DIR path')
})
