// What a program run for a job may open (README.md, "Inputs"): the mechanism
// every program profile's guard checks its inputs through. The profile knows
// which of its program's arguments are inputs; the kernel decides whether an
// input may be opened:
//
// - an http(s) URL, only on a run with `network: true` (its bytes then go
//   through the egress proxy, the same policy as ctx.http);
// - a file inside the job's own folders (`localRoots`: its upload and
//   scratch), by its real path, so a symlink out of them is refused.
//
// Anything else (`concat:`, `subfile:`, `pipe:`, `-`, a path elsewhere) is an
// InputError naming no path.
import { realpathSync } from 'node:fs'
import { isAbsolute, resolve, sep } from 'node:path'
import { InputError } from '../tools/contract/outcomes.ts'
import type { MediaInputs } from '../tools/contract/programs.ts'

const REFUSED_INPUT = 'The media input must be an http(s) URL or a file of this job'

export interface InputScope {
  network: boolean
  /** The job's own folders (its upload and scratch); none: no local file may be opened. */
  localRoots: readonly string[]
  /** A relative input is resolved against the run's working directory, as the program would. */
  cwd: string
}

/** The input checker a profile's guard gets for one run. */
export function mediaInputs (scope: InputScope): MediaInputs {
  return {
    network: scope.network,
    open (input) {
      if (/^https?:\/\//i.test(input)) {
        // A plugin bug: without a proxy the program would open its own socket.
        if (!scope.network) throw new Error('ctx.exec: an http(s) input needs network: true')
        return { url: input }
      }
      return { path: localInput(input, scope) }
    },
  }
}

/** The real path of a local input, if it lies inside one of the job's folders. */
function localInput (input: string, scope: InputScope): string {
  // `file:` is the one scheme a local input may carry (the program strips it and opens the rest as a path).
  const path = input.replace(/^file:/i, '')
  // Any other scheme-like prefix (concat:, subfile:, pipe:, data:, a URL of another kind) is refused, not guessed at.
  if (path === '' || /^[a-z][a-z0-9+.-]*:/i.test(path) || path === '-') throw new InputError(REFUSED_INPUT)
  const absolute = isAbsolute(path) ? resolve(path) : resolve(scope.cwd, path)
  const real = realOrSelf(absolute)
  const inside = scope.localRoots.some(root => {
    const r = realOrSelf(resolve(root))
    return real === r || real.startsWith(r.endsWith(sep) ? r : r + sep)
  })
  if (!inside) throw new InputError(REFUSED_INPUT)
  return real
}

function realOrSelf (path: string): string {
  try {
    return realpathSync(path)
  } catch {
    // A file that does not exist: the program will say so; it still has to lie inside the roots.
    return path
  }
}
