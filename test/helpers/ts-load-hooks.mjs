// The TypeScript loader of the test processes (registered by tsx-preload.mjs): a
// `load` hook that turns each .ts module of the repository into JavaScript with
// esbuild, as tsx does, kept in a cache on disk (.cache/ts/, keyed by the file's
// path and text and the compile options) so a module is compiled once, not once per
// test process. Only `load`: the code imports its modules by their .ts names
// (tsconfig.json, allowImportingTsExtensions), which Node's own resolver finds; a
// module that is not .ts goes to the next hook untouched. tsx did more (a resolve
// hook on every import, packages included, and .js names for .ts files), and the
// round trips to the hooks' thread that its resolve hook made were most of its cost:
// ≈ 0.6 s of CPU a test process (scripts/bench/README.md, "The test suite").
// Inline source maps: stack traces name the .ts lines (tsx-preload.mjs turns source
// maps on).
//
// `data` (module.register): { cacheDir: string, tsconfig: object } (tsconfig.json's
// compilerOptions, which esbuild reads for what changes the output).
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

let cacheDir = ''
let options = null
let optionsKey = ''
let esbuild = null

export function initialize (data) {
  cacheDir = data.cacheDir
  mkdirSync(cacheDir, { recursive: true })
  options = { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', tsconfigRaw: { compilerOptions: data.tsconfig } }
  optionsKey = JSON.stringify(options)
}

export async function load (url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context)
  const path = fileURLToPath(url)
  const source = readFileSync(path, 'utf8')
  const key = createHash('sha1').update(optionsKey).update('\0').update(path).update('\0').update(source).digest('hex')
  const cached = `${cacheDir}/${key}.mjs`
  let code
  try {
    code = readFileSync(cached, 'utf8')
  } catch {
    esbuild ??= await import('esbuild')
    code = esbuild.transformSync(source, { ...options, sourcefile: path }).code
    // Written under a name of its own, then renamed: test processes running at once never read half a file.
    const partial = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`
    writeFileSync(partial, code)
    renameSync(partial, cached)
  }
  return { format: 'module', source: code, shortCircuit: true }
}
