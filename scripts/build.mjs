#!/usr/bin/env node
// `npm run build` (and the last step of `npm ci`'s postinstall): compiles the
// service's TypeScript (core/, plugins/, the generated Prisma clients in
// prisma/generated/) into dist/ with esbuild, so `npm start` runs plain
// JavaScript with no TypeScript loader.
//
// One bundle with code splitting, not one file per source file: a start loaded
// some 200 modules of ours and 300 of the web framework's packages (ajv alone
// 80, semver 50), and loading them (resolving, reading, compiling each, reading
// each one's source map) was about half of start-to-ready (scripts/bench/README.md,
// startup.ts). Bundled, the start reads a handful of files.
//
// What stays loadable by path, each at its source's place with .js for .ts:
// - the programs package.json's scripts run: core/server.js (`npm start`),
//   core/worker.js (`npm run worker`);
// - every plugin's index (core/tools/registry.ts loads tool plugins by folder),
//   its run.ts (imported on its first job, `import('./run.ts')`: a dynamic import
//   stays a separate file, loaded then);
// - every module named by URL (`new URL('./extract.ts', import.meta.url)`): the
//   extraction workers load parser modules by file URL;
// - the plugin contract and the plugin library (core/tools/contract.ts,
//   plugins/lib/): an out-of-tree plugin imports them by path;
// - ADDRESSABLE below: modules other programs (tests) import by path.
// Every other module lives in a shared chunk under dist/chunks/. Splitting never
// copies a module: an entry that is also imported elsewhere re-exports from the
// chunk, so each module is evaluated once per process (one class per error kind).
//
// Code in a chunk no longer sits at its source's place, so each module's
// `import.meta.url` is replaced by its own place in dist/ (the files beside it,
// the module URLs, `createRequire`, code-location.ts's service root keep working).
//
// Packages: the web framework and what it loads at every start (BUNDLED_ROOTS
// and their dependencies, found from their package.json files) are bundled into
// one CommonJS file, dist/vendor/packages.cjs, with no source map, loaded through
// a V8 code cache (vendor/load.cjs; see the vendor build below); the code reaches
// each of them through a small stand-in module. Every other package stays a
// package under node_modules, loaded when first used (the heavy libraries of the
// tools, Prisma's adapters and query compiler glue, native addons), so lazy
// loading is kept and test/kernel/compiled-start.test.ts can see what a start
// loads. pino is bundled: its transports (worker files found beside its code)
// would not work, and the service uses none.
//
// Files that are not code (migrations, package.json, tools.config.json) stay
// where they are: core/code-location.ts tells the compiled code where the
// service's root is. Stack traces point at the .ts files (`node
// --enable-source-maps`; the maps name the sources by path, without their text).
import { build } from 'esbuild'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { spawnSync } from 'node:child_process'
import { dirname, join, relative, resolve, sep } from 'node:path'

const root = resolve(import.meta.dirname, '..')
// `--outdir <dir>` (tests) builds elsewhere; it must be inside the repository,
// where the compiled code finds package.json and prisma/ above itself.
const outdirArg = process.argv.indexOf('--outdir')
const outdir = outdirArg === -1 ? join(root, 'dist') : resolve(process.argv[outdirArg + 1] ?? '')
// The build empties its output folder first: never the repository or a source folder.
if (!outdir.startsWith(root + sep) || ['core', 'plugins', 'prisma', 'scripts', 'test', 'node_modules'].includes(relative(root, outdir).split(sep)[0])) {
  throw new Error(`refusing to build into ${outdir}: give a new folder inside ${root}`)
}
/** The folders that hold the service's code (tests and scripts run under tsx and are not built). */
const SOURCE_DIRS = ['core', 'plugins', 'prisma/generated']

/**
 * Modules that other programs import from dist/ by path besides the entry
 * points found below: test/kernel/compiled-start.test.ts (the configuration's
 * error with a mapped stack, the extraction pool run from outside the server),
 * scripts/bench/monitor-compare-compiled.mjs (an app built in its own process).
 */
const ADDRESSABLE = ['core/config.ts', 'core/workers/extraction-pool.ts', 'core/tools/contract.ts', 'core/app.ts']

/**
 * Packages bundled with the code, with every package they depend on: what a
 * start loads anyway (the web framework, its validator and serializer
 * compilers, the logger, the container, the schema library). A package left out
 * still works, loaded from node_modules; one put in must be plain JavaScript
 * (no native addon, no file read beside its own code).
 */
