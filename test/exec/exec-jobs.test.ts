// ctx.exec through real jobs: a cancel, the job's time limit and a shutdown
// each leave no child process behind; a missing binary warns at boot and fails
// the job fast, refunded, naming the variable and no path. And the server
// killed outright (SIGKILL, in a real `npm start` child process): its ffmpeg
// dies with it (setpriv --pdeathsig), having run under the kernel's limits.
import t, { type Test } from 'tap'
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import { randomInt } from 'node:crypto'
import { build, freshDatabaseUrl, signup, tempDir } from '../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../helpers/jobs.ts'
import { scrape, valueOf, type Sample } from '../helpers/metrics.ts'
import { prepareServiceBuild, serviceBuild, serviceCommand, serviceEnvironment } from '../helpers/service-build.ts'
import { eventually, hasProgram, processesWith } from './_exec.ts'

// The orphan test starts the compiled service: built (or awaited) while the other tests run.
prepareServiceBuild()

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
  t.match(del.json(), { status: 'cancelled', error: 'cancelled', refunded: true })
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

t.test('media_program_runs_total counts each run by program and exit; media_program_cpu_seconds_total the CPU it used', async t => {
  // A yt-dlp that resolves but cannot be executed (its interpreter is missing): prlimit's exec fails, the program never starts.
  const unstartable = join(tempDir(t), 'yt-dlp')
  writeFileSync(unstartable, '#!/nonexistent/interpreter\n')
  chmodSync(unstartable, 0o755)
  const app = await buildApp(t, { FFPROBE_PATH: '/bin/sh', YTDLP_PATH: unstartable })
  const user = await signup(app)
  const run = async (program: string, script: string) => {
    const res = await startJob(app, user.apiKey, { program, args: ['-c', script] }, 'exec_probe')
    t.equal(res.statusCode, 202, res.body)
    return res.json().job_id as string
  }
  const exitOf = async (id: string) => (await app.inject({ url: `/api/tool-run/${id}/results`, headers: { 'x-api-key': user.apiKey } })).json().results[0]?.exit_code
  const before = await scrape(app)
  const delta = (after: Sample[], name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels)

  // Busy on shell builtins (no child) until its own /proc stat shows 0.3 s of CPU: several POLL_MS samples see it.
  const busy = await run('ffmpeg', 'while :; do read -r s < /proc/$$/stat; set -- ${s##*) }; [ $(( ${12} + ${13} )) -ge 30 ] && exit 0; done')
  t.match(await waitForEnd(app, user.apiKey, busy), { status: 'done' })
  t.equal(await exitOf(busy), 0, 'ffmpeg exited 0')
  const failed = await run('ffmpeg', 'exit 3')
  t.match(await waitForEnd(app, user.apiKey, failed), { status: 'done' })
  t.equal(await exitOf(failed), 3, 'ffmpeg exited 3')
  const probe = await run('ffprobe', 'exit 0')
  t.match(await waitForEnd(app, user.apiKey, probe), { status: 'done' })
  const never = await run('yt-dlp', 'exit 0')
  t.match(await waitForEnd(app, user.apiKey, never), { status: 'error', error: /yt-dlp cannot be started on this server/ })
  // Stopped by us: the job cancelled while its ffmpeg runs.
  const marker = uniqueSleep()
  const cancelled = await run('ffmpeg', `${marker} & wait`)
  t.ok(await eventually(() => processesWith(marker).length === 1, 10_000), 'the child runs')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/tool-run/${cancelled}`, headers: { 'x-api-key': user.apiKey } })).statusCode, 200)
  // The run is counted when its process group has closed its pipes, a moment after the cancel answered.
  const deadline = Date.now() + 10_000
  let after = await scrape(app)
  while (delta(after, 'media_program_runs_total', { program: 'ffmpeg', exit: 'stopped' }) === 0 && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 20))
    after = await scrape(app)
  }

  const runs = (program: string, exit?: string) => delta(after, 'media_program_runs_total', exit ? { program, exit } : { program })
  t.same({ ok: runs('ffmpeg', 'ok'), failed: runs('ffmpeg', 'failed'), stopped: runs('ffmpeg', 'stopped'), 'not-started': runs('ffmpeg', 'not-started') },
    { ok: 1, failed: 1, stopped: 1, 'not-started': 0 }, 'ffmpeg: each run once, under its exit')
  t.equal(runs('ffmpeg'), 3, 'ffmpeg: three runs in all')
  t.equal(runs('ffprobe', 'ok'), 1, 'ffprobe: its run under its own name')
  t.equal(runs('ffprobe'), 1, 'ffprobe: one run in all')
  t.equal(runs('yt-dlp', 'not-started'), 1, 'yt-dlp: the run that could not start, as not started')
  t.equal(runs('yt-dlp'), 1, 'yt-dlp: one run in all')
  const cpu = (program: string) => delta(after, 'media_program_cpu_seconds_total', { program })
  t.ok(cpu('ffmpeg') > 0, `ffmpeg's CPU time counted (${cpu('ffmpeg')} s)`)
  // About 0.3 s (the busy run's, as last sampled): seconds, not /proc's ticks (30 of them).
  t.ok(cpu('ffmpeg') < 5, 'no more CPU than the runs could use')
  t.equal(cpu('yt-dlp'), 0, 'yt-dlp: no CPU time')
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

/** Live processes (not zombies) whose parent is `ppid`: pid and command line, from the process table. */
function childrenOf (ppid: number): Array<{ pid: number, args: string }> {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' })
  return out.split('\n').map(line => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line)).filter(m => m !== null)
    .filter(m => Number(m[2]) === ppid && !m[3].startsWith('Z')).map(m => ({ pid: Number(m[1]), args: m[4] }))
}

/** Whether a process is alive (a zombie is not: it only waits to be read). */
function isAlive (pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return false
  }
}

