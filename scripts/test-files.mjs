// Which files `npm test` runs when it is given none (scripts/test.mjs): every group of
// test/groups/groups.json, one test process each, and every test file that is in no
// group, alone as before. On PostgreSQL (TEST_DATABASE_URL), the files that never open
// a database are left out: they ran on SQLite, and nothing in them reads the database
// (databaseFreeFiles below). A test file's fixed cost (Node, tap, the app's modules, the
// first build: ≈ 4 s of CPU) is paid once per group instead of once per member
// (scripts/bench/README.md, "The test suite", fifth pass). Also read by
// test/groups/grouping.test.ts, which checks that this list covers every test file once.
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve, sep } from 'node:path'

/** The one list of groups: group name → member test files (repository-relative paths), in run order. */
export const GROUPS_LIST = 'test/groups/groups.json'

/** A group's file: a name tap's `include` (test/**\/*.test.ts) does not match, so a bare `tap run` never runs a member twice. */
export const groupFile = (name) => `test/groups/${name}.group.ts`

/** @returns {Record<string, string[]>} */
export function readGroups (root) {
  return JSON.parse(readFileSync(join(root, GROUPS_LIST), 'utf8'))
}

/** Every file tap's `include` matches (`test/**\/*.test.ts`), repository-relative, sorted. */
export function allTestFiles (root) {
  return readdirSync(join(root, 'test'), { recursive: true })
    .map(entry => `test/${String(entry).split(sep).join('/')}`)
    .filter(path => path.endsWith('.test.ts'))
    .sort()
}

/**
 * The groups' files, then every test file in no group. `skip` (repository-relative
 * test files) leaves out those files and every group whose members are all in it;
 * a group with one member outside it runs whole.
 */
export function defaultTestFiles (root, skip = new Set()) {
  const groups = readGroups(root)
  const grouped = new Set(Object.values(groups).flat())
  const groupFiles = Object.entries(groups).filter(([, members]) => !members.every(m => skip.has(m))).map(([name]) => groupFile(name))
  return [...groupFiles, ...allTestFiles(root).filter(path => !grouped.has(path) && !skip.has(path))]
}

/**
 * What in a test's module graph makes it a database test: the service's database
 * modules and generated clients, or (in the test's own files) a database address or a
 * program of the service started as a child, which opens one of its own.
 */
const DATABASE_MODULE = /^(core\/db\/|prisma\/generated\/)/
const DATABASE_TEXT = /DATABASE_URL|core\/(server|worker)\.ts|dist\/core\/|npm (start|run)|scripts\/cluster/

/**
 * An import() whose path is computed (esbuild cannot follow it), in a test-side module
 * with its comments taken out: the module counts as a database test, since what it
 * loads is unknown, unless it is one of COMPUTED_IMPORTS_KNOWN.
 */
const COMPUTED_IMPORT = /\bimport\(\s*(?!['"`][^'"`$]*['"`]\s*\))/
const COMMENTS = /\/\*[\s\S]*?\*\/|(^|[^:])\/\/.*$/gm
/** Test-side modules whose computed import() paths are known to open no database, and why. */
const COMPUTED_IMPORTS_KNOWN = new Map([
  ['test/helpers/tool-context.ts', "a tool's extraction modules, which run in worker threads"],
  ['test/plugins/lazy-load.test.ts', "the plugins' declarations, in a child that only logs which modules they load"],
])

/** A test-side module's text names a database or a service program, or loads something unknown (a computed import()). */
export function namesDatabase (path, text) {
  return DATABASE_TEXT.test(text) || (!COMPUTED_IMPORTS_KNOWN.has(path) && COMPUTED_IMPORT.test(text.replace(COMMENTS, '$1')))
}

/**
 * The test files (repository-relative) whose whole module graph, followed by esbuild
 * from the file through every static and literal dynamic import of the repository's
 * code, reaches no database module and names no database or service program: their
 * result cannot depend on which database the suite was given. If the graph cannot be
 * built, every file counts as a database test, and so does a file whose graph holds a
 * test-side module with a computed import() path (COMPUTED_IMPORT), unless that
 * module is known to load no database (COMPUTED_IMPORTS_KNOWN).
 */
export async function databaseFreeFiles (root, files = allTestFiles(root)) {
  const { build } = await import('esbuild')
  const result = await build({
    absWorkingDir: resolve(root),
    entryPoints: files,
    outdir: 'database-free-check', // nothing is written
    write: false,
    bundle: true,
    splitting: true, // each module compiled once, not once per file that imports it
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  }).catch(() => null)
  if (!result) return new Set()
  // The import graph of every module (metafile.inputs), walked from each file.
  const { inputs } = result.metafile
  const direct = new Map()
  const usesDatabase = (path) => {
    if (!direct.has(path)) direct.set(path, DATABASE_MODULE.test(path) || (path.startsWith('test/') && namesDatabase(path, readFileSync(join(root, path), 'utf8'))))
    return direct.get(path)
  }
  const free = new Set()
  for (const file of files) {
    const seen = new Set([file])
    const next = [file]
    let database = !inputs[file]
    while (next.length && !database) {
      const path = next.pop()
      if (usesDatabase(path)) database = true
      for (const { path: imported, external } of inputs[path]?.imports ?? []) {
        if (!external && !seen.has(imported)) { seen.add(imported); next.push(imported) }
      }
    }
    if (!database) free.add(file)
  }
  return free
}

/**
 * The arguments of `npm test -- …` that name test files or folders, not tap options
 * or their values (`--jobs 2`, `-R terse`): a path, i.e. it holds a `/` or ends in
 * `.ts`. With none, `npm test` runs defaultTestFiles().
 */
export function fileArguments (args) {
  return args.filter(arg => !arg.startsWith('-') && (arg.includes('/') || arg.endsWith('.ts')))
}
