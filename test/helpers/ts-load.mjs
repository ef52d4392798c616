// `node --import <this file>`: the suite's TypeScript loader (ts-load-hooks.mjs, an
// esbuild `load` hook with an on-disk cache), for the test processes
// (tsx-preload.mjs imports it) and for the programs a test starts on the source
// tree (sourceLoaderFlags() in source-loader.ts), so that a child compiles the
// source as its test process does, from the same cache, not under tsx.
import { readFileSync } from 'node:fs'
import { register } from 'node:module'

const root = new URL('../../', import.meta.url)
const { compilerOptions } = JSON.parse(readFileSync(new URL('tsconfig.json', root), 'utf8'))
// The hooks emit inline source maps: stack traces name the .ts lines.
process.setSourceMapsEnabled(true)
register(new URL('./ts-load-hooks.mjs', import.meta.url), { data: { cacheDir: new URL('.cache/ts', root).pathname, tsconfig: compilerOptions } })