const BUNDLED_ROOTS = ['fastify', 'fastify-plugin', '@fastify/websocket', '@fastify/multipart', '@fastify/type-provider-typebox', 'typebox', 'pino', 'awilix', '@prisma/client']

function filesUnder (dir) {
  const found = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...filesUnder(path))
    else found.push(path)
  }
  return found
}

const files = SOURCE_DIRS.flatMap(dir => filesUnder(join(root, dir)))
/**
 * A folder with its own tsconfig.json is a separate program (the dashboard's
 * browser code, which the server bundles with esbuild when asked): copied as
 * source, not compiled for Node, and module URLs into it keep naming its .ts.
 */
const separatePrograms = files.filter(f => f.endsWith(`${sep}tsconfig.json`)).map(f => dirname(f) + sep)
const inSeparateProgram = (file) => separatePrograms.some(dir => file.startsWith(dir))
const sources = files.filter(f => f.endsWith('.ts') && !f.endsWith('.d.ts') && !inSeparateProgram(f))
/** Everything else but the folder READMEs ships as is: the worker's .mjs entry, style sheets, the separate programs. */
const copied = files.filter(f => !sources.includes(f) && !f.endsWith(`${sep}README.md`))

/** `new URL('./x.ts', import.meta.url)`: a module the extraction workers load by URL. */
const moduleUrl = /new URL\((['"])(\.\.?\/[^'"]+)\.ts\1,(\s*)import\.meta\.url\)/g

const sourceText = new Map(sources.map(f => [f, readFileSync(f, 'utf8')]))
/** The programs package.json runs (`node … dist/core/server.js`): a new `npm run …` line is a new entry point. */
const programs = [...JSON.stringify(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts).matchAll(/\bdist\/([\w/.-]+)\.js\b/g)].map(m => join(root, `${m[1]}.ts`))
const entryPoints = new Set([
  ...programs,
  ...sources.filter(f => relative(join(root, 'plugins'), f).split(sep).length === 2 && /^(index|run)\.ts$/.test(f.split(sep).at(-1))),
  ...sources.filter(f => f.startsWith(join(root, 'plugins', 'lib') + sep)),
  ...ADDRESSABLE.map(f => join(root, f)),
])
for (const [file, text] of sourceText) {
  for (const m of text.matchAll(moduleUrl)) {
    const target = resolve(dirname(file), `${m[2]}.ts`)
    if (sourceText.has(target)) entryPoints.add(target)
  }
}
for (const file of entryPoints) if (!sourceText.has(file)) throw new Error(`${relative(root, file)} is an entry point of the build but not a source file: update scripts/build.mjs`)

/** The package a bare import names: `@scope/name` or `name`. */
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')

/** BUNDLED_ROOTS and their dependencies, by name (each package's package.json, found as Node finds it). */
function bundledPackages () {
  const found = new Set()
  const visit = (name, fromDir) => {
    for (let dir = fromDir; ; dir = dirname(dir)) {
      const manifest = join(dir, 'node_modules', name, 'package.json')
      if (existsSync(manifest)) {
        if (found.has(name)) return
        found.add(name)
        const pkg = JSON.parse(readFileSync(manifest, 'utf8'))
        for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dirname(manifest))
        return
      }
      if (dirname(dir) === dir) throw new Error(`${name} (bundled by scripts/build.mjs) is not installed`)
    }
  }
  for (const name of BUNDLED_ROOTS) visit(name, root)
  return found
}
const BUNDLED = bundledPackages()
const BUILTIN = new Set(builtinModules)

/**
 * The generated Prisma clients load their query compiler from a module that
 * holds the WebAssembly as one base64 string: that module's text and the string
 * then stay in the heap for good (4.3 MB). The compiled client reads the same
 * bytes, decoded once here, from a .wasm file beside it instead.
 */
const prismaWasmImport = /const \{ wasm \} = await import\("@prisma\/client\/runtime\/(query_compiler_\w+_bg\.\w+)\.wasm-base64\.mjs"\)\s*\n\s*return await decodeBase64AsWasm\(wasm\)/
function wasmBesideClient (source, sourcePath) {
  const match = prismaWasmImport.exec(source)
  if (!match) return source
  const runtime = join(root, 'node_modules/@prisma/client/runtime', `${match[1]}.wasm-base64.mjs`)
  const base64 = /"([A-Za-z0-9+/=]+)"/.exec(readFileSync(runtime, 'utf8'))?.[1]
  const bytes = base64 ? Buffer.from(base64, 'base64') : null
  if (!bytes || bytes.subarray(0, 4).toString('latin1') !== '\0asm') throw new Error(`${runtime} does not hold the query compiler as expected: update scripts/build.mjs`)
  const target = join(outdir, relative(root, dirname(sourcePath)), `${match[1]}.wasm`)
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, bytes)
  // WebAssembly.compile, not new WebAssembly.Module: the compiling runs on V8's
  // background threads while the start goes on (the tool plugins load meanwhile).
  return source.replace(match[0], `const { readFile } = await import('node:fs/promises')
    return await WebAssembly.compile(await readFile(new URL('./${match[1]}.wasm', import.meta.url)))`)
}

/**
 * Every output file starts with this line. `require` serves the CommonJS
 * packages bundled into ES modules (their require() of Node's own modules);
 * DIST_ROOT is replaced after the build by the way from the file to dist/, so
 * `import.meta.url` of a module (rewritten below) is its source's place in
 * dist/ whichever file its code ended up in. One line, so the source maps are
 * unaffected by its length.
 */
const DIST_ROOT = '__DIST_ROOT__'
const banner = `import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url); const __distRoot = new URL("${DIST_ROOT}", import.meta.url);`

/** The packages' bundle (see the vendor build below) and the module that loads it, relative to dist/. */
const VENDOR_FILE = 'vendor/packages.cjs'
const VENDOR_LOADER = 'vendor/load.cjs'
/**
 * Loads packages.cjs as Node's require() would, but through V8's code cache:
 * compiling the 2.5 MB bundle, and then each function it runs at a start, was
 * ≈ 170 ms of CPU; with the cache the build wrote (below) ≈ 80 ms. A cache made
 * by another Node version or with other V8 flags is rejected by V8 and the
 * bundle compiles as it would without one.
 */
const VENDOR_LOADER_SOURCE = `'use strict'
// Written by scripts/build.mjs: loads packages.cjs (the bundled packages) with the V8 code cache the build made.
const { readFileSync } = require('node:fs')
const { createRequire, wrap } = require('node:module')
const { join } = require('node:path')
const { Script, constants } = require('node:vm')

const file = join(__dirname, 'packages.cjs')
let cachedData
try { cachedData = readFileSync(\`\${file}.v8-cache\`) } catch { /* no cache: compiled as usual */ }
const script = new Script(wrap(readFileSync(file, 'utf8')), { filename: file, cachedData, importModuleDynamically: constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER })
const bundle = { exports: {} }
script.runInThisContext().call(bundle.exports, bundle.exports, createRequire(file), bundle, file, __dirname)
module.exports = { packages: bundle.exports, script }
`
/** Every bundled package import the code makes (`fastify`, `typebox/compile`…): the vendor file's keys. */
const vendored = new Set()

const serviceLayout = {
  name: 'service-layout',
  setup (b) {
    // Packages: bundled if the start loads them anyway (BUNDLED), else left to node_modules.
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || BUILTIN.has(args.path) || BUILTIN.has(packageOf(args.path))) return { path: args.path, external: true }
      // A dynamic import() stays a package import: the stand-in below is CommonJS, whose
      // named exports esbuild finds at run time for a static import but not for a namespace
      // that import() hands over (Prisma's query compiler glue, loaded this way, would lose them).
      if (!BUNDLED.has(packageOf(args.path)) || args.kind === 'dynamic-import') return { path: args.path, external: true }
      vendored.add(args.path)
      // The path only names the stand-in module; a name ending in .mjs would make esbuild read it as an ES module.
      return { path: `${args.path} (bundled)`, namespace: 'vendored', pluginData: args.path }
    })
    // A vendored package is a CommonJS module that takes its exports from dist/vendor/packages.cjs:
    // esbuild reads its named exports at run time, as it does for any CommonJS module it bundles.
    b.onLoad({ filter: /.*/, namespace: 'vendored' }, (args) => ({
      contents: `module.exports = require(require("node:url").fileURLToPath(new URL(${JSON.stringify(VENDOR_LOADER)}, __distRoot))).packages[${JSON.stringify(args.pluginData)}]`,
      loader: 'js',
    }))
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const rel = relative(root, args.path).split(sep).join('/')
      const source = wasmBesideClient(sourceText.get(args.path) ?? readFileSync(args.path, 'utf8'), args.path)
      const rewrite = (whole, q, path, space) => inSeparateProgram(resolve(dirname(args.path), `${path}.ts`)) ? whole : `new URL(${q}${path}.js${q},${space}import.meta.url)`
      const here = JSON.stringify(rel.replace(/\.ts$/, '.js'))
      return { contents: source.replace(moduleUrl, rewrite).replaceAll('import.meta.url', `new URL(${here}, __distRoot).href`), loader: 'ts' }
    })
  },
}

