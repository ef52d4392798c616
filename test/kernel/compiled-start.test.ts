// `npm start` runs the compiled JavaScript (scripts/build.mjs, README
// "Production build"). The tests run the TypeScript under tsx, and start the
// service as a child from a fresh build of the source, made once per run into a
// folder inside the repository, as dist/ sits (test/helpers/service-build.ts).
// This file checks that build, what only the compiled copy can get wrong: package.json's
// start command, every relative module path the build rewrote, the non-code
// files found from the compiled code (migrations, package.json), the extraction
// workers loading compiled parser modules, stack traces mapped back to the .ts
// sources, and what the booted process has loaded (no heavy library before use).
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { REPO_ROOT, scriptEnvironment, startCommand, startEnvironment, startServerProcess } from '../../scripts/bench/server-process.ts'
import { tempDir } from '../helpers/build.ts'
import { serviceBuild } from '../helpers/service-build.ts'

const MODULE_LOG_HOOKS = fileURLToPath(new URL('../helpers/module-log/register.mjs', import.meta.url))

// Inside the repository (git-ignored .cache/), so the compiled code finds package.json above it;
// made by this process, or by the first test process of the run that needed it.
const built = await serviceBuild()
const out = built.dir

t.test('the build compiles every module of core/ and plugins/', async t => {
  t.equal(built.status, 0, `build output: ${built.output}`)
  t.ok(existsSync(join(out, 'core/server.js')), 'core/server.js')
  t.ok(existsSync(join(out, 'core/server.js.map')), 'with its source map')
  t.ok(existsSync(join(out, 'core/workers/extraction-worker.mjs')), 'the worker entry is copied')
})

t.test("package.json's start runs the compiled server with source maps and no TypeScript loader", async t => {
  const argv = startCommand()
  t.equal(argv[0], process.execPath, 'node')
  t.ok(argv.includes('--enable-source-maps'), '--enable-source-maps')
  t.notOk(argv.some(a => /tsx|--import|--loader|--experimental-strip-types/.test(a)), `no loader: ${argv.join(' ')}`)
  t.match(argv.at(-1), /^dist\/core\/server\.js$/, 'the entry is dist/core/server.js')
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  t.match(pkg.scripts.postinstall, /prisma-cli\.mjs generate-all && node scripts\/build\.mjs$/, 'npm ci builds after generating the Prisma clients')
  t.match(pkg.scripts.dev, /--import tsx core\/server\.ts/, 'npm run dev keeps tsx')
  // glibc's malloc settings, set by the shell before `node` (README "Production build"): one arena, so
  // the memory V8's background compilers free during a start is reused instead of staying resident,
  // and fixed thresholds, so a password hash's 16 MiB block is given back when freed.
  const env = startEnvironment()
  t.equal(env.MALLOC_ARENA_MAX, '1', `the start gives malloc one arena: ${pkg.scripts.start}`)
  t.ok(Number(env.MALLOC_MMAP_THRESHOLD_) > 0 && Number(env.MALLOC_MMAP_THRESHOLD_) < 16 * 1024 * 1024, 'blocks as large as scrypt\'s (16 MiB) are mapped on their own')
  t.ok(Number(env.MALLOC_TRIM_THRESHOLD_) >= Number(env.MALLOC_MMAP_THRESHOLD_), 'and the trim threshold is not below it (a lower one costs large buffers their pages at every free)')
  t.same(scriptEnvironment('worker'), env, 'npm run worker sets the same')
  t.notOk(argv.some(a => a.includes('=') && !a.startsWith('--')), 'the argv holds none of the environment words')
})

/** Every `from "./x.js"`, `import("./x.js")` and `new URL("./x.js", import.meta.url)` of the compiled code. */
function relativeReferences (source: string): string[] {
  const found: string[] = []
  for (const m of source.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)"(\.\.?\/[^"]+)"/g)) found.push(m[1]!)
  for (const m of source.matchAll(/new URL\("(\.\.?\/[^"]+)",\s*import\.meta\.url\)/g)) found.push(m[1]!)
  return found
}

function jsFilesUnder (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e => e.isDirectory() ? jsFilesUnder(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [])
}

t.test('every relative import and module URL of the compiled code names a file that exists', async t => {
  const missing: string[] = []
  let references = 0
  for (const file of jsFilesUnder(out)) {
    for (const ref of relativeReferences(readFileSync(file, 'utf8'))) {
      references++
      const target = resolve(dirname(file), ref)
      // A .ts file may only be named inside a separate program (its own tsconfig.json: the dashboard's browser code, copied as source).
      if (/\.ts$/.test(ref) && !existsSync(join(dirname(target), 'tsconfig.json'))) missing.push(`${relative(out, file)} still names ${ref}`)
      else if (!existsSync(target)) missing.push(`${relative(out, file)} → ${ref}`)
    }
  }
  t.ok(references > 300, `${references} references checked`)
  t.same(missing, [], 'none missing, none left as .ts')
})

