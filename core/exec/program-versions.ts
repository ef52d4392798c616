// The programs' versions, for the operator: a program that follows the sites
// it reads must be kept current, and an old one fails in ways that look like
// the sites' refusals. Each profile says how its version is printed and, when
// it is a release date, how old is too old. Read once per process, off the
// request path (a program's start may cost ~0.3 s of CPU), and reported by the
// health route; a stale program is a boot warning.
import { execFile } from 'node:child_process'
import type { ProgramProfile, ProgramVersion } from '../tools/contract/programs.ts'

const VERSION_TIMEOUT_MS = 10_000

/** Each registered program's version, by its name. */
export type ProgramVersions = Record<string, ProgramVersion>

/** Whole days from a release date to now. */
export function ageInDays (released: string, now: Date): number {
  return Math.floor((now.getTime() - Date.parse(`${released}T00:00:00Z`)) / 86_400_000)
}

function firstLineOf (binary: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise(resolve => {
    execFile(binary, [...args], { timeout: VERSION_TIMEOUT_MS, env, maxBuffer: 64 * 1024 }, (err, stdout) => {
      resolve(err ? null : (String(stdout).split('\n')[0]?.trim() || null))
    })
  })
}

/** One program's version: what it printed, and for a dated one its release date and staleness. */
async function readVersion (profile: ProgramProfile, binary: string | null, env: NodeJS.ProcessEnv, now: Date): Promise<ProgramVersion> {
  const line = binary ? await firstLineOf(binary, profile.version.args, env) : null
  const version = line && (profile.version.parse(line) ?? line)
  const { releasedOn, staleAfterDays } = profile.version
  if (!releasedOn) return { version }
  const released = version ? releasedOn(version) : null
  return { version, released, stale: released === null || staleAfterDays === undefined ? null : ageInDays(released, now) > staleAfterDays }
}

/**
 * Runs each program's version command (the binaries as ExecService resolves
 * them, by name; null: not installed). The environment is the children's own
 * (PATH, LANG), never the server's.
 */
export async function readProgramVersions (profiles: readonly ProgramProfile[], binaries: Readonly<Record<string, string | null>>, env: NodeJS.ProcessEnv, now: Date): Promise<ProgramVersions> {
  const versions = await Promise.all(profiles.map(profile => readVersion(profile, binaries[profile.name] ?? null, env, now)))
  return Object.fromEntries(profiles.map((profile, i) => [profile.name, versions[i]]))
}
