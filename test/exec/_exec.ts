// A process runner and egress proxy built directly (no app), for the exec tests.
import { execFileSync } from 'node:child_process'
import pino from 'pino'
import type { ExecConfig } from '../../core/config.ts'
import { EgressProxy } from '../../core/exec/egress-proxy.ts'
import { ExecService } from '../../core/exec/process-runner.ts'
import { createNetworkPolicy, type HostLookup } from '../../core/net/network-policy.ts'
import { MEDIA_PROGRAMS } from '../../plugins/lib/media/programs.ts'
import { disabledMetrics } from '../../core/metrics/metrics.ts'

interface Teardown { teardown (fn: () => unknown): void }

export interface ExecSetup {
  /** A binary per program (its profile's setting: YTDLP_PATH …), by program name. */
  programs?: Partial<Record<'yt-dlp' | 'ffmpeg' | 'ffprobe', string>>
  timeoutMs?: number
  networkMaxBytes?: number
  cpuSeconds?: number
  memoryMb?: number
  /** The children's PATH (where setpriv and prlimit are looked up too). */
  childPath?: string
  allowedTargets?: string[]
  lookup?: HostLookup
  ytdlpJsRuntime?: string
}

export function execService (t: Teardown, setup: ExecSetup = {}): { exec: ExecService, proxy: EgressProxy } {
  const policy = createNetworkPolicy({ allowPrivateTargets: false, allowedTargets: setup.allowedTargets })
  const logger = pino({ level: 'silent' })
  const proxy = new EgressProxy({ policy, lookup: setup.lookup ?? (async () => { throw Object.assign(new Error('no DNS in tests'), { code: 'ENOTFOUND' }) }), logger })
  const config: ExecConfig = {
    // What the media programs' profiles read: their binaries' settings, and the JavaScript runtime.
    settings: {
      ...Object.fromEntries(MEDIA_PROGRAMS.map(profile => [profile.binarySetting, setup.programs?.[profile.name as 'yt-dlp'] ?? profile.name])),
      YTDLP_JS_RUNTIME: setup.ytdlpJsRuntime,
    },
    timeoutMs: setup.timeoutMs ?? 60_000,
    networkMaxBytes: setup.networkMaxBytes ?? 1024 ** 3,
    cpuSeconds: setup.cpuSeconds ?? 900,
    memoryMb: setup.memoryMb ?? 2048,
    childPath: setup.childPath ?? '/usr/local/bin:/usr/bin:/bin',
    childLang: 'C.UTF-8',
    childTz: null,
  }
  const exec = new ExecService({ config, proxy, logger, programs: MEDIA_PROGRAMS, metrics: disabledMetrics() })
  t.teardown(async () => { exec.close(); await proxy.close() })
  return { exec, proxy }
}

/** Live processes whose command line is exactly `command` (the process table, as `ps` shows it). */
export function processesWith (command: string): string[] {
  const out = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
  return out.split('\n').map(line => /^\s*(\S+)\s+(.*)$/.exec(line)).filter(m => m !== null)
    // Zombies (Z) are dead already, waiting for their parent to read them.
    .filter(m => m[2] === command && !m[1].startsWith('Z')).map(m => m[2])
}

/** Waits until `check` is true, polling (for a process table to settle after a kill). */
export async function eventually (check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (check()) return true
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  return check()
}

export const hasProgram = (name: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
