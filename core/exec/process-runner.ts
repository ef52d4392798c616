// ctx.exec: runs the programs tools declare (ProgramProfile) for a job, guarded. See README.md.
//
// - argument arrays only: spawn with shell: false, so `;`, `$(…)`, `|` in a user
//   value are bytes of one argument, never syntax;
// - only a program an enabled tool declares (its profile), and for a job only
//   the programs its own tool declares;
// - the binary from the setting its profile names, checked before each run: a
//   missing one fails fast with ToolConfigError naming the variable (refunded);
// - an environment of its own (PATH, LANG, TZ, HOME = a private empty directory,
//   the proxy variables): nothing of the server's environment, where credentials live;
// - its own process group (detached), killed whole (SIGTERM, a short grace,
//   SIGKILL) on the job's signal (cancel, timeout, shutdown), on the run's time
//   limit and, for stragglers, as soon as the program itself exits: no orphan;
// - network only through the egress proxy (egress-proxy.ts), with a token minted
//   for this run and passed in the environment (argv is readable by every local user);
// - the profile's guard before every spawn, its inputs checked by the kernel
//   (media-inputs.ts): an http(s) URL with the network, or a file of the job's own;
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
import type { ExecOptions, ExecResult, ProcessRunner } from '../tools/contract/context.ts'
import { FileTooLargeError, InputError, ToolConfigError, UpstreamError } from '../tools/contract/outcomes.ts'
import type { ProgramProfile } from '../tools/contract/programs.ts'
import type { EgressGrant, EgressProxy } from './egress-proxy.ts'
import { mediaInputs } from './media-inputs.ts'
import { readProgramVersions, type ProgramVersions } from './program-versions.ts'
import type { Metrics, ProgramExit } from '../metrics/metrics.ts'
import { inSpan } from '../telemetry/tracing.ts'
import type { ProxyChooser } from '../net/proxy-pool.ts'
import { limitHit, POLL_MS, sampleProcess, sandboxedCommand, treeBytes, type LimitHit, type ProcessSample, type RunFileBudget, type RunLimits, type SandboxPrograms } from './sandbox.ts'

export const DEFAULT_MAX_STDOUT_BYTES = 8 * 1024 * 1024
export const DEFAULT_MAX_STDERR_BYTES = 64 * 1024
/** Between SIGTERM and SIGKILL: time for a program to finish its file's trailer, or its cleanup. */
const KILL_GRACE_MS = 2000

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
  /** The programs the job's tool declares: no other runs for it. Unset (tests): every registered program. */
  programs?: readonly string[]
  /** The job's outbound proxies (its tool's `proxy` choice): the egress proxy's connections go through them; none: direct. */
  proxies?: ProxyChooser | null
}

/** One per app: resolves binaries, hands each job a ProcessRunner, and kills what is left at close. */
export class ExecService {
  /** Process groups alive now, killed at app close whatever their job does. */
  private readonly groups = new Set<number>()
  /** The programs the enabled tools declare, by name: nothing else runs. */
  private readonly profiles = new Map<string, ProgramProfile>()

  /** The programs' versions: read once, on first need (a program's start may be a Python start). */
  private versionsRead: Promise<ProgramVersions> | null = null
  private versionsKnown: ProgramVersions | null = null

  constructor (private readonly deps: { config: ExecConfig, proxy: EgressProxy, logger: Logger, programs: readonly ProgramProfile[], metrics: Pick<Metrics, 'programRuns' | 'programCpuSeconds'> }) {
    for (const profile of deps.programs) this.profiles.set(profile.name, profile)
  }

  /** An operator's setting (an environment variable), trimmed; undefined when unset or blank. */
  private setting (name: string): string | undefined {
    return this.deps.config.settings[name]?.trim() || undefined
  }