const started = performance.now()
rmSync(outdir, { recursive: true, force: true })
const result = await build({
  entryPoints: [...entryPoints],
  outdir,
  outbase: root,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20.11',
  // Stack traces point at the .ts files (`node --enable-source-maps`); the maps
  // name the sources by path and do not carry their text.
  sourcemap: 'linked',
  sourcesContent: false,
  banner: { js: banner },
  metafile: true,
  logLevel: 'warning',
  plugins: [serviceLayout],
  tsconfig: join(root, 'tsconfig.json'),
})
// The packages: one CommonJS file (they are CommonJS themselves, but for typebox
// and awilix's browser build, which esbuild converts), loaded with require(), so
// Node runs no export scan over it, and without a source map, so Node does not
// index its 2.5 MB of text for stack traces at every start (its frames name the
// bundle's lines; each package's code follows a `// node_modules/<package>/…`
// comment there). Each key is a getter: a package runs when first imported.
await build({
  stdin: {
    contents: `module.exports = {\n${[...vendored].sort().map(spec => `  get ${JSON.stringify(spec)} () { return require(${JSON.stringify(spec)}) },`).join('\n')}\n}\n`,
    resolveDir: root,
    sourcefile: 'vendor-packages.cjs',
    loader: 'js',
  },
  outfile: join(outdir, VENDOR_FILE),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20.11',
  logLevel: 'warning',
  plugins: [{
    name: 'vendor-packages',
    setup (b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:') || BUILTIN.has(args.path) || BUILTIN.has(packageOf(args.path))) return { path: args.path, external: true }
        return BUNDLED.has(packageOf(args.path)) ? undefined : { path: args.path, external: true }
      })
    },
  }],
})
writeFileSync(join(outdir, VENDOR_LOADER), VENDOR_LOADER_SOURCE)
// The code cache: made by a process with \`npm start\`'s Node flags (V8 rejects a
// cache made under other flags) after it has loaded every bundled package and
// served one request with fastify, so the functions a start runs are in it.
const startFlags = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start.split(/\s+/).filter(word => word.startsWith('--'))
const cacheMaker = `
  const { writeFileSync } = require('node:fs')
  const { packages, script } = require(${JSON.stringify(join(outdir, VENDOR_LOADER))})
  for (const name of Object.keys(packages)) packages[name]
  const app = packages.fastify({ logger: false })
  app.setValidatorCompiler(packages['@fastify/type-provider-typebox'].TypeBoxValidatorCompiler)
  const { Type } = packages.typebox
  app.post('/', { schema: { body: Type.Object({ a: Type.String() }), response: { 200: Type.Object({ a: Type.String() }) } } }, async (req) => req.body)
  app.inject({ method: 'POST', url: '/', payload: { a: 'b' } }).then((res) => {
    if (res.statusCode !== 200) throw new Error('the bundled fastify answered ' + res.statusCode)
    writeFileSync(${JSON.stringify(join(outdir, `${VENDOR_FILE}.v8-cache`))}, script.createCachedData())
  })
`
const made = spawnSync(process.execPath, [...startFlags, '-e', cacheMaker], { cwd: root, encoding: 'utf8' })
if (made.status !== 0) throw new Error(`making the bundled packages' code cache failed:\n${made.stderr}`)
let outputs = 1
for (const output of Object.keys(result.metafile.outputs)) {
  if (!output.endsWith('.js')) continue
  outputs++
  const file = resolve(root, output)
  const up = relative(dirname(file), outdir).split(sep).join('/')
  const text = readFileSync(file, 'utf8')
  writeFileSync(file, text.replace(`"${DIST_ROOT}"`, JSON.stringify(up ? `${up}/` : './')))
}
for (const file of copied) {
  const target = join(outdir, relative(root, file))
  mkdirSync(dirname(target), { recursive: true })
  copyFileSync(file, target)
}
const ms = performance.now() - started
console.log(`built ${sourceText.size} modules into ${outputs} files in ${relative(process.cwd(), outdir) || outdir} in ${ms.toFixed(0)} ms`)
