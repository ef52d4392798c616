// The service compiled as `npm start` and `npm run worker` run it, for the tests
// that start it as a child process (test/cluster, test/jobs/crash-restart, the
// boot-failure checks of kernel/config, kernel/at-rest and plugins/settings-at-boot)
// and for test/kernel/compiled-start, which checks the build itself. A child under
// `node --import tsx core/worker.ts` spent ≈ 3 s of CPU compiling before it read
// its config; from the build it starts in a fraction of that, and it is the
// program production runs (scripts/bench/README.md, "The test suite", seventh pass).
//
// Never a stale dist/: each build is made from the source tree under test, by
// scripts/build.mjs into a folder inside the repository (the compiled code finds
// package.json, prisma/ and node_modules above itself).
// - Under `npm test`, scripts/test.mjs names a per-run folder (TEST_BUILD_DIR,
//   removed at the end of the run) and the first test process that needs the
//   build makes it there; the others wait for it: one build per run, and none
//   in a run that needs none.
// - Run any other way (`npx tap run <file>`), the test process builds its own
//   copy under .cache/ and removes it when it exits.
//
// The test-only plugins the tests' tools configs name (test/fixtures/plugins/,
// TypeScript) are compiled beside the build, one file per module as out-of-tree
// plugins are written, importing the build's own contract; each
// test/fixtures/tools.*.json is copied to the same place relative to them, so a
// child given TOOLS_CONFIG = toolsConfig(<the source config>) loads the same
// tools, compiled (Node 20 runs no TypeScript without a loader).
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { npmScriptCommand, REPO_ROOT, scriptEnvironment } from '../../scripts/bench/server-process.ts'

/** The folders of the repository a build mirrors for the test fixtures (plugins and tools configs). */
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures')
const FIXTURE_PLUGINS = join(FIXTURES, 'plugins')

export interface ServiceBuild {
  /** The compiled service: core/, plugins/, vendor/ … as dist/ holds them. */
  dir: string
  /** scripts/build.mjs's exit status (0: built) and what it printed, with any failure of the test plugins' compile. */
  status: number | null
  output: string
}

/** What a program of package.json runs, pointed at a build: its argv (script last) and the variables the script sets. */
export interface ServiceCommand {
  command: string[]
  env: Record<string, string>
}

/**
 * `npm start` ('start') or `npm run worker` ('worker') as package.json says,
 * with this Node binary, the same Node flags and malloc settings, the build's
 * entry instead of `dist/…`. Throws (with its output) if the build failed.
 */
export function serviceCommand (build: ServiceBuild, script: 'start' | 'worker'): ServiceCommand {
  if (build.status !== 0) throw new Error(`the service build failed (${build.status}):\n${build.output}`)
  const command = npmScriptCommand(script).map(word => word.startsWith('dist/') ? join(build.dir, word.slice('dist/'.length)) : word)
  if (command.at(-1) === npmScriptCommand(script).at(-1)) throw new Error(`package.json's ${script} script runs no dist/ program: ${command.join(' ')}`)
  return { command, env: scriptEnvironment(script) }
}

/**
 * The environment of a service child: the test process's, without its
 * NODE_OPTIONS (the test loaders: the child is the production start), the
 * script's own variables, then `env`; a TOOLS_CONFIG under test/fixtures/ is
 * replaced by the build's copy, whose test plugins are compiled.
 */
export function serviceEnvironment (build: ServiceBuild, script: ServiceCommand, env: Record<string, string | undefined>): Record<string, string> {
  const merged: Record<string, string | undefined> = { ...process.env, ...script.env, ...env }
  delete merged.NODE_OPTIONS
  if (merged.TOOLS_CONFIG) merged.TOOLS_CONFIG = toolsConfig(build, merged.TOOLS_CONFIG)
  return Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined))
}

/**
 * `npm start` ('start') or `npm run worker` ('worker') of this run's build, run to
 * its exit, for the tests of a boot that must fail (a bad setting: exit 78 and a
 * message naming it, no stack). `env` is added to the test process's environment
 * as serviceEnvironment() does; stdout and stderr come back as text. The deadline
 * only turns a boot that does not fail into a readable failure.
 */
export async function runServiceToExit (script: 'start' | 'worker', env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<SpawnSyncReturns<string>> {
  const build = await serviceBuild()
  const program = serviceCommand(build, script)
  return spawnSync(program.command[0]!, program.command.slice(1), { cwd: REPO_ROOT, env: serviceEnvironment(build, program, env), encoding: 'utf8', timeout: timeoutMs })
}

/** The build's copy of a tools config of test/fixtures/ (other paths are returned as given). */
export function toolsConfig (build: ServiceBuild, path: string): string {
  const inFixtures = relative(FIXTURES, resolve(REPO_ROOT, path))
  if (inFixtures.startsWith('..') || inFixtures.includes(sep)) return path
  return join(build.dir, 'test', 'fixtures', inFixtures)
}

let thisProcess: Promise<ServiceBuild> | undefined

/** This run's build (made on first use, once per run under `npm test`, else once per test process). */
export function serviceBuild (): Promise<ServiceBuild> {
  thisProcess ??= process.env.TEST_BUILD_DIR ? sharedBuild(process.env.TEST_BUILD_DIR) : ownBuild()
  return thisProcess
}

/**
 * Starts this run's build now, so that it goes on while the test sets up (a
 * database, an app, Redis) instead of after; whatever it ends with is what
 * serviceBuild() later gives, so a failure is reported there.
 */
export function prepareServiceBuild (): void {
  serviceBuild().catch(() => {})
}

async function ownBuild (): Promise<ServiceBuild> {
  const cache = join(REPO_ROOT, '.cache')
  mkdirSync(cache, { recursive: true })
  const folder = mkdtempSync(join(cache, 'service-build-'))
  // Synchronous, so it runs whatever ends the process (a failed assertion, tap's timeout).
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }))
  return buildInto(join(folder, 'service'))
}