  /** The versions once read, and the read itself (started by the first call). */
  programVersions (): { known: ProgramVersions | null, read: Promise<ProgramVersions> } {
    if (!this.versionsRead) {
      const profiles = [...this.profiles.values()]
      this.versionsRead = readProgramVersions(
        profiles,
        Object.fromEntries(profiles.map(profile => [profile.name, this.binaryOf(profile)])),
        { PATH: this.deps.config.childPath, LANG: this.deps.config.childLang, LC_ALL: this.deps.config.childLang },
        new Date(),
      ).then(versions => (this.versionsKnown = versions))
    }
    return { known: this.versionsKnown, read: this.versionsRead }
  }

  /** Boot, after listening: a stale program, and what its profile finds wrong with its version, are warnings. */
  async warnOutdated (): Promise<void> {
    const versions = await this.programVersions().read
    for (const profile of this.profiles.values()) {
      const { version, released, stale } = versions[profile.name] ?? { version: null }
      if (version === null) continue
      if (stale) {
        this.deps.logger.warn({ program: profile.name, version, released }, `${profile.name} ${version} is older than ${profile.version.staleAfterDays ?? 0} days: ${profile.version.staleWarning ?? 'update it'}`)
      }
      for (const warning of profile.bootWarnings?.(version, name => this.setting(name)) ?? []) {
        this.deps.logger.warn({ program: profile.name, version }, warning)
      }
    }
  }

  /** What the profile puts before the guarded arguments, with the version as read once. */
  private async leadingArgs (profile: ProgramProfile): Promise<string[]> {
    if (!profile.leadingArgs) return []
    const version = (await this.programVersions().read)[profile.name]?.version ?? null
    return profile.leadingArgs({ version, setting: name => this.setting(name), binaryOf: other => this.binaryOf(other) })
  }

  /** A registered program's absolute path, or null when it is not registered or its setting names nothing executable. */
  resolve (program: string): string | null {
    const profile = this.profiles.get(program)
    return profile ? this.binaryOf(profile) : null
  }

  /** The binary a profile resolves to: its setting, else its name, on the children's PATH. */
  private binaryOf (profile: ProgramProfile): string | null {
    return this.onPath(this.setting(profile.binarySetting) ?? profile.name)
  }

  private onPath (setting: string): string | null {
    if (setting.includes('/')) return isExecutableFile(setting) ? setting : null
    for (const dir of this.deps.config.childPath.split(delimiter)) {
      if (dir && isExecutableFile(join(dir, setting))) return join(dir, setting)
    }
    return null
  }

  /** util-linux's setpriv and prlimit on the children's PATH, or null: then no program runs (README, Limits). */
  sandbox (): SandboxPrograms | null {
    const setpriv = this.onPath('setpriv')
    const prlimit = this.onPath('prlimit')
    return setpriv && prlimit ? { setpriv, prlimit } : null
  }

  /** Boot: a missing program is a warning (the tools that need it fail fast, naming the variable). */
  warnMissing (): void {
    for (const profile of this.profiles.values()) {
      if (!this.binaryOf(profile)) {
        this.deps.logger.warn({ program: profile.name, variable: profile.binarySetting }, `${profile.name} was not found: the tools that run it will fail until it is installed or ${profile.binarySetting} names it`)
      }
    }
    if (this.profiles.size > 0 && !this.sandbox()) {
      this.deps.logger.warn({ programs: ['setpriv', 'prlimit'] }, 'setpriv or prlimit (util-linux) was not found on PATH: no program runs without the limits they set, so the tools that run one will fail until util-linux is installed')
    }
  }

  /** ctx.exec for one job, bound to its signal and its folders. */
  forJob (signal: AbortSignal, log: Logger, scope: JobScope = {}): ProcessRunner {
    const allowed = (program: string) => this.profiles.has(program) && (scope.programs === undefined || scope.programs.includes(program))
    return {
      available: (program) => allowed(program) && this.resolve(program) !== null && this.sandbox() !== null,
      run: (program, args, options) => {
        // A plugin bug: a program its tool does not declare (or no enabled tool does).
        if (!allowed(program)) {
          const declared = [...this.profiles.keys()].filter(allowed)
          const named = declared.length > 1 ? `${declared.slice(0, -1).join(', ')} or ${declared.at(-1)}` : (declared[0] ?? 'none')
          return Promise.reject(new Error(`ctx.exec runs the programs its tool declares in \`programs\` (${named}), not ${String(program)}`))
        }
        return this.run(this.profiles.get(program)!, args, options ?? {}, signal, log, scope)
      },
    }
  }

