// The kernel's limits on every media run (README.md, "Limits"): util-linux's
// `setpriv --pdeathsig KILL` (the program dies with the server, however the
// server dies) and `prlimit` (CPU seconds, address space, largest file, no
// core file) wrap the binary, both exec'ing in place, so the program keeps the
// pid, the process group and the command line the runner gave it. While it
// runs, the runner samples its CPU time and address space (/proc) and the
// bytes of the job's scratch, and reads the exit: did a limit end it?
import { readdir, readFile, lstat } from 'node:fs/promises'
import { join } from 'node:path'

export interface RunLimits {
  /** RLIMIT_CPU soft limit (SIGXCPU); the hard one (SIGKILL) follows CPU_HARD_GRACE_SECONDS later. */
  cpuSeconds: number
  /** RLIMIT_AS. */
  addressSpaceBytes: number
  /** RLIMIT_FSIZE (SIGXFSZ past it); null: no limit (a run outside a job). */
  fileBytes: number | null
}

/** The two util-linux programs, resolved like the media programs. */
export interface SandboxPrograms { setpriv: string, prlimit: string }

/** Between SIGXCPU (which ffmpeg catches to end its file cleanly) and the kernel's SIGKILL. */
export const CPU_HARD_GRACE_SECONDS = 2

/**
 * The argv that runs `binary args` under the limits. `--` ends each wrapper's
 * options, so nothing of the program's arguments is read by them.
 */
export function sandboxedCommand (programs: SandboxPrograms, limits: RunLimits, binary: string, args: readonly string[]): { file: string, args: string[] } {
  return {
    file: programs.setpriv,
    args: [
      '--pdeathsig', 'KILL', '--',
      programs.prlimit,
      `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + CPU_HARD_GRACE_SECONDS}`,
      `--as=${limits.addressSpaceBytes}`,
      `--fsize=${limits.fileBytes ?? 'unlimited'}`,
      // SIGXCPU and SIGXFSZ dump core by default: no core file of a hostile run lands in the scratch.
      '--core=0',
      '--',
      binary, ...args,
    ],
  }
}

/** What /proc says of a live process: CPU seconds of all its threads, and the most address space it has reserved. */
export interface ProcessSample { cpuSeconds: number, peakAddressBytes: number }

// /proc reports CPU in USER_HZ ticks, fixed at 100 by the kernel's ABI on every architecture Node runs on.
const USER_HZ = 100

/** One sample, or null when the process is gone (or /proc is not Linux's). */
export async function sampleProcess (pid: number): Promise<ProcessSample | null> {
  try {
    const [stat, status] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile(`/proc/${pid}/status`, 'utf8')])
    // The command name (2nd field) may hold spaces and parentheses: the fields are counted after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name and state.
    const ticks = Number(fields[11]) + Number(fields[12])
    const peak = /^VmPeak:\s+(\d+)\s+kB/m.exec(status)
    if (!Number.isFinite(ticks)) return null
    return { cpuSeconds: ticks / USER_HZ, peakAddressBytes: peak ? Number(peak[1]) * 1024 : 0 }
  } catch {
    return null
  }
}

/**
 * Bytes of the regular files under `dirs` (their apparent size, as artifacts
 * are counted), each directory walked once even when one holds another; a
 * missing directory, or a file removed during the walk, counts 0.
 */
export async function treeBytes (dirs: readonly string[]): Promise<number> {
  const roots = [...new Set(dirs)].filter((dir, _, all) => !all.some(other => other !== dir && dir.startsWith(other + '/')))
  let total = 0
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) await walk(path)
      else if (entry.isFile()) total += (await lstat(path).catch(() => null))?.size ?? 0
    }
  }
  for (const root of roots) await walk(root)
  return total
}

export type LimitHit = 'cpu' | 'memory' | 'file'

/**
 * Which limit, if any, ended a run that exited on its own. The signal says so
 * when the program left it unhandled (SIGXCPU, SIGXFSZ); ffmpeg catches
 * SIGXCPU and exits 255 (123 after more of them), and a failed allocation is
 * only a message: then the last /proc sample (taken about one poll before
 * the exit, during which `cores` threads may add `pollMs` each) and the text decide.
 * `unseenMs` is how long before the exit that sample was begun (from the spawn when
 * there is none): when this process's event loop was held up it can be many polls.
 */
export function limitHit (exit: { code: number | null, signal: NodeJS.Signals | null }, stderr: string, last: ProcessSample | null, limits: RunLimits, cores: number, pollMs: number, unseenMs = pollMs): LimitHit | null {
  if (exit.code === 0) return null
  if (exit.signal === 'SIGXCPU') return 'cpu'
  if (exit.signal === 'SIGXFSZ' || /File too large|File size limit exceeded/i.test(stderr)) return 'file'
  const slack = Math.max(0.5, (cores * pollMs * 2) / 1000)
  if (last && last.cpuSeconds >= limits.cpuSeconds - slack) return 'cpu'
  if (/Cannot allocate memory|failed to map segment|out of memory|MemoryError|std::bad_alloc/i.test(stderr)) return 'memory'
  if (last && last.peakAddressBytes >= limits.addressSpaceBytes * 0.9) return 'memory'
  // No sample saw the end (the samples were held up): a program that ended as a signal ends it
  // (killed, or 128 + n, as ffmpeg's 255 after catching SIGXCPU), which the runner did not send,
  // and that could have used the rest of its CPU time while no sample looked, hit the CPU limit.
  const signalled = exit.signal !== null || (exit.code ?? 0) >= 128
  if (signalled && (last?.cpuSeconds ?? 0) + (cores * unseenMs) / 1000 >= limits.cpuSeconds - slack) return 'cpu'
  return null
}

/**
 * A job's file caps as ctx.exec holds a run to them (built by the job runner
 * from the job's tier): every file the program writes is cut at
 * `maxFileBytes` (RLIMIT_FSIZE); the bytes under the job's scratch, the run's
 * home and its working directory, plus the job's stored files, may not pass
 * `maxJobBytes`: the runner checks every POLL_MS and kills the group past it.
 */
export interface RunFileBudget {
  maxFileBytes: number
  maxJobBytes: number
  /** The job's scratch directory (made if need be). */
  scratchDir (): Promise<string>
  /** Bytes the job's stored files take now, writes under way included (ArtifactService.storedBytes). */
  storedBytes (): Promise<number>
  /** How each limit reads in an error: "the 100 MB limit of one file of the registered tier". */
  describe: { file: string, job: string }
}

/** How often a running program's CPU, address space and scratch bytes are looked at. */
export const POLL_MS = 100
