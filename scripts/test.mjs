#!/usr/bin/env node
// `npm test`: runs the tap suite and ends with the line CI reads,
// `N passed, N failed`, taken from tap's own final count.
//
// Two things make the run faster without touching what a test checks
// (measurements in scripts/bench/README.md, "The test suite"):
// - test/helpers/tsx-preload.mjs, through NODE_OPTIONS, has tsx compile each test
//   process's TypeScript instead of tap's uncached ts-node;
// - the test apps' temporary folders (SQLite files, job files) go to a memory-backed
//   folder when the machine has one with room (/dev/shm), so the database's fsyncs
//   cost nothing. TEST_TMPDIR=<dir> chooses the folder; TEST_TMPDIR=os keeps the system's;
// - TypeBox is bundled once per run into that folder and the test processes load the
//   bundle instead of the package's 683 files (test/helpers/test-process-hooks.mjs);
//   TEST_TYPEBOX=package keeps the package's files;
// - with no test files named, the small files of test/groups/groups.json run in
//   groups, one process a group (scripts/test-files.mjs), and every other file alone;
//   TEST_GROUPS=off runs every file alone. Named files (`npm test -- test/x.test.ts`,
//   .ci/run's distributed suite) run exactly as named;
// - on PostgreSQL (TEST_DATABASE_URL), the test files that never open a database
//   (test-files.mjs, databaseFreeFiles) are left out: they ran on SQLite, and their
//   result cannot depend on the database. TEST_DATABASE_FREE=run keeps them
//   (TEST_DATABASE_FREE=kernel,jobs: those of these folders of test/);
// - TEST_DIRS=kernel,jobs runs only those folders of test/ (`!kernel,jobs`: every other);
// - the tests that start the service as a child process (workers, servers) start it
//   compiled, as `npm start` and `npm run worker` do, from one build of the source per
//   run, made by the first test process that needs it in a per-run folder inside the
//   repository (TEST_BUILD_DIR, removed at the end; test/helpers/service-build.ts).
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { allTestFiles, databaseFreeFiles, defaultTestFiles, fileArguments } from './test-files.mjs'

const preload = pathToFileURL(fileURLToPath(new URL('../test/helpers/tsx-preload.mjs', import.meta.url))).href
const MEMORY_DIR = '/dev/shm'
const MEMORY_NEEDED = 2 * 1024 ** 3

function scratchParent () {
  const chosen = process.env.TEST_TMPDIR
  if (chosen === 'os') return tmpdir()
  if (chosen) return chosen
  try {
    const fs = statfsSync(MEMORY_DIR)
    if (fs.bavail * fs.bsize >= MEMORY_NEEDED) return MEMORY_DIR
  } catch {}
  return tmpdir()
}

/**
 * The installed TypeBox as one ES module per entry of its `exports` (`typebox`,
 * `typebox/compile`…) plus shared chunks, so the entries share one copy of its code
 * and state, as in the package. Returns the folder (entry `x` is `x/index.mjs`).
 */
async function bundleTypebox (outdir) {
  const { build } = await import('esbuild')
  const entry = createRequire(import.meta.url).resolve('typebox') // <package>/build/index.mjs
  const packageDir = dirname(dirname(entry))
  const { exports } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
  const entryPoints = Object.entries(exports).map(([path, target]) => ({
    in: join(packageDir, target.import),
    out: path === '.' ? 'index' : `${path.slice(2)}/index`,
  }))
  await build({ entryPoints, outdir, bundle: true, splitting: true, format: 'esm', platform: 'node', outExtension: { '.js': '.mjs' }, logLevel: 'warning' })
  return outdir
}

// One folder per run, removed at the end, so a crashed test's leftovers do not stay in memory.
const scratch = mkdtempSync(join(scratchParent(), 'ejs-run-'))
const ROOT = fileURLToPath(new URL('..', import.meta.url))
// The compiled service must sit inside the repository (it finds package.json, prisma/ and
// node_modules above itself), so its folder is not the scratch one; it stays empty unless a test needs it.
mkdirSync(join(ROOT, '.cache'), { recursive: true })
const buildDir = mkdtempSync(join(ROOT, '.cache', 'test-run-'))
const typeboxBundle = process.env.TEST_TYPEBOX === 'package' ? '' : await bundleTypebox(join(scratch, 'typebox'))
const env = {
  ...process.env,
  TMPDIR: scratch,
  TEST_TYPEBOX_BUNDLE: typeboxBundle,
  TEST_BUILD_DIR: buildDir,
  NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${preload}`].filter(Boolean).join(' '),
}

const given = process.argv.slice(2)
const named = fileArguments(given).length > 0
// On PostgreSQL, the files that never open a database are left out (they ran on
// SQLite; test-files.mjs, databaseFreeFiles); TEST_DATABASE_FREE=run keeps them,
// TEST_DATABASE_FREE=kernel,jobs keeps those of these folders of test/.
const keptFree = new Set((process.env.TEST_DATABASE_FREE ?? '').split(',').map(dir => dir.trim()))
const skipped = !named && process.env.TEST_DATABASE_URL && !keptFree.has('run')
  ? new Set([...await databaseFreeFiles(ROOT)].filter(path => !keptFree.has(path.split('/')[1])))
  : new Set()
if (skipped.size) console.log(`# ${skipped.size} test files that open no database are left out on PostgreSQL (TEST_DATABASE_FREE=run runs them)`)
// TEST_DIRS=kernel,jobs names the folders of test/ to run (`!kernel,jobs`: all but those), groups
// kept: .ci/run runs those three on a current LTS and the rest on the machine's Node.
const dirs = process.env.TEST_DIRS ? /^(!?)(.*)$/.exec(process.env.TEST_DIRS) : null
if (dirs && !named) {
  const listed = new Set(dirs[2].split(',').map(dir => dir.trim()).filter(Boolean))
  const without = dirs[1] === '!'
  for (const path of allTestFiles(ROOT)) if (listed.has(path.split('/')[1]) === without) skipped.add(path)
}
const files = named
  ? []
  : process.env.TEST_GROUPS === 'off' ? allTestFiles(ROOT).filter(path => !skipped.has(path)) : defaultTestFiles(ROOT, skipped)
const args = ['tap', 'run', '--reporter=tap', ...given, ...files]
const child = spawn('npx', args, { stdio: ['inherit', 'pipe', 'inherit'], env })
let tail = ''
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  tail = (tail + chunk.toString()).slice(-4096)
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('close', (code) => {
  rmSync(scratch, { recursive: true, force: true })
  rmSync(buildDir, { recursive: true, force: true })
  // tap ends with a line like `# { total: 120, pass: 118, fail: 1, skip: 1 }`.
  const summary = [...tail.matchAll(/^# \{ (total: \d+[^}]*)\}$/gm)].pop()?.[1] ?? ''
  const count = (name) => Number(new RegExp(`${name}: (\\d+)`).exec(summary)?.[1] ?? 0)
  const failed = count('fail') + (summary ? 0 : 1)
  console.log(`${count('pass')} passed, ${failed} failed`)
  process.exit(code ?? 1)
})