/**
 * The run's build in `runDir`: the process that creates the lock folder first
 * builds, writes the result to a file (renamed into place, so it is whole), and
 * every other process waits for that file. A builder that died before writing
 * it (its pid gone) leaves the lock to the next. `build` is scripts/build.mjs
 * and the test plugins (test/kit/service-build.test.ts gives a stand-in).
 */
export async function sharedBuild (runDir: string, build: (dir: string) => Promise<ServiceBuild> = buildInto): Promise<ServiceBuild> {
  const lock = join(runDir, 'service.lock')
  const done = join(runDir, 'service.json')
  const dir = join(runDir, 'service')
  mkdirSync(runDir, { recursive: true })
  for (;;) {
    if (existsSync(done)) return { dir, ...JSON.parse(readFileSync(done, 'utf8')) as Omit<ServiceBuild, 'dir'> }
    let mine = false
    try { mkdirSync(lock); mine = true } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err }
    if (mine) {
      writeFileSync(join(lock, 'pid'), String(process.pid))
      const built = await build(dir)
      writeFileSync(`${done}.part`, JSON.stringify({ status: built.status, output: built.output }))
      renameSync(`${done}.part`, done)
      return built
    }
    const owner = Number(readFileIfAny(join(lock, 'pid')))
    if (owner && !alive(owner) && !existsSync(done)) rmSync(lock, { recursive: true, force: true })
    await new Promise(r => setTimeout(r, 100))
  }
}

const readFileIfAny = (path: string) => { try { return readFileSync(path, 'utf8') } catch { return '' } }
const alive = (pid: number) => { try { process.kill(pid, 0); return true } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM' } }

/** scripts/build.mjs --outdir dir, then the test plugins and tools configs beside it. */
async function buildInto (dir: string): Promise<ServiceBuild> {
  // Without the test loaders: the build's last step makes the V8 code cache in a process with
  // `npm start`'s flags, and a cache made under other options would be refused by the children.
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs'), '--outdir', dir], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d) => { output += d })
  child.stderr.on('data', (d) => { output += d })
  const [status] = await new Promise<[number | null]>(resolveExit => child.once('close', code => resolveExit([code])))
  if (status !== 0) return { dir, status, output }
  try {
    await compileTestPlugins(dir)
  } catch (err) {
    return { dir, status: 1, output: `${output}compiling test/fixtures/plugins failed: ${(err as Error).stack}` }
  }
  return { dir, status, output }
}

function tsFilesUnder (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e => e.isDirectory() ? tsFilesUnder(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [])
}

/**
 * test/fixtures/plugins/ compiled module by module (no bundling: each keeps its
 * imports, as an out-of-tree plugin's files do), `.ts` in relative specifiers
 * made `.js` (same length, so the source maps stay right). The kernel's contract
 * they import (`../../../../core/tools/contract.ts`) is then the build's
 * core/tools/contract.js, the one the compiled kernel checks errors against.
 */
async function compileTestPlugins (dir: string): Promise<void> {
  const { build } = await import('esbuild')
  const outdir = join(dir, 'test', 'fixtures', 'plugins')
  const result = await build({
    entryPoints: tsFilesUnder(FIXTURE_PLUGINS),
    outdir,
    outbase: FIXTURE_PLUGINS,
    absWorkingDir: REPO_ROOT,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20.11',
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    tsconfig: join(REPO_ROOT, 'tsconfig.json'),
  })
  const relativeTs = /((?:from\s*|import\s*\(\s*|import\s+|new URL\(\s*)(["']))(\.\.?\/[^"']+)\.ts\2/g
  for (const output of Object.keys(result.metafile.outputs)) {
    if (!output.endsWith('.js')) continue
    const file = resolve(REPO_ROOT, output)
    writeFileSync(file, readFileSync(file, 'utf8').replace(relativeTs, (_, lead: string, quote: string, path: string) => `${lead}${path}.js${quote}`))
  }
  for (const name of readdirSync(FIXTURES)) {
    if (/^tools\..*\.json$/.test(name)) {
      mkdirSync(join(dir, 'test', 'fixtures'), { recursive: true })
      writeFileSync(join(dir, 'test', 'fixtures', name), readFileSync(join(FIXTURES, name)))
    }
  }
}
