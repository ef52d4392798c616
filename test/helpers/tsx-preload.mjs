// Preloaded into every tap test process by `npm test` (scripts/test.mjs puts it in
// NODE_OPTIONS, whose --import runs before tap's own). tap 21 compiles each test
// process's TypeScript with ts-node, uncached: about 4 s of CPU per test file,
// a third of the suite. tsx (esbuild, with its on-disk cache) does the same work
// in a fraction of that. @tapjs/typescript skips ts-node when TAP_TYPE_STRIP_ONLY
// is 1 at the moment its import runs; on Node 20 tap's runner resets that
// variable to 0 for its children, so it is set here, in the test process itself.
import { register } from 'node:module'

if (process.env.TAP_CHILD_ID !== undefined) {
  process.env.TAP_TYPE_STRIP_ONLY = '1'
  // TypeBox from the run's bundle, and tap's unused mock and processinfo hooks left out (test-process-hooks.mjs).
  const skipUnusedTapHooks = process.env.TEST_TAP_HOOKS !== 'all'
  register(new URL('./test-process-hooks.mjs', import.meta.url), { data: { typeboxDir: process.env.TEST_TYPEBOX_BUNDLE || null, skipUnusedTapHooks } })
  await import('tsx')
  // Programs a test starts (a server under `node --import tsx`, Node 22 for the MCP
  // conformance suite) bring their own loader: they do not inherit this one, nor
  // tap's processinfo hook (the runner puts it in NODE_OPTIONS for coverage).
  const dropped = skipUnusedTapHooks ? ['tsx-preload.mjs', '@tapjs/processinfo'] : ['tsx-preload.mjs']
  process.env.NODE_OPTIONS = (process.env.NODE_OPTIONS ?? '').split(' ').filter(o => !dropped.some(name => o.includes(name))).join(' ')
}
