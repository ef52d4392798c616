// The Node flags of a child process a test starts on the source tree's TypeScript
// (a `-e` script importing core/ or plugins/ modules): the test processes' own
// loader, as `npm test` gives them (test/helpers/ts-load.mjs, the esbuild load hook
// and its cache in .cache/ts/), or tsx under TEST_LOADER=tsx, as there. A child
// does not inherit its test process's loader: tsx-preload.mjs takes itself out of
// NODE_OPTIONS for the programs a test starts. The service itself is started from
// its build instead (service-build.ts).
import { fileURLToPath } from 'node:url'

const TS_LOAD = fileURLToPath(new URL('./ts-load.mjs', import.meta.url))

/** `--import` of this run's TypeScript loader, to put before a child's script or `-e`. */
export function sourceLoaderFlags (): string[] {
  return ['--import', process.env.TEST_LOADER === 'tsx' ? 'tsx' : TS_LOAD]
}
