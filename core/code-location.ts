// Where the service's code and files are. The same source runs two ways: from
// TypeScript under tsx (tests, `npm run dev`), and compiled into dist/ by
// scripts/build.mjs (`npm start`). Code finds code next to itself either way
// (the build keeps the source layout), but the files that are not code (the
// migrations under prisma/, package.json) stay in the repository root, above
// the compiled copy.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** True when this process runs compiled JavaScript (dist/), not TypeScript. */
const COMPILED = import.meta.url.endsWith('.js')

/** The suffix of the service's own modules in this process: a plugin's `index.ts`, or `index.js` compiled. */
export const CODE_EXTENSION = COMPILED ? '.js' : '.ts'

/** The directory holding core/ and plugins/ as this process runs them: the repository, or dist/. */
const CODE_ROOT = dirname(dirname(fileURLToPath(import.meta.url)))

/**
 * The repository root (package.json, prisma/, tools.config.json): the code root
 * itself under tsx; for compiled code the nearest directory above it that holds
 * package.json (dist/ sits in the root; a test's build may sit deeper).
 */
export const SERVICE_ROOT = COMPILED ? packageRootAbove(CODE_ROOT) : CODE_ROOT

function packageRootAbove (dir: string): string {
  for (let at = dirname(dir); ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) return at
    if (dirname(at) === at) throw new Error(`no package.json above the compiled code in ${dir}: the build must sit inside the service's directory`)
  }
}
