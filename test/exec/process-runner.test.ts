// ctx.exec's guard: argument arrays, caps, the process group killed on timeout
// and abort, a missing binary, the child's environment. The programs are mapped
// to /bin/sh, /bin/echo and /usr/bin/env through their settings, as an operator would.
import t from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { randomInt } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { InputError, ToolConfigError, UpstreamError } from '../../core/tools/contract.ts'
import { tempDir } from '../helpers/build.ts'
import { eventually, execService, processesWith } from './_exec.ts'

/** A sleep whose command line is unique to this test, to find it in the process table. */
const uniqueSleep = () => `sleep ${4000 + randomInt(1000)}.${randomInt(100000, 999999)}`

t.test('arguments are an array: shell metacharacters are inert', async t => {
  const dir = tempDir(t)
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/echo' } })
  const hostile = [`a; touch ${join(dir, 'pwned')}`, '$(touch pwned2)', '`touch pwned3`', '| cat /etc/passwd', '&& id', "'quoted' \"double\"", '*']
  const result = await exec.forJob(new AbortController().signal, (await import('pino')).default({ level: 'silent' })).run('ffmpeg', hostile, { cwd: dir })
  t.equal(result.exitCode, 0)
  t.equal(result.stdout, hostile.join(' ') + '\n', 'each value arrived as one literal argument')
  t.notOk(existsSync(join(dir, 'pwned')) || existsSync(join(dir, 'pwned2')) || existsSync(join(dir, 'pwned3')), 'nothing ran')
})

t.test('non-string and NUL arguments are refused before anything runs', async t => {
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/echo' } })
  const runner = exec.forJob(new AbortController().signal, (await import('pino')).default({ level: 'silent' }))
  await t.rejects(runner.run('ffmpeg', [1 as unknown as string]), TypeError)
  await t.rejects(runner.run('ffmpeg', ['a\0b']), InputError)
  await t.rejects(runner.run('sh' as never, ['-c', 'id']), /yt-dlp, ffmpeg or ffprobe/)
})

const log = (await import('pino')).default({ level: 'silent' })

t.test('a run past its time limit is stopped, its children too', async t => {
  const marker = uniqueSleep()
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' } })
  const runner = exec.forJob(new AbortController().signal, log)
  const dir = tempDir(t)
  const run = runner.run('ffmpeg', ['-c', `${marker} & ${marker} & touch started; wait`], { timeoutMs: 1500, cwd: dir })
  t.ok(await eventually(() => existsSync(join(dir, 'started'))), 'the children started')
  // `started` is touched once both are forked, not once both have exec'd sleep: on a loaded machine one may still be a shell.
  t.ok(await eventually(() => processesWith(marker).length === 2), 'two children in the process table')
  const error = await run.catch(e => e)
  t.type(error, UpstreamError)
  t.match(error.message, /ffmpeg ran longer than 2 s and was stopped/)
  t.ok(await eventually(() => processesWith(marker).length === 0), 'no orphan left')
})

t.test("the job's signal kills the whole process group (sh ignores SIGTERM: SIGKILL follows)", async t => {
  const marker = uniqueSleep()
  const dir = tempDir(t)
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' } })
  const job = new AbortController()
  const runner = exec.forJob(job.signal, log)
  const run = runner.run('ffmpeg', ['-c', `trap '' TERM; ${marker} & ${marker} & touch started; wait; wait`], { cwd: dir })
  t.ok(await eventually(() => existsSync(join(dir, 'started'))), 'the children started')
  t.ok(await eventually(() => processesWith(marker).length === 2), 'two children in the process table')
  const reason = new Error('cancelled')
  job.abort(reason)
  await t.rejects(run, reason, "the run rejects with the signal's reason")
  t.ok(await eventually(() => processesWith(marker).length === 0), 'no orphan left')
  // A run on an aborted signal never starts.
  await t.rejects(runner.run('ffmpeg', ['-c', 'true']), reason)
})

t.test('what the program leaves behind in its group dies with it', async t => {
  const marker = uniqueSleep()
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' } })
  const result = await exec.forJob(new AbortController().signal, log).run('ffmpeg', ['-c', `${marker} > /dev/null 2>&1 & echo left`])
  t.equal(result.exitCode, 0)
  t.equal(result.stdout, 'left\n')
  t.ok(await eventually(() => processesWith(marker).length === 0), 'the background child was killed')
})

