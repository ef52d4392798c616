// ctx.exec: runs yt-dlp, ffmpeg and ffprobe for a job, guarded. See README.md.
//
// - argument arrays only: spawn with shell: false, so `;`, `$(…)`, `|` in a user
//   value are bytes of one argument, never syntax;
// - the binary from its setting (YTDLP_PATH …), checked before each run: a
//   missing one fails fast with ToolConfigError naming the variable (refunded);
// - an environment of its own (PATH, LANG, TZ, HOME = a private empty directory,
//   the proxy variables): nothing of the server's environment, where credentials live;
// - its own process group (detached), killed whole (SIGTERM, a short grace,
//   SIGKILL) on the job's signal (cancel, timeout, shutdown), on the run's time
//   limit and, for stragglers, as soon as the program itself exits: no orphan;
// - network only through the egress proxy (egress-proxy.ts), with a token minted
//   for this run and passed in the environment (argv is readable by every local user);
// - inputs opened as media only (media-inputs.ts): an http(s) URL with network
//   protocols, or a file of the job's own with container demuxers only;
// - stdout captured up to a cap (or streamed to the caller), stderr's tail kept,
//   with the server's paths (binary, home, cwd, the job's folders, DATA_DIR …) replaced;
// - the kernel's limits (sandbox.ts): CPU time, address space, largest file,
//   death with the server, and the job's file budget over its scratch.
import { spawn, type ChildProcess } from 'node:child_process'
import { accessSync, constants as fsConstants, realpathSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { availableParallelism, constants as osConstants, tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import type { Writable } from 'node:stream'
import type { Logger } from 'pino'
import type { ExecConfig } from '../config.ts'
import { FileTooLargeError, InputError, ToolConfigError, UpstreamError, type ExecOptions, type ExecResult, type MediaProgram, type ProcessRunner } from '../tools/contract.ts'
import type { EgressGrant, EgressProxy } from './egress-proxy.ts'
import type { ProxyChooser } from '../net/proxy-pool.ts'
import { guardMediaArgs } from './media-inputs.ts'
import { readProgramVersions, ytdlpHasJsRuntimes, YTDLP_JS_RUNTIMES_SINCE, YTDLP_STALE_DAYS, type ProgramVersions } from './program-versions.ts'
import { limitHit, POLL_MS, sampleProcess, sandboxedCommand, treeBytes, type LimitHit, type ProcessSample, type RunFileBudget, type RunLimits, type SandboxPrograms } from './sandbox.ts'

export const DEFAULT_MAX_STDOUT_BYTES = 8 * 1024 * 1024
export const DEFAULT_MAX_STDERR_BYTES = 64 * 1024
/** Between SIGTERM and SIGKILL: ffmpeg finishes its file's trailer, yt-dlp its cleanup. */
const KILL_GRACE_MS = 2000

/** The setting that names each program's binary: what a failure tells the operator to set. */
export const PROGRAM_SETTINGS: Readonly<Record<MediaProgram, string>> = {
  'yt-dlp': 'YTDLP_PATH',
  ffmpeg: 'FFMPEG_PATH',
  ffprobe: 'FFPROBE_PATH',
}

function isExecutableFile (path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

function isDirectory (path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function realOrSelf (path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/** Kills a process group; a group already gone is fine. */
function killGroup (pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/** What a job's runner may open and hide: its own folders, and the server's paths in any text. */
export interface JobScope {
  /** The only folders a local input may lie in (the job's upload and scratch); none: no local input. */
  localRoots?: readonly string[]
  /** Replaces the server's paths (DATA_DIR, the work folders …) in stderr; SecretScrubber.withoutServerPaths. */
  withoutServerPaths?: (text: string) => string
  /** The job's file caps over what its programs write (sandbox.ts); none (tests): no largest-file limit, no scratch budget. */
  files?: RunFileBudget
  /** The job's outbound proxies (its tool's `proxy` choice): the egress proxy's connections go through them; none: direct. */
  proxies?: ProxyChooser | null
}

/** One per app: resolves binaries, hands each job a ProcessRunner, and kills what is left at close. */
export class ExecService {
  /** Process groups alive now, killed at app close whatever their job does. */
  private readonly groups = new Set<number>()

  /** The programs' versions: read once, on first need (a yt-dlp start is a Python start). */
  private versionsRead: Promise<ProgramVersions> | null = null
  private versionsKnown: ProgramVersions | null = null

  constructor (private readonly deps: { config: ExecConfig, proxy: EgressProxy, logger: Logger }) {}

  /** The versions once read, and the read itself (started by the first call). */
  programVersions (): { known: ProgramVersions | null, read: Promise<ProgramVersions> } {
    this.versionsRead ??= readProgramVersions(
      { 'yt-dlp': this.resolve('yt-dlp'), ffmpeg: this.resolve('ffmpeg'), ffprobe: this.resolve('ffprobe') },
      { PATH: this.deps.config.childPath, LANG: this.deps.config.childLang, LC_ALL: this.deps.config.childLang },
      new Date(),
    ).then(versions => (this.versionsKnown = versions))
    return { known: this.versionsKnown, read: this.versionsRead }
  }

  /** Boot, after listening: a stale yt-dlp, and a JavaScript runtime this yt-dlp cannot take, are warnings. */
  async warnOutdated (): Promise<void> {
    const ytdlp = (await this.programVersions().read)['yt-dlp']
    if (ytdlp.version === null) return
    if (ytdlp.stale) {
      this.deps.logger.warn({ program: 'yt-dlp', version: ytdlp.version, released: ytdlp.released }, `yt-dlp ${ytdlp.version} is older than ${YTDLP_STALE_DAYS} days: sites change what a client must do every few weeks, so the video tools fail (often as refusals) until it is updated (README, Media programs)`)
    }
    if (this.deps.config.ytdlpJsRuntime && !ytdlpHasJsRuntimes(ytdlp.version)) {
      this.deps.logger.warn({ program: 'yt-dlp', version: ytdlp.version }, `YTDLP_JS_RUNTIME is set, but yt-dlp ${ytdlp.version} predates --js-runtimes (${YTDLP_JS_RUNTIMES_SINCE}): it is not passed on`)
    }
  }

  /** `--js-runtimes <value>` when YTDLP_JS_RUNTIME is set and this yt-dlp takes it. */
  private async jsRuntimeArgs (): Promise<string[]> {
    const runtime = this.deps.config.ytdlpJsRuntime
    if (!runtime) return []
    const ytdlp = (await this.programVersions().read)['yt-dlp']
    return ytdlpHasJsRuntimes(ytdlp.version) ? ['--js-runtimes', runtime] : []
  }

  /** The binary's absolute path, or null when the setting names nothing executable. */
  resolve (program: MediaProgram): string | null {
    return this.onPath(this.deps.config.programs[program])
  }

  private onPath (setting: string): string | null {
    if (setting.includes('/')) return isExecutableFile(setting) ? setting : null
    for (const dir of this.deps.config.childPath.split(delimiter)) {
      if (dir && isExecutableFile(join(dir, setting))) return join(dir, setting)
    }
    return null
  }

  /** util-linux's setpriv and prlimit on the children's PATH, or null: then no media program runs (README, Limits). */
  sandbox (): SandboxPrograms | null {
    const setpriv = this.onPath('setpriv')
    const prlimit = this.onPath('prlimit')
    return setpriv && prlimit ? { setpriv, prlimit } : null
  }

  /** Boot: a missing program is a warning (the tools that need it fail fast, naming the variable). */
  warnMissing (): void {
    for (const program of Object.keys(PROGRAM_SETTINGS) as MediaProgram[]) {
      if (!this.resolve(program)) {
        this.deps.logger.warn({ program, variable: PROGRAM_SETTINGS[program] }, `${program} was not found: the tools that run it will fail until it is installed or ${PROGRAM_SETTINGS[program]} names it`)
      }
    }
    if (!this.sandbox()) {
      this.deps.logger.warn({ programs: ['setpriv', 'prlimit'] }, 'setpriv or prlimit (util-linux) was not found on PATH: no media program runs without the limits they set, so the media tools will fail until util-linux is installed')
    }
  }

  /** ctx.exec for one job, bound to its signal and its folders. */
  forJob (signal: AbortSignal, log: Logger, scope: JobScope = {}): ProcessRunner {
    return {
      available: (program) => PROGRAM_SETTINGS[program] !== undefined && this.resolve(program) !== null && this.sandbox() !== null,
      run: (program, args, options) => this.run(program, args, options ?? {}, signal, log, scope),
    }
  }

  /** App close: every group still alive is killed at once. */
  close (): void {
    for (const pid of this.groups) killGroup(pid, 'SIGKILL')
    this.groups.clear()
  }

  private async run (program: MediaProgram, args: string[], options: ExecOptions, jobSignal: AbortSignal, log: Logger, scope: JobScope): Promise<ExecResult> {
    const variable = PROGRAM_SETTINGS[program]
    if (variable === undefined) throw new Error(`ctx.exec runs yt-dlp, ffmpeg or ffprobe, not ${String(program)}`)
    if (!Array.isArray(args) || args.some(a => typeof a !== 'string')) throw new TypeError('ctx.exec arguments must be an array of strings')
    // A NUL cannot be passed in an argument; it came from the caller's input.
    if (args.some(a => a.includes('\0'))) throw new InputError('A value contains a NUL character')
    jobSignal.throwIfAborted()
    const binary = this.resolve(program)
    if (!binary) throw new ToolConfigError(`${program} is not installed on this server: install it, or set ${variable} to its path`)

    const { config, proxy } = this.deps
    const positive = (value: number | undefined, fallback: number) => (value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback)
    const timeoutMs = positive(options.timeoutMs, config.timeoutMs)
    const maxStdout = positive(options.maxStdoutBytes, DEFAULT_MAX_STDOUT_BYTES)
    const maxStderr = positive(options.maxStderrBytes, DEFAULT_MAX_STDERR_BYTES)
    // Checked here: spawn would report a missing cwd as a missing binary (ENOENT).
    if (options.cwd !== undefined && !isDirectory(options.cwd)) throw new Error('ctx.exec: the working directory does not exist')
    const home = await mkdtemp(join(tmpdir(), 'exec-home-'))
    const cwd = options.cwd ?? home
    const childEnv: Record<string, string> = { PATH: config.childPath, HOME: home, LANG: config.childLang, LC_ALL: config.childLang }
    if (config.childTz) childEnv.TZ = config.childTz
    let grant: EgressGrant | null = null
    try {
      const finalArgs = guardMediaArgs(program, args, { network: options.network === true, localRoots: scope.localRoots ?? [], cwd })
      // The proxy URL carries the run's token: only in the environment, which other users cannot
      // read (/proc/<pid>/environ is the owner's), never in argv (every user's `ps` shows it).
      if (options.network) {
        grant = await proxy.grant(jobSignal, Math.min(options.maxNetworkBytes ?? config.networkMaxBytes, config.networkMaxBytes), scope.proxies ?? null)
        // yt-dlp (Python's urllib) and ffmpeg 5 read http_proxy for http:// and https_proxy (a CONNECT
        // tunnel) for https://; yt-dlp passes them on to the ffmpeg it starts.
        childEnv.http_proxy = childEnv.https_proxy = childEnv.HTTP_PROXY = childEnv.HTTPS_PROXY = grant.proxyUrl
      } else if (program === 'yt-dlp') {
        // yt-dlp has no "offline" switch: a proxy that refuses everything is one.
        childEnv.http_proxy = childEnv.https_proxy = childEnv.HTTP_PROXY = childEnv.HTTPS_PROXY = await proxy.refusingUrl()
      }
      if (program === 'yt-dlp') {
        // The ffmpeg yt-dlp merges and remuxes with is FFMPEG_PATH's (it passes its proxy on as -http_proxy).
        const ffmpeg = this.resolve('ffmpeg')
        if (ffmpeg) finalArgs.unshift('--ffmpeg-location', ffmpeg)
        finalArgs.unshift(...await this.jsRuntimeArgs())
        // No system or user config file may add options (a proxy, an exec hook) behind our back.
        finalArgs.unshift('--ignore-config')
      }
      return await this.spawnAndWait({ program, binary, args: finalArgs, env: childEnv, cwd, home, timeoutMs, maxStdout, maxStderr, stdout: options.stdout, jobSignal, grant, log, scope })
    } finally {
      grant?.revoke()
      await rm(home, { recursive: true, force: true }).catch(() => {})
    }
  }

  private async spawnAndWait (run: {
    program: MediaProgram, binary: string, args: string[], env: Record<string, string>, cwd: string, home: string
    timeoutMs: number, maxStdout: number, maxStderr: number, stdout?: NodeJS.WritableStream
    jobSignal: AbortSignal, grant: EgressGrant | null, log: Logger, scope: JobScope
  }): Promise<ExecResult> {
    const { program, binary, jobSignal, grant } = run
    const files = run.scope.files
    // Without the wrappers there are no limits: no run rather than an unbounded one (README, Limits).
    const sandbox = this.sandbox()
    if (!sandbox) throw new ToolConfigError(`${program} cannot run on this server: util-linux's setpriv and prlimit, which set its limits, are not installed`)
    const limits: RunLimits = { cpuSeconds: this.deps.config.cpuSeconds, addressSpaceBytes: this.deps.config.memoryMb * 1024 * 1024, fileBytes: files?.maxFileBytes ?? null }
    // What counts against the job's files: its scratch, and wherever else this run may write (its home, its cwd).
    const watched = files ? [await files.scratchDir(), run.home, run.cwd] : []
    const command = sandboxedCommand(sandbox, limits, binary, run.args)
    // glibc gives each thread up to 8 malloc arenas of 64 MB of address space; two keep ffmpeg's many threads well inside RLIMIT_AS.
    const env = { ...run.env, MALLOC_ARENA_MAX: '2' }
    return new Promise<ExecResult>((resolve, reject) => {
      let child: ChildProcess
      try {
        child = spawn(command.file, command.args, { cwd: run.cwd, env, detached: true, shell: false, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true })
      } catch (err) {
        reject(this.spawnFailure(program, err))
        return
      }
      const pid = child.pid
      if (pid !== undefined) this.groups.add(pid)
      let stopping: 'timeout' | 'abort' | 'stdout' | 'files' | null = null
      let stdoutError: unknown = null
      let graceTimer: NodeJS.Timeout | undefined
      const stop = (why: 'timeout' | 'abort' | 'stdout' | 'files') => {
        if (stopping || pid === undefined) return
        stopping = why
        // Past the file budget every write is one too many: no grace to finish a trailer.
        if (why === 'files') { killGroup(pid, 'SIGKILL'); return }
        killGroup(pid, 'SIGTERM')
        graceTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS)
      }
      const timer = setTimeout(() => stop('timeout'), run.timeoutMs)
      // The program's CPU and address space (to tell a limit's end from another failure) and the job's bytes, every POLL_MS.
      let lastSample: ProcessSample | null = null
      let polling = false
      let exited = false
      const poll = setInterval(() => {
        if (polling || exited || pid === undefined) return
        polling = true
        void (async () => {
          const sample = await sampleProcess(pid)
          // The highest of each: a zombie's /proc (after the exit, before it is read) shows no VmPeak.
          if (sample && !exited) lastSample = { cpuSeconds: Math.max(sample.cpuSeconds, lastSample?.cpuSeconds ?? 0), peakAddressBytes: Math.max(sample.peakAddressBytes, lastSample?.peakAddressBytes ?? 0) }
          if (files && !exited) {
            const [scratch, stored] = await Promise.all([treeBytes(watched), files.storedBytes()])
            if (scratch + stored > files.maxJobBytes && !exited) stop('files')
          }
        })().catch(err => run.log.warn({ err }, 'media run poll failed')).finally(() => { polling = false })
      }, POLL_MS)
      const onAbort = () => stop('abort')
      jobSignal.addEventListener('abort', onAbort, { once: true })
      if (jobSignal.aborted) onAbort()

      const stdoutChunks: Buffer[] = []
      let stdoutBytes = 0
      let stdoutTruncated = false
      if (run.stdout) {
        const destination = run.stdout as Writable
        child.stdout!.pipe(destination)
        destination.once('error', (err) => { stdoutError ??= err; stop('stdout') })
      } else {
        child.stdout!.on('data', (chunk: Buffer) => {
          const room = run.maxStdout - stdoutBytes
          if (room <= 0) { stdoutTruncated = true; return }
          if (chunk.length > room) stdoutTruncated = true
          const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
          stdoutChunks.push(kept)
          stdoutBytes += kept.length
        })
      }
      // The tail of stderr: the verdict is at the end.
      let stderrTail = Buffer.alloc(0)
      child.stderr!.on('data', (chunk: Buffer) => {
        stderrTail = Buffer.concat([stderrTail, chunk])
        if (stderrTail.length > run.maxStderr) stderrTail = stderrTail.subarray(stderrTail.length - run.maxStderr)
      })

      let spawnError: unknown = null
      child.once('error', (err) => { spawnError = err })
      // The program is gone: whatever it left in its group goes too, before the pipes can close.
      // A process that left the group (setsid) could hold the pipes open for ever: they are closed shortly after.
      let pipesTimer: NodeJS.Timeout | undefined
      child.once('exit', () => {
        exited = true
        clearInterval(poll)
        if (pid !== undefined) killGroup(pid, 'SIGKILL')
        pipesTimer = setTimeout(() => { child.stdout?.destroy(); child.stderr?.destroy() }, KILL_GRACE_MS)
      })
      child.once('close', (code, signal) => {
        clearTimeout(timer)
        clearTimeout(graceTimer)
        clearTimeout(pipesTimer)
        clearInterval(poll)
        jobSignal.removeEventListener('abort', onAbort)
        if (pid !== undefined) this.groups.delete(pid)
        if (spawnError) return reject(this.spawnFailure(program, spawnError))
        if (stopping === 'abort') return reject(jobSignal.reason)
        if (stopping === 'timeout') {
          // Without the network nothing upstream can be slow: the time went on the input itself
          // (its size, or what the caller asked of it), which is the caller's cost, not refunded.
          if (!grant) return reject(new InputError(`${program} took longer than ${Math.round(run.timeoutMs / 1000)} s on this input and was stopped: ask for less of it (fewer or smaller frames, a shorter part)`))
          return reject(new UpstreamError(`${program} ran longer than ${Math.round(run.timeoutMs / 1000)} s and was stopped`))
        }
        if (stopping === 'stdout') return reject(stdoutError)
        if (stopping === 'files' && files) return reject(new FileTooLargeError(`${program} wrote more than the job's files may hold (${files.describe.job}) and was stopped.`, files.maxJobBytes))
        const exitCode = code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0)
        const stderrText = stderrTail.toString('utf8')
        // prlimit could not exec the binary (gone or not executable since it was resolved).
        if ((exitCode === 126 || exitCode === 127) && stderrText.includes('prlimit: failed to execute ')) {
          return reject(this.spawnFailure(program, { code: exitCode === 127 ? 'ENOENT' : 'EACCES' }))
        }
        if (grant?.capExceeded) return reject(new UpstreamError(`${program} moved more than the ${grant.maxBytes}-byte network limit of one run and was cut off`))
        // The run failed after the guard refused a target: that refusal is what it means.
        if (exitCode !== 0 && grant && grant.refused.length > 0) return reject(grant.refused[0])
        const hit = limitHit({ code, signal }, stderrText, lastSample, limits, availableParallelism(), POLL_MS)
        if (hit) return reject(this.limitFailure(program, hit, limits, files))
        run.log.debug({ program, exitCode, stdoutBytes }, 'media program finished')
        resolve({
          exitCode,
          stdout: Buffer.concat(stdoutChunks).toString('utf8'),
          stderr: this.withoutPaths(stderrTail.toString('utf8'), run),
          stdoutTruncated,
        })
      })
    })
  }

  /**
   * A run a kernel limit ended: the input's own size or cost, so the caller's
   * (not refunded), like a file past the tier's cap.
   */
  private limitFailure (program: MediaProgram, hit: LimitHit, limits: RunLimits, files: RunFileBudget | undefined): Error {
    if (hit === 'cpu') return new InputError(`${program} used more than the ${limits.cpuSeconds} s of CPU time one run may take on this server and was stopped: this input costs too much to process.`)
    if (hit === 'memory') return new InputError(`${program} needed more than the ${Math.round(limits.addressSpaceBytes / 1024 / 1024)} MB of memory one run may take on this server and was stopped: this input is too large to process.`)
    const limit = files ? files.describe.file : `${limits.fileBytes ?? 0}-byte file limit`
    return new FileTooLargeError(`${program} wrote a file larger than ${limit} and was stopped; it was not kept.`, limits.fileBytes ?? 0)
  }

  /** A spawn that failed (the binary vanished, is not executable): the operator's to fix. */
  private spawnFailure (program: MediaProgram, err: unknown): Error {
    const code = (err as NodeJS.ErrnoException)?.code
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOEXEC') {
      return new ToolConfigError(`${program} cannot be started on this server (${code}): check ${PROGRAM_SETTINGS[program]}`)
    }
    return new ToolConfigError(`${program} cannot be started on this server: check ${PROGRAM_SETTINGS[program]}`)
  }

  /**
   * stderr names the binary, its home and working directory, the job's files
   * (an input is passed by its real path) and DATA_DIR's: none of them is the
   * caller's business.
   */
  private withoutPaths (text: string, run: { program: MediaProgram, binary: string, cwd: string, home: string, scope: JobScope }): string {
    let out = text
    for (const [path, label] of [[run.home, '~'], [run.cwd, '.'], [run.binary, run.program]] as const) {
      if (path.length > 1) out = out.split(path).join(label)
    }
    if (run.scope.withoutServerPaths) out = run.scope.withoutServerPaths(out)
    for (const root of run.scope.localRoots ?? []) {
      for (const path of new Set([root, realOrSelf(root)])) if (path.length > 1) out = out.split(path).join('[job]')
    }
    return out
  }
}