t.test('SIGKILL of the server: the ffmpeg of its running job dies with it, and ran under the kernel limits', { skip: hasProgram('ffmpeg') ? false : 'ffmpeg is not installed' }, async t => {
  const dataDir = tempDir(t)
  const port = await new Promise<number>((ok) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => ok(p)) })
  })
  const build = await serviceBuild()
  const server = serviceCommand(build, 'start')
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: await freshDatabaseUrl(t, dataDir),
    SECRET_KEY: 'orphan-test-secret-0123456789',
    TOOLS_CONFIG,
    LOG_LEVEL: 'silent',
    PORT: String(port),
    HOST: '127.0.0.1',
  }
  const child = spawn(server.command[0]!, server.command.slice(1), { env: serviceEnvironment(build, server, env), stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', d => { stderr += d })
  const exited = once(child, 'exit')
  let ffmpegPid = 0
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) { child.kill('SIGKILL'); await exited }
    // Never leave an orphan behind, whatever the assertions said.
    if (ffmpegPid && isAlive(ffmpegPid)) process.kill(ffmpegPid, 'SIGKILL')
  })
  const base = `http://127.0.0.1:${port}`
  const up = await (async () => {
    // The deadline only turns a server that never starts into a readable failure.
    for (let i = 0; i < 600 && child.exitCode === null; i++) {
      try { if ((await fetch(`${base}/api/health`)).ok) return true } catch {}
      await new Promise(r => setTimeout(r, 100))
    }
    return false
  })()
  t.ok(up, `the server started ${stderr}`)
  const call = async (path: string, body: unknown, key?: string) => {
    const res = await fetch(base + path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) } })
    return { status: res.status, body: await res.json() as any }
  }
  const account = await call('/api/auth/signup', { email: 'orphan@example.com', password: 'long enough password' })
  const key = account.body.user.api_key as string

  // A 1 s clip, looped for ever at its own pace (-re): ffmpeg runs until something stops it.
  const clipDir = tempDir(t)
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=10', '-c:v', 'mpeg4', '-f', 'mp4', join(clipDir, 'clip.mp4')])
  const clip = readFileSync(join(clipDir, 'clip.mp4')).toString('base64')
  const start = await call('/api/tool-run', { tool: 'exec_probe', params: { program: 'ffmpeg', args: ['-v', 'error', '-re', '-stream_loop', '-1', '-i', '{scratch}/input.mp4', '-f', 'null', '-'], scratch_file: clip } }, key)
  t.equal(start.status, 202, JSON.stringify(start.body))

  t.ok(await eventually(() => {
    // setpriv and prlimit hold the same pid (and ffmpeg's words in their argv) until the last exec: only ffmpeg's own argv counts.
    ffmpegPid = childrenOf(child.pid!).find(p => /^\S*\bffmpeg\s/.test(p.args) && p.args.includes('input.mp4'))?.pid ?? 0
    return ffmpegPid !== 0
  }, 60_000), 'the job started ffmpeg, a child of the server')
  // Exec'd in place through setpriv and prlimit: the server's child is ffmpeg itself, under the kernel's limits.
  const limits = readFileSync(`/proc/${ffmpegPid}/limits`, 'utf8')
  t.match(limits, /^Max cpu time\s+900\s+902\s/m, 'RLIMIT_CPU: EXEC_CPU_SECONDS')
  t.match(limits, new RegExp(`^Max file size\\s+${100 * 1024 * 1024}\\s`, 'm'), "RLIMIT_FSIZE: the registered tier's max_file_mb")
  t.match(limits, new RegExp(`^Max address space\\s+${2048 * 1024 * 1024}\\s`, 'm'), 'RLIMIT_AS: EXEC_MEMORY_MB')

  child.kill('SIGKILL')
  await exited
  // No shutdown hook ran: only the parent-death signal can have stopped ffmpeg.
  t.ok(await eventually(() => !isAlive(ffmpegPid), 2000), 'no ffmpeg of the server is alive 2 s after its SIGKILL')
})
