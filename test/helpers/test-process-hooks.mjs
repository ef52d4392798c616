// Module resolve hooks that tsx-preload.mjs registers in every tap test process,
// before tap's own `--import`s load (scripts/bench/README.md, "The test suite",
// has the measurements):
//
// - TypeBox: `typebox` 1.x ships one file per function, 683 ES modules that each
//   cross to the loader-hooks thread and back to load (≈ 2 s of CPU for a file that
//   builds an app). scripts/test.mjs bundles the installed package at the start of
//   the run (esbuild, every entry point of its `exports`, shared chunks, so it is
//   one TypeBox); here `typebox` and `typebox/<entry>` resolve to that bundle, as
//   `npm start` loads TypeBox from its own bundle. Only the packaging changes: the
//   code is the installed package's, and the service's code is the source tree's.
// - tap's `@tapjs/mock` import registers hooks that send every resolution and load
//   to the main thread and back (for t.mockImport: no test mocks a module), and
//   `@tapjs/processinfo`'s posts the text of every loaded file to the main thread
//   (for coverage, which is off, and `tap --changed`): ≈ 1 s of CPU a file. Both
//   are answered with an empty module.
//
// `data` (module.register): { typeboxDir: string | null, skipUnusedTapHooks: boolean }.
const UNUSED = ['/@tapjs/mock/dist/esm/import.mjs', '/@tapjs/processinfo/dist/esm/import.mjs']
const EMPTY_MODULE = 'data:text/javascript,export{}'

let typeboxUrl = null
let skipUnusedTapHooks = false

export function initialize (data) {
  if (data.typeboxDir) typeboxUrl = new URL(`file://${data.typeboxDir}/`)
  skipUnusedTapHooks = data.skipUnusedTapHooks
}

export async function resolve (specifier, context, next) {
  if (typeboxUrl && (specifier === 'typebox' || specifier.startsWith('typebox/'))) {
    const entry = specifier === 'typebox' ? 'index' : `${specifier.slice('typebox/'.length)}/index`
    return { url: new URL(`${entry}.mjs`, typeboxUrl).href, shortCircuit: true }
  }
  if (skipUnusedTapHooks && UNUSED.some(path => specifier.endsWith(path))) return { url: EMPTY_MODULE, shortCircuit: true }
  return next(specifier, context)
}
