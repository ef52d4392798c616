// A server process killed mid-job (SIGKILL: no shutdown hook runs) and started
// again on the same data: the running job ends as error, refunded, with its rows
// so far readable; the queued job is resumed; counters survive. The server is
// `npm start`'s command on this run's build of the source (test/helpers/service-build.ts).
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { freshDatabaseUrl, tempDir } from '../helpers/build.ts'
import { TEST_TOOLS_CONFIG } from '../helpers/jobs.ts'
import { prepareServiceBuild, serviceBuild, serviceCommand, serviceEnvironment } from '../helpers/service-build.ts'

// The server starts from a build of the source: made (or awaited) while the database is prepared.
prepareServiceBuild()

const freePort = () => new Promise<number>((ok) => {
  const s = createServer()
  s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => ok(p)) })
})

async function startServer (env: Record<string, string>): Promise<{ child: ChildProcess, base: string }> {
  const port = await freePort()
  const build = await serviceBuild()
  const server = serviceCommand(build, 'start')
  const child = spawn(server.command[0]!, server.command.slice(1), { env: serviceEnvironment(build, server, { ...env, PORT: String(port), HOST: '127.0.0.1' }), stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', d => { stderr += d })
  const base = `http://127.0.0.1:${port}`
  // Up to a minute: a loaded machine (a cold start under tsx took 20 s there; the first call may also build the service).
  for (let i = 0; i < 600; i++) {
    try { if ((await fetch(`${base}/api/health`)).ok) return { child, base } } catch {}
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`)
    await new Promise(r => setTimeout(r, 100))
  }
  throw new Error(`server did not start: ${stderr}`)
}

t.test('kill -9 mid-job, restart: nothing stays running, nothing finished is lost', async t => {
  const dataDir = tempDir(t)
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: await freshDatabaseUrl(t, dataDir),
    SECRET_KEY: 'crash-test-secret-0123456789',
    TOOLS_CONFIG: TEST_TOOLS_CONFIG,
    LOG_LEVEL: 'silent',
    JOB_CONCURRENCY: '1',
    JOB_HEARTBEAT_MS: '200',
    JOB_SWEEP_INTERVAL_MS: '200',
  }
  let server = await startServer(env)
  t.teardown(() => { server.child.kill('SIGKILL') })
  const call = async (path: string, init: RequestInit = {}, key?: string) => {
    const res = await fetch(server.base + path, { ...init, headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) } })
    return { status: res.status, body: await res.json() as any }
  }
  const signup = await call('/api/auth/signup', { method: 'POST', body: JSON.stringify({ email: 'crash@example.com', password: 'long enough password' }) })
  const key = signup.body.user.api_key as string
  const finished = await call('/api/tool-run', { method: 'POST', body: JSON.stringify({ tool: 'counter', params: { max_results: 2 } }) }, key)
  for (let i = 0; i < 100 && (await call(`/api/tool-run/${finished.body.job_id}/status`, {}, key)).body.status === 'running'; i++) await new Promise(r => setTimeout(r, 50))
  const slow = await call('/api/tool-run', { method: 'POST', body: JSON.stringify({ tool: 'counter', params: { max_results: 50, delay_ms: 100 } }) }, key)
  const queued = await call('/api/tool-run', { method: 'POST', body: JSON.stringify({ tool: 'counter', params: { max_results: 3 } }) }, key)
  for (let i = 0; i < 100; i++) {
    const s = await call(`/api/tool-run/${slow.body.job_id}/status`, {}, key)
    if (s.body.records >= 3) break
    await new Promise(r => setTimeout(r, 50))
  }
  t.equal((await call(`/api/tool-run/${queued.body.job_id}/status`, {}, key)).body.stage, 'queued')

  server.child.kill('SIGKILL')
  await new Promise(r => server.child.once('exit', r))
  server = await startServer(env)

  let slowStatus: any
  for (let i = 0; i < 100; i++) {
    slowStatus = (await call(`/api/tool-run/${slow.body.job_id}/status`, {}, key)).body
    if (slowStatus.status !== 'running') break
    await new Promise(r => setTimeout(r, 100))
  }
  t.match(slowStatus, { status: 'error', refunded: true }, 'the interrupted job ended as error, refunded')
  t.ok(slowStatus.records >= 3, 'its rows so far were kept')
  const rows = await call(`/api/tool-run/${slow.body.job_id}/results`, {}, key)
  t.equal(rows.status, 200)
  t.equal(rows.body.count, slowStatus.records)

  let queuedStatus: any
  for (let i = 0; i < 100; i++) {
    queuedStatus = (await call(`/api/tool-run/${queued.body.job_id}/status`, {}, key)).body
    if (queuedStatus.status !== 'running') break
    await new Promise(r => setTimeout(r, 100))
  }
  t.match(queuedStatus, { status: 'done', records: 3 }, 'the queued job was resumed and finished')
  t.match((await call(`/api/tool-run/${finished.body.job_id}/results`, {}, key)).body, { count: 2 }, 'the finished job is intact')
  const me = await call('/api/auth/me', {}, key)
  t.equal(me.body.usage.calls_today, 2, 'three charges, one refunded')
})