t.test('stdout is capped, stderr keeps its tail, exit codes come back', async t => {
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' } })
  const runner = exec.forJob(new AbortController().signal, log)
  const big = await runner.run('ffmpeg', ['-c', 'head -c 300000 /dev/zero | tr "\\0" x; exit 3'], { maxStdoutBytes: 1000 })
  t.equal(big.stdout.length, 1000)
  t.equal(big.stdoutTruncated, true)
  t.equal(big.exitCode, 3)
  const noisy = await runner.run('ffmpeg', ['-c', 'i=0; while [ $i -lt 3000 ]; do echo "line $i" >&2; i=$((i+1)); done'], { maxStderrBytes: 200 })
  t.ok(noisy.stderr.length <= 200)
  t.match(noisy.stderr, /line 2999\n$/, 'the last lines are kept')
  t.equal(noisy.stdoutTruncated, false)
})

t.test('stdout can be streamed to the caller', async t => {
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' } })
  const sink = new PassThrough()
  const chunks: Buffer[] = []
  sink.on('data', (c: Buffer) => chunks.push(c))
  const result = await exec.forJob(new AbortController().signal, log).run('ffmpeg', ['-c', 'head -c 50000 /dev/zero'], { stdout: sink })
  t.equal(result.stdout, '')
  t.equal(Buffer.concat(chunks).length, 50000)
})

t.test('a missing binary fails fast, naming the variable and no path', async t => {
  const { exec } = execService(t, { programs: { 'yt-dlp': '/nonexistent/dir/yt-dlp', ffprobe: 'no-such-program-here' } })
  const runner = exec.forJob(new AbortController().signal, log)
  t.equal(runner.available('yt-dlp'), false)
  t.equal(runner.available('ffprobe'), false)
  const error = await runner.run('yt-dlp', ['--version']).catch(e => e)
  t.type(error, ToolConfigError)
  t.equal(error.refund, true, 'refunded')
  t.equal(error.needsOperator, true)
  t.match(error.message, /YTDLP_PATH/)
  t.notMatch(error.message, /nonexistent/)
  await t.rejects(runner.run('ffprobe', ['-version']), { message: /FFPROBE_PATH/ })
})

t.test('the child gets an environment of its own: no secret of the server', async t => {
  process.env.H4_TEST_SECRET = 'sk-live-should-not-leak'
  t.teardown(() => { delete process.env.H4_TEST_SECRET })
  const { exec } = execService(t, { programs: { ffmpeg: '/usr/bin/env', ffprobe: '/usr/bin/env' } })
  const runner = exec.forJob(new AbortController().signal, log)
  // env -0: NUL-separated, so a value with a newline cannot pass for a variable.
  const offline = await runner.run('ffmpeg', ['-0'])
  t.notMatch(offline.stdout, /should-not-leak|H4_TEST_SECRET/)
  // tap's process-info hook patches spawn to add its own variables (and its loader in NODE_OPTIONS) to every child.
  const names = offline.stdout.split('\0').filter(Boolean).map(l => l.split('=')[0]).filter(n => !/^(_TAPJS_|NODE_OPTIONS$)/.test(n)).sort()
  t.same(names, ['HOME', 'LANG', 'LC_ALL', 'PATH'], 'only the allow-listed variables')
  t.match(offline.stdout, /(^|\0)HOME=\/[^\0]*exec-home-/, 'HOME is a private directory')
  const online = await runner.run('ffprobe', [], { network: true })
  t.match(online.stdout, /^http_proxy=http:\/\/run:[\w-]+@127\.0\.0\.1:\d+$/m, 'the proxy variables, with a run token')
  t.match(online.stdout, /^https_proxy=/m)
})

t.test("stderr does not show the server's paths", async t => {
  const dir = tempDir(t)
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' } })
  const result = await exec.forJob(new AbortController().signal, log).run('ffmpeg', ['-c', 'echo "$HOME" >&2; pwd >&2; echo "$0" >&2'], { cwd: dir })
  t.notMatch(result.stderr, new RegExp(dir))
  t.notMatch(result.stderr, /exec-home-|\/bin\/sh/)
  t.match(result.stderr, /^~\n\.\nffmpeg\n$/)
})
