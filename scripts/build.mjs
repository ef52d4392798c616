#!/usr/bin/env node
// `npm run build` (and the last step of `npm ci`'s postinstall): compiles the
// service's TypeScript (core/, plugins/, the generated Prisma clients in
// prisma/generated/) into
// dist/ with esbuild, one .js file (and its source map) per .ts file, in the
// same layout, so `npm start` runs plain JavaScript with no TypeScript loader.
//
// Why one file per file rather than one bundle: the service loads code by path
// at run time: tool plugins by folder (core/tools/registry.ts), each plugin's
// run code on its first job (`import('./run.ts')`), and the parser modules the
// extraction workers load by file URL (`new URL('./extract.ts', import.meta.url)`).
// Keeping the layout keeps all of those working and keeps them lazy.
//
// What the build changes in the code: relative imports and the
// `new URL('<relative>.ts', import.meta.url)` module URLs end in .js. Files that
// are not code (migrations, package.json, tools.config.json) stay where they are:
// core/code-location.ts tells the compiled code where the service's root is.
// Packages under node_modules are not bundled (native addons, Prisma's engines),
// except the few in VENDORED: typebox is some 700 small ES modules that every
// schema file imports, which cost the start about a second and 20 MB of module
// records; bundled once into dist/vendor/ (one copy, shared chunks) they load in
// tens of milliseconds. The fastify type provider goes with it because it
// registers typebox's string formats: it must see the same typebox as our schemas.
//
// Every file under core/ and plugins/ is compiled, so a new entry point (a new
// `npm run …` such as core/worker.ts) needs no change here, only its script line:
// `node --enable-source-maps dist/core/<name>.js`.
import { build } from 'esbuild'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
const entryPoints = files.filter(f => f.endsWith('.ts') && !f.endsWith('.d.ts') && !inSeparateProgram(f))
/** Everything else but the folder READMEs ships as is: the worker's .mjs entry, style sheets, the separate programs. */
const copied = files.filter(f => !entryPoints.includes(f) && !f.endsWith(`${sep}README.md`))

/** Bare import → its bundle under dist/vendor/ (only these import paths are used by core/ and plugins/). */
const VENDORED = {
  typebox: 'typebox',
  'typebox/compile': 'typebox-compile',
  'typebox/value': 'typebox-value',
  '@fastify/type-provider-typebox': 'type-provider-typebox',
}
const vendorDir = join(outdir, 'vendor')

const relativeTs = /^\.\.?\/.*\.ts$/
/** `new URL('./x.ts', import.meta.url)`: a module the extraction workers load by URL. */
const moduleUrl = /new URL\((['"])(\.\.?\/[^'"]+)\.ts\1,(\s*)import\.meta\.url\)/g

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
  return source.replace(match[0], `const { readFile } = await import('node:fs/promises')
    return new WebAssembly.Module(await readFile(new URL('./${match[1]}.wasm', import.meta.url)))`)
}

/**
 * Every relative import stays a separate file (external) with its .ts suffix
 * turned into .js; module URLs get the same suffix. Packages stay external too.
 */
const keepLayout = {
  name: 'keep-layout',
  setup (b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind === 'entry-point') return undefined
      return { path: relativeTs.test(args.path) ? args.path.replace(/\.ts$/, '.js') : args.path, external: true }
    })
    b.onResolve({ filter: /^(typebox|@fastify\/type-provider-typebox)(\/|$)/ }, (args) => {
      const bundle = VENDORED[args.path]
      if (!bundle) return { errors: [{ text: `${args.path} is not in scripts/build.mjs's VENDORED list: add it there` }] }
      const from = dirname(join(outdir, relative(root, args.importer)))
      const path = relative(from, join(vendorDir, `${bundle}.js`))
      return { path: path.startsWith('.') ? path : `./${path}`, external: true }
    })
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = wasmBesideClient(readFileSync(args.path, 'utf8'), args.path)
      const rewrite = (whole, q, path, space) => inSeparateProgram(resolve(dirname(args.path), `${path}.ts`)) ? whole : `new URL(${q}${path}.js${q},${space}import.meta.url)`
      return { contents: source.replace(moduleUrl, rewrite), loader: 'ts' }
    })
  },
}

/** What both builds emit: ES modules for Node. */
const nodeOutput = {
  platform: 'node',
  format: 'esm',
  target: 'node20.11',
  // Stack traces point at the .ts files (`node --enable-source-maps`); the maps
  // name the sources by path and do not carry their text.
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
}

const started = performance.now()
rmSync(outdir, { recursive: true, force: true })
await build({
  entryPoints: Object.fromEntries(Object.entries(VENDORED).map(([specifier, bundle]) => [bundle, specifier])),
  outdir: vendorDir,
  bundle: true,
  splitting: true,
  // What the vendored packages import besides each other stays a package (ajv-formats: CommonJS, shared with fastify).
  external: ['ajv-formats'],
  ...nodeOutput,
})
await build({
  entryPoints,
  outdir,
  outbase: root,
  bundle: true,
  packages: 'external',
  ...nodeOutput,
  plugins: [keepLayout],
  tsconfig: join(root, 'tsconfig.json'),
})
for (const file of copied) {
  const target = join(outdir, relative(root, file))
  mkdirSync(dirname(target), { recursive: true })
  copyFileSync(file, target)
}
const ms = performance.now() - started
console.log(`built ${entryPoints.length} modules into ${relative(process.cwd(), outdir) || outdir} in ${ms.toFixed(0)} ms`)
