// `npm start` runs the compiled JavaScript (scripts/build.mjs, README
// "Production build"). The tests run the TypeScript under tsx, and start the
// service as a child from a fresh build of the source, made once per run into a
// folder inside the repository, as dist/ sits (test/helpers/service-build.ts).
// This file checks that build, what only the compiled copy can get wrong: package.json's
// start command, every relative module path the build rewrote, the non-code
// files found from the compiled code (migrations, package.json), the extraction
// workers loading compiled parser modules, stack traces mapped back to the .ts
// sources, what the booted process has loaded (no heavy library before use), and
// that `npm start` and `npm run worker` log a bug's crash at fatal before they exit.
import t, { type Test } from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { REPO_ROOT, scriptEnvironment, startCommand, startEnvironment, startServerProcess } from '../../scripts/bench/server-process.ts'
import { freshDatabaseUrl, tempDir } from '../helpers/build.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { serviceBuild, serviceCommand, serviceEnvironment } from '../helpers/service-build.ts'
import { UNHANDLED_REJECTION_MESSAGE } from '../fixtures/unhandled-rejection-on-signal.mjs'

const MODULE_LOG_HOOKS = fileURLToPath(new URL('../helpers/module-log/register.mjs', import.meta.url))
const UNHANDLED_REJECTION_PRELOAD = fileURLToPath(new URL('../fixtures/unhandled-rejection-on-signal.mjs', import.meta.url))

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

interface LogLine { level?: number, msg?: string, origin?: string, err?: { message?: string, stack?: string } }

/**
 * package.json's `script` on this run's build, with the test preload that makes an
 * unhandled rejection on SIGUSR2 (test/fixtures/unhandled-rejection-on-signal.mjs)
 * as an extra `--import` before the entry; once its stdout matches `serving`, the
 * signal. Resolves when the process has exited and its output is all read.
 */
async function crashOnSignal (t: Test, script: 'start' | 'worker', env: Record<string, string>, serving: RegExp) {
  const program = serviceCommand(built, script)
  const argv = [...program.command.slice(0, -1), '--import', UNHANDLED_REJECTION_PRELOAD, program.command.at(-1)!]
  const child = spawn(argv[0]!, argv.slice(1), { cwd: REPO_ROOT, env: serviceEnvironment(built, program, env), stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const closed = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>
  let gone = false
  void closed.then(() => { gone = true })
  // The deadline only turns a process that never serves into a readable failure.
  const deadline = Date.now() + 60_000
  while (!serving.test(stdout) && !gone && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 25))
  const served = serving.test(stdout)
  if (served) child.kill('SIGUSR2')
  else child.kill('SIGKILL')
  const [code, signal] = await closed
  const lines = stdout.split('\n').filter(line => line.trim() !== '')
  const parsed = lines.map((line): LogLine | null => { try { return JSON.parse(line) as LogLine } catch { return null } })
  return { served, code, signal, lines, parsed, stderr }
}

/** The assertions both entry points share: one fatal line, the last, with the message and its stack; exit 1. */
function assertFatalExit (t: Test, run: Awaited<ReturnType<typeof crashOnSignal>>) {
  const output = `stdout:\n${run.lines.slice(-5).join('\n')}\nstderr:\n${run.stderr}`
  t.ok(run.served, `it served before the signal; ${output}`)
  t.equal(run.code, 1, `exit code 1 (signal ${run.signal}); ${output}`)
  const fatal = run.parsed.findIndex(line => line?.level === 60)
  t.ok(fatal >= 0, `a JSON line at level fatal (60); ${output}`)
  const line = run.parsed[fatal] ?? {}
  t.equal(line.origin, 'unhandledRejection', 'its origin')
  t.equal(line.err?.message, UNHANDLED_REJECTION_MESSAGE, 'the rejection\'s message')
  t.match(line.err?.stack, UNHANDLED_REJECTION_MESSAGE, 'and its stack')
  t.match(line.err?.stack, /unhandled-rejection-on-signal\.mjs:\d+/, 'the stack names where the promise was rejected')
  t.equal(fatal, run.lines.length - 1, 'it is the last line of stdout')
  t.ok(run.parsed.slice(0, fatal).length > 0 && run.parsed.slice(0, fatal).every(l => l !== null), 'after the JSON lines of the start (every line JSON)')
}

t.test('npm start logs an unhandled rejection at fatal, last, with its stack, and exits 1', async t => {
  const dir = tempDir(t)
  const run = await crashOnSignal(t, 'start', {
    DATA_DIR: dir,
    DATABASE_URL: await freshDatabaseUrl(t, dir),
    SECRET_KEY: 'compiled-start-secret-0123',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
  }, /"msg":"Server listening at /)
  assertFatalExit(t, run)
})

t.test('npm run worker logs an unhandled rejection at fatal, last, with its stack, and exits 1', async t => {
  const redis = await startRedis(t)
  const dir = tempDir(t)
  const run = await crashOnSignal(t, 'worker', {
    DATA_DIR: dir,
    DATABASE_URL: await freshDatabaseUrl(t, dir),
    SECRET_KEY: 'compiled-start-secret-0123',
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: `f${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: 'info',
  }, /"msg":"worker started"/)
  assertFatalExit(t, run)
})
