// ctx.exec's guard: argument arrays, caps, the process group killed on timeout
// and abort, a missing binary, the child's environment. The programs are mapped
// to /bin/sh, /bin/echo and /usr/bin/env through their settings, as an operator would.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { randomInt } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { FileTooLargeError, InputError, ToolConfigError, UpstreamError } from '../../core/tools/contract.ts'
import { limitHit, POLL_MS, type RunFileBudget } from '../../core/exec/sandbox.ts'
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
  t.type(error, InputError, 'offline, the time went on the input: the caller\'s cost, not refunded')
  t.match(error.message, /ffmpeg took longer than 2 s on this input and was stopped/)
  t.ok(await eventually(() => processesWith(marker).length === 0), 'no orphan left')
})

t.test('a run with the network past its time limit is an upstream failure (a slow host), refunded', async t => {
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' } })
  const error = await exec.forJob(new AbortController().signal, log).run('ffmpeg', ['-c', 'sleep 30'], { timeoutMs: 1000, network: true, cwd: tempDir(t) }).catch(e => e)
  t.type(error, UpstreamError)
  t.notOk(error instanceof InputError)
  t.match(error.message, /ffmpeg ran longer than 1 s and was stopped/)
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
  // MALLOC_ARENA_MAX: the kernel's, so ffmpeg's threads fit RLIMIT_AS (core/exec/sandbox.ts).
  t.same(names, ['HOME', 'LANG', 'LC_ALL', 'MALLOC_ARENA_MAX', 'PATH'], 'only the allow-listed variables')
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

// ---------------------------------------------------------------- the kernel's limits (core/exec/sandbox.ts)

const MB = 1024 * 1024

/** A job's file caps as the job runner gives them, over `scratch`, with `stored` bytes of files already kept. */
const budget = (scratch: string, caps: { file: number, job: number, stored?: number }): RunFileBudget => ({
  maxFileBytes: caps.file,
  maxJobBytes: caps.job,
  scratchDir: async () => scratch,
  storedBytes: async () => caps.stored ?? 0,
  describe: { file: `the ${caps.file}-byte limit of one file of the test tier`, job: `the ${caps.job}-byte limit of the test tier` },
})

/** Bytes of the files under `dir`. */
const bytesUnder = (dir: string): number => readdirSync(dir, { withFileTypes: true, recursive: true })
  .filter(e => e.isFile()).reduce((sum, e) => sum + statSync(join(e.parentPath ?? e.path, e.name)).size, 0)

/** A one-second 320×240 clip, made by ffmpeg directly (the runner's guard admits no generated input). */
function smallClip (dir: string): string {
  const path = join(dir, 'clip.mp4')
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', path])
  return path
}

t.test('every run is wrapped: the program runs under the CPU, address-space, file-size and core limits, in place', async t => {
  const scratch = tempDir(t)
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' }, cpuSeconds: 7, memoryMb: 700 })
  const runner = exec.forJob(new AbortController().signal, log, { files: budget(scratch, { file: 3 * MB, job: 10 * MB }) })
  // The shell reads its own limits and command line: setpriv and prlimit exec'd in place, so the pid is the program's.
  const result = await runner.run('ffmpeg', ['-c', 'cat /proc/$$/limits; tr "\\0" " " < /proc/$$/cmdline'])
  t.equal(result.exitCode, 0, result.stderr)
  const limit = (name: string) => new RegExp(`^${name}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(result.stdout)?.slice(1, 3)
  t.same(limit('Max cpu time'), ['7', '9'], 'RLIMIT_CPU: EXEC_CPU_SECONDS, SIGKILL 2 s later')
  t.same(limit('Max address space'), [String(700 * MB), String(700 * MB)], 'RLIMIT_AS: EXEC_MEMORY_MB')
  t.same(limit('Max file size'), [String(3 * MB), String(3 * MB)], "RLIMIT_FSIZE: the tier's max_file_mb")
  t.same(limit('Max core file size'), ['0', '0'], 'no core file')
  t.match(result.stdout, /\/bin\/sh -c cat \/proc/, 'the command line is the program\'s own')
  t.notMatch(result.stdout, /setpriv|prlimit/)
  t.equal(runner.available('ffmpeg'), true)
})

t.test('without setpriv or prlimit no program runs: a boot warning, and the run fails naming util-linux, refunded', async t => {
  const empty = tempDir(t)
  const lines: string[] = []
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' }, childPath: empty })
  const warn = (exec as unknown as { deps: { logger: { warn: (...a: unknown[]) => void } } }).deps.logger
  warn.warn = (...a: unknown[]) => { lines.push(JSON.stringify(a)) }
  exec.warnMissing()
  t.ok(lines.some(l => /setpriv or prlimit/.test(l)), 'boot warned')
  const runner = exec.forJob(new AbortController().signal, log)
  t.equal(runner.available('ffmpeg'), false, 'the program is not available without its limits')
  const error = await runner.run('ffmpeg', ['-c', 'echo ran']).catch(e => e)
  t.type(error, ToolConfigError)
  t.equal(error.refund, true)
  t.match(error.message, /setpriv and prlimit/)
})

t.test('past RLIMIT_CPU the run is an input error, not refunded: a program that dies of SIGXCPU, and ffmpeg, which catches it', async t => {
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' }, cpuSeconds: 1 })
  const error = await exec.forJob(new AbortController().signal, log).run('ffmpeg', ['-c', 'while :; do :; done']).catch(e => e)
  t.type(error, InputError)
  t.equal(error.refund, false)
  t.match(error.message, /ffmpeg used more than the 1 s of CPU time one run may take/)

  const dir = tempDir(t)
  const clip = smallClip(dir)
  const real = execService(t, { cpuSeconds: 1 })
  // The clip decoded and upscaled for ever: only the CPU limit ends it (ffmpeg exits 255 on SIGXCPU, or 123, or is killed).
  const looped = await real.exec.forJob(new AbortController().signal, log, { localRoots: [dir] })
    .run('ffmpeg', ['-v', 'error', '-stream_loop', '-1', '-i', clip, '-vf', 'scale=1920:1080', '-f', 'null', '-'], { cwd: dir }).catch(e => e)
  t.type(looped, InputError, looped instanceof Error ? String(looped) : JSON.stringify(looped))
  t.match(looped.message, /CPU time/)
})

t.test('a run whose last CPU sample is old (the event loop was held up) is read by what it could have used since', async t => {
  const limits = { cpuSeconds: 1, addressSpaceBytes: 1024 * 1024 * 1024, fileBytes: null }
  const early = { cpuSeconds: 0.2, peakAddressBytes: 100 * 1024 * 1024 }
  t.equal(limitHit({ code: 255, signal: null }, '', early, limits, 2, POLL_MS), null, 'a sample one poll old that is far from the limit: not the limit')
  t.equal(limitHit({ code: 255, signal: null }, '', early, limits, 2, POLL_MS, 2000), 'cpu', 'ffmpeg\'s 255 (it caught SIGXCPU) two seconds after a sample: the limit')
  t.equal(limitHit({ code: null, signal: 'SIGKILL' }, '', null, limits, 2, POLL_MS, 3000), 'cpu', 'killed at the hard limit with no sample at all')
  t.equal(limitHit({ code: 1, signal: null }, '', early, limits, 2, POLL_MS, 2000), null, 'an ordinary failure exit is not read as a limit')
  t.equal(limitHit({ code: null, signal: 'SIGSEGV' }, 'Cannot allocate memory', early, limits, 2, POLL_MS, 2000), 'memory', 'what the text says comes first')
})

t.test('past RLIMIT_FSIZE (the largest file) the run fails with FileTooLargeError, not refunded', async t => {
  const scratch = tempDir(t)
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' } })
  const runner = exec.forJob(new AbortController().signal, log, { files: budget(scratch, { file: 100_000, job: 10 * MB }) })
  const error = await runner.run('ffmpeg', ['-c', 'head -c 300000 /dev/zero > big'], { cwd: scratch }).catch(e => e)
  t.type(error, FileTooLargeError)
  t.equal(error.refund, false)
  t.match(error.message, /ffmpeg wrote a file larger than the 100000-byte limit of one file of the test tier/)
  t.equal(statSync(join(scratch, 'big')).size, 100_000, 'the kernel cut the file at the limit')

  const dir = tempDir(t)
  const clip = smallClip(dir)
  const real = execService(t)
  const frames = await real.exec.forJob(new AbortController().signal, log, { localRoots: [dir], files: budget(dir, { file: 20_000, job: 100 * MB }) })
    .run('ffmpeg', ['-v', 'error', '-i', clip, '-vf', 'scale=1920:1080', '-frames:v', '1', '-c:v', 'png', '-f', 'image2', '-update', '1', join(dir, 'frame.png')], { cwd: dir }).catch(e => e)
  t.type(frames, FileTooLargeError, String(frames))
})

t.test("past the job's file budget (scratch + stored files) the group is killed and the run fails with FileTooLargeError", async t => {
  const scratch = tempDir(t)
  const { exec } = execService(t, { programs: { ffmpeg: '/bin/sh' } })
  const marker = uniqueSleep()
  // 1 MB for the job, 600 KB of it already stored: the shell's files in the scratch may take 400 KB more.
  const runner = exec.forJob(new AbortController().signal, log, { files: budget(scratch, { file: 200_000, job: MB, stored: 600 * 1024 }) })
  const run = runner.run('ffmpeg', ['-c', `${marker} & i=0; while :; do head -c 100000 /dev/zero > part-$i; i=$((i+1)); done`], { cwd: scratch })
  const error = await run.catch(e => e)
  t.type(error, FileTooLargeError)
  t.equal(error.refund, false)
  t.match(error.message, /ffmpeg wrote more than the job's files may hold \(the 1048576-byte limit of the test tier\) and was stopped/)
  t.ok(bytesUnder(scratch) > 400 * 1024, 'it was stopped once past the room left')
  t.ok(await eventually(() => processesWith(marker).length === 0), 'its whole group is gone')

  // ffmpeg writing frames for ever (a looped clip) into a subfolder of the job's scratch.
  const dir = tempDir(t)
  const clip = smallClip(dir)
  const out = join(dir, 'frames')
  execFileSync('mkdir', [out])
  const real = execService(t)
  const frames = await real.exec.forJob(new AbortController().signal, log, { localRoots: [dir], files: budget(dir, { file: MB, job: 3 * MB }) })
    .run('ffmpeg', ['-v', 'error', '-stream_loop', '-1', '-i', clip, '-c:v', 'png', '-f', 'image2', join(out, 'f-%06d.png')], { cwd: out }).catch(e => e)
  t.type(frames, FileTooLargeError, String(frames))
})

t.test('out of address space (RLIMIT_AS) the run is an input error, not refunded', async t => {
  const dir = tempDir(t)
  const clip = smallClip(dir)
  const { exec } = execService(t, { memoryMb: 512 })
  // A 16000×16000 frame needs more than 512 MB.
  const error = await exec.forJob(new AbortController().signal, log, { localRoots: [dir] })
    .run('ffmpeg', ['-v', 'error', '-i', clip, '-vf', 'scale=16000:16000', '-frames:v', '1', '-f', 'null', '-'], { cwd: dir }).catch(e => e)
  t.type(error, InputError, String(error))
  t.equal(error.refund, false)
  t.match(error.message, /ffmpeg needed more than the 512 MB of memory one run may take/)
})
