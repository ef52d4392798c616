// Module resolve hook registered by tsx-preload.mjs in every tap test process, before
// tap's own `--import`s are loaded: it answers two of them with an empty module.
//
// - @tapjs/mock's import registers hooks that send every module resolution and load
//   to the main thread and back (a random id and a message each way), so that
//   t.mockImport can swap modules. No test uses t.mockImport.
// - @tapjs/processinfo's import registers a hook that posts the text of every loaded
//   file to the main thread, which measures its line lengths, for coverage (disabled:
//   package.json's `tap`) and `tap --changed`.
//
// With some 1,100 modules an app's test loads, the two cost ≈ 1 s of CPU per test
// file (scripts/bench/README.md, "The test suite"). `TEST_TAP_HOOKS=all` keeps them
// (tsx-preload.mjs then does not register this file).
const UNUSED = ['/@tapjs/mock/dist/esm/import.mjs', '/@tapjs/processinfo/dist/esm/import.mjs']

export async function resolve (specifier, context, next) {
  if (UNUSED.some(path => specifier.endsWith(path))) return { url: 'data:text/javascript,export{}', shortCircuit: true }
  return next(specifier, context)
}