  /** App close: every group still alive is killed at once. */
  close (): void {
    for (const pid of this.groups) killGroup(pid, 'SIGKILL')
    this.groups.clear()
  }

  private async run (profile: ProgramProfile, args: string[], options: ExecOptions, jobSignal: AbortSignal, log: Logger, scope: JobScope): Promise<ExecResult> {
    const { name: program, binarySetting: variable } = profile
    if (!Array.isArray(args) || args.some(a => typeof a !== 'string')) throw new TypeError('ctx.exec arguments must be an array of strings')
    // A NUL cannot be passed in an argument; it came from the caller's input.
    if (args.some(a => a.includes('\0'))) throw new InputError('A value contains a NUL character')
    jobSignal.throwIfAborted()
    const binary = this.binaryOf(profile)
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
      // The profile's guard, before anything starts: its inputs checked by the kernel, its whitelists added.
      const guarded = profile.guard(args, mediaInputs({ network: options.network === true, localRoots: scope.localRoots ?? [], cwd }))
      // The proxy URL carries the run's token: only in the environment, which other users cannot
      // read (/proc/<pid>/environ is the owner's), never in argv (every user's `ps` shows it).
      if (options.network) {
        grant = await proxy.grant(jobSignal, Math.min(options.maxNetworkBytes ?? config.networkMaxBytes, config.networkMaxBytes), scope.proxies ?? null)
        // The usual variables: http_proxy for http://, https_proxy (a CONNECT tunnel) for https://,
        // both cases; a program passes them on to the programs it starts.
        childEnv.http_proxy = childEnv.https_proxy = childEnv.HTTP_PROXY = childEnv.HTTPS_PROXY = grant.proxyUrl
      } else if (profile.offline === 'refusing-proxy') {
        childEnv.http_proxy = childEnv.https_proxy = childEnv.HTTP_PROXY = childEnv.HTTPS_PROXY = await proxy.refusingUrl()
      }
      const finalArgs = [...await this.leadingArgs(profile), ...guarded]
      const runArgs = { program, variable, binary, args: finalArgs, env: childEnv, cwd, home, timeoutMs, maxStdout, maxStderr, stdout: options.stdout, jobSignal, grant, log, scope }
      return await inSpan(`media ${program}`, { 'media.program': program, 'media.network': grant !== null }, () => this.spawnAndWait(runArgs))
    } finally {
      grant?.revoke()
      await rm(home, { recursive: true, force: true }).catch(() => {})
    }
  }

  private async spawnAndWait (run: {
    program: string, variable: string, binary: string, args: string[], env: Record<string, string>, cwd: string, home: string
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
    // glibc gives each thread up to 8 malloc arenas of 64 MB of address space; two keep a many-threaded decoder well inside RLIMIT_AS.
    const env = { ...run.env, MALLOC_ARENA_MAX: '2' }
    return new Promise<ExecResult>((resolve, reject) => {
      let child: ChildProcess
      try {
        child = spawn(command.file, command.args, { cwd: run.cwd, env, detached: true, shell: false, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true })
      } catch (err) {
        this.countRun(program, 'not-started', null)
        reject(this.spawnFailure(program, run.variable, err))
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
      // When the last sample's read began, and how long before the exit that was: what no sample saw (limitHit).
      let sampledAt = performance.now()
      let unseenMs = POLL_MS
      let polling = false
      let exited = false
      const poll = setInterval(() => {
        if (polling || exited || pid === undefined) return
        polling = true
        void (async () => {
          const readAt = performance.now()
          const sample = await sampleProcess(pid)
          // The highest of each: a zombie's /proc (after the exit, before it is read) shows no VmPeak.
          if (sample && !exited) {
            lastSample = { cpuSeconds: Math.max(sample.cpuSeconds, lastSample?.cpuSeconds ?? 0), peakAddressBytes: Math.max(sample.peakAddressBytes, lastSample?.peakAddressBytes ?? 0) }
            sampledAt = readAt
          }
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
        unseenMs = performance.now() - sampledAt
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
        const exitCode = code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0)
        const stderrText = stderrTail.toString('utf8')
        // prlimit could not exec the binary (gone or not executable since it was resolved): the program never started.
        const unstarted = !stopping && (exitCode === 126 || exitCode === 127) && stderrText.includes('prlimit: failed to execute ')
        this.countRun(program, spawnError || unstarted ? 'not-started' : stopping ? 'stopped' : code === 0 ? 'ok' : 'failed', lastSample)
        if (spawnError) return reject(this.spawnFailure(program, run.variable, spawnError))
        if (stopping === 'abort') return reject(jobSignal.reason)
        if (stopping === 'timeout') {
          // Without the network nothing upstream can be slow: the time went on the input itself
          // (its size, or what the caller asked of it), which is the caller's cost, not refunded.
          if (!grant) return reject(new InputError(`${program} took longer than ${Math.round(run.timeoutMs / 1000)} s on this input and was stopped: ask for less of it (fewer or smaller frames, a shorter part)`))
          return reject(new UpstreamError(`${program} ran longer than ${Math.round(run.timeoutMs / 1000)} s and was stopped`))
        }
        if (stopping === 'stdout') return reject(stdoutError)
        if (stopping === 'files' && files) return reject(new FileTooLargeError(`${program} wrote more than the job's files may hold (${files.describe.job}) and was stopped.`, files.maxJobBytes))
        if (unstarted) return reject(this.spawnFailure(program, run.variable, { code: exitCode === 127 ? 'ENOENT' : 'EACCES' }))
        if (grant?.capExceeded) return reject(new UpstreamError(`${program} moved more than the ${grant.maxBytes}-byte network limit of one run and was cut off`))
        // The run failed after the guard refused a target: that refusal is what it means.
        if (exitCode !== 0 && grant && grant.refused.length > 0) return reject(grant.refused[0])
        const hit = limitHit({ code, signal }, stderrText, lastSample, limits, availableParallelism(), POLL_MS, unseenMs)
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
  private limitFailure (program: string, hit: LimitHit, limits: RunLimits, files: RunFileBudget | undefined): Error {
    if (hit === 'cpu') return new InputError(`${program} used more than the ${limits.cpuSeconds} s of CPU time one run may take on this server and was stopped: this input costs too much to process.`)
    if (hit === 'memory') return new InputError(`${program} needed more than the ${Math.round(limits.addressSpaceBytes / 1024 / 1024)} MB of memory one run may take on this server and was stopped: this input is too large to process.`)
    const limit = files ? files.describe.file : `${limits.fileBytes ?? 0}-byte file limit`
    return new FileTooLargeError(`${program} wrote a file larger than ${limit} and was stopped; it was not kept.`, limits.fileBytes ?? 0)
  }

  /** media_program_runs_total and its CPU time (the last sample taken while it ran: POLL_MS apart, so a short run may show none). */
  private countRun (program: string, exit: ProgramExit, sample: ProcessSample | null): void {
    this.deps.metrics.programRuns.inc({ program, exit })
    if (sample && sample.cpuSeconds > 0) this.deps.metrics.programCpuSeconds.inc({ program }, sample.cpuSeconds)
  }

  /** A spawn that failed (the binary vanished, is not executable): the operator's to fix. */
  private spawnFailure (program: string, variable: string, err: unknown): Error {
    const code = (err as NodeJS.ErrnoException)?.code
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOEXEC') {
      return new ToolConfigError(`${program} cannot be started on this server (${code}): check ${variable}`)
    }
    return new ToolConfigError(`${program} cannot be started on this server: check ${variable}`)
  }

  /**
   * stderr names the binary, its home and working directory, the job's files
   * (an input is passed by its real path) and DATA_DIR's: none of them is the
   * caller's business.
   */
  private withoutPaths (text: string, run: { program: string, binary: string, cwd: string, home: string, scope: JobScope }): string {
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