t.test('an error thrown by compiled code has a stack that points at the .ts source', async t => {
  const config = pathToFileURL(join(out, 'core/config.js')).href
  const res = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e',
    `const { loadConfig } = await import(${JSON.stringify(config)}); try { loadConfig({ PORT: 'not a port' }) } catch (err) { console.log(err.stack) }`,
  ], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 })
  t.equal(res.status, 0, res.stderr)
  t.match(res.stdout, /PORT/, 'the configuration error')
  t.match(res.stdout, /core\/config\.ts:\d+:\d+/, 'a frame in core/config.ts, line and column')
})

t.test('the compiled extraction pool runs a compiled parser module in a worker', async t => {
  const pool = pathToFileURL(join(out, 'core/workers/extraction-pool.js')).href
  const emails = pathToFileURL(join(out, 'plugins/lib/emails.js')).href
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', `
    const { ExtractionPool, EXTRACTION_TASKS_MODULE } = await import(${JSON.stringify(pool)})
    const pool = new ExtractionPool({ workers: 1, taskTimeoutMs: 30000, workerMemoryMb: 256 })
    try {
      const value = await pool.run({ kind: 'call', module: ${JSON.stringify(emails)}, name: 'normaliseEmail', args: ['  Info@Example.COM '] })
      console.log(JSON.stringify({ tasks: EXTRACTION_TASKS_MODULE.href, value }))
    } finally { await pool.close() }
  `], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 })
  t.equal(res.status, 0, res.stderr)
  const answer = JSON.parse(res.stdout.trim().split('\n').at(-1) ?? '{}') as { tasks?: string, value?: unknown }
  t.match(answer.tasks, /extraction-tasks\.js$/, 'the workers load the compiled task module')
  t.equal(answer.value, 'Info@example.com', 'the parser ran in a worker (domain lower-cased)')
})

t.test('the compiled server boots, migrates, answers, and has loaded no heavy library', async t => {
  const moduleLog = join(tempDir(t), 'modules.log')
  // package.json's start command, pointed at this test's build (and logging what it loads).
  const command = startCommand().map(a => a.replace(/^dist\//, `${relative(REPO_ROOT, out)}/`))
  const server = await startServerProcess({ command, nodeFlags: ['--import', MODULE_LOG_HOOKS], env: { SECRET_KEY: 'compiled-start-secret-0123', MODULE_LOG: moduleLog }, readyTimeoutMs: 60_000 })
  t.teardown(async () => { await server.stop() })
  const { url } = server

  const health = await fetch(`${url}/api/health`)
  t.equal(health.status, 200, `the server answers /api/health; its output: ${server.output()}`)
  t.match(await health.json(), { status: 'ok', database: 'ok' })
  if (existsSync(`/proc/${server.pid}/environ`)) {
    t.match(readFileSync(`/proc/${server.pid}/environ`, 'utf8'), /(^|\0)MALLOC_ARENA_MAX=1\0/, "the server runs with npm start's malloc setting")
  }

  // What the process loaded by the time it is ready: the kernel, never a tool's heavy library.
  const loaded = readFileSync(moduleLog, 'utf8')
  t.match(loaded, /\/node_modules\/better-sqlite3\//, 'the log lists what was loaded (else the checks below could not fail)')
  // The packages the build bundles (the web framework and what it loads) run from one file at every start:
  // none of the heavy ones may be in it. Each bundled module follows a `// <path>` comment there.
  const vendored = readFileSync(join(out, 'vendor/packages.cjs'), 'utf8')
  t.match(vendored, /^\/\/ .*node_modules\/fastify\//m, 'the bundled packages name their sources (else the check below could not fail)')
  const heavyLibraries = ['crawlee', 'exceljs', 'youtubei.js', 'linkedom', 'cheerio', '@modelcontextprotocol/sdk', 'undici', 'archiver', 'sanitize-html', 'pg', 'piscina', 'libphonenumber-js', 'tsx', 'bullmq', 'ioredis', '@aws-sdk/client-s3', 'playwright-core']
  for (const heavy of heavyLibraries) {
    t.notOk(loaded.includes(`/node_modules/${heavy}/`), `${heavy} is not loaded at start`)
    t.notOk(vendored.includes(`node_modules/${heavy}/`), `${heavy} is not in the bundled packages`)
  }
  t.notOk(/\/plugins\/[^/]+\/run\.js/.test(loaded), 'no plugin run code is loaded at start')

  const signup = await fetch(`${url}/api/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'compiled@example.com', password: 'compiled password 1', name: 'C' }) })
  t.equal(signup.status, 200, 'signup (the migrated database, through Prisma)')
  const manifest = await fetch(`${url}/mcp/manifest.json`)
  t.equal(manifest.status, 200, 'the agent manifest (reads package.json from the service root)')
  t.equal((await manifest.json() as { name: string }).name, 'extraction-jobs')
  const dashboard = await fetch(`${url}/app`)
  t.equal(dashboard.status, 200, 'the dashboard (its browser code bundled from the copied sources)')
  const shell = await dashboard.text()
  const script = /\/app\/assets\/dashboard\.[0-9a-f]+\.js/.exec(shell)?.[0]
  t.ok(script && (await fetch(`${url}${script}`)).status === 200, 'and its script')
  const home = await fetch(`${url}/`, { headers: { accept: 'text/html' } })
  t.equal(home.status, 200, 'the home page (its style sheet is read beside the compiled code)')

  t.equal(await server.stop(), 0, 'SIGTERM closes it cleanly')
})
