// The grouping of small test files (test/groups/groups.json, README "Tests"): every
// member is a test file that still runs alone, none is in two groups, each group has
// its file, and `npm test`'s default list runs every test file exactly once, so a new
// test file is never silently skipped and no member runs twice.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { allTestFiles, databaseFreeFiles, defaultTestFiles, fileArguments, groupFile, GROUPS_LIST, namesDatabase, readGroups } from '../../scripts/test-files.mjs'

const ROOT = '.'
const groups = readGroups(ROOT)
const testFiles = allTestFiles(ROOT)

t.test('tap runs test/**/*.test.ts: the files allTestFiles lists, and no group file', async t => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { tap: { include: string[] } }
  t.same(pkg.tap.include, ['test/**/*.test.ts'], 'allTestFiles mirrors this pattern: change both together')
  t.ok(testFiles.length > 100, `${testFiles.length} test files`)
  t.ok(testFiles.includes('test/groups/grouping.test.ts'))
  for (const name of Object.keys(groups)) t.notOk(groupFile(name).endsWith('.test.ts'), `${name}: a bare tap run does not pick the group file up`)
})

t.test('every member is an existing test file, in one group only; every group has its file and members', async t => {
  const seen = new Map<string, string>()
  for (const [name, members] of Object.entries(groups)) {
    t.match(name, /^[a-z0-9-]+$/, `group name ${name}`)
    t.ok(members.length >= 2, `${name}: two or more members`)
    t.ok(existsSync(groupFile(name)), `${groupFile(name)} exists`)
    for (const member of members) {
      t.ok(testFiles.includes(member), `${name}: ${member} is a test file tap's include matches`)
      if (seen.has(member)) t.fail(`${member} is in ${seen.get(member)} and ${name}`)
      seen.set(member, name)
    }
  }
  const groupFiles = readdirSync('test/groups').filter(f => f.endsWith('.group.ts')).map(f => `test/groups/${f}`).sort()
  t.same(groupFiles, Object.keys(groups).map(groupFile).sort(), `each .group.ts has its entry in ${GROUPS_LIST}`)
})

t.test('npm test\'s default list runs every test file exactly once', async t => {
  const runs = new Map<string, number>()
  for (const file of defaultTestFiles(ROOT)) {
    const name = /^test\/groups\/(.+)\.group\.ts$/.exec(file)?.[1]
    for (const member of name ? groups[name]! : [file]) runs.set(member, (runs.get(member) ?? 0) + 1)
  }
  t.same([...runs.keys()].sort(), testFiles, 'every test file, none other')
  t.same([...runs].filter(([, n]) => n !== 1), [], 'none twice')
})

// What a member may not do: these would reach the other members of its process.
const PROCESS_LEVEL: Array<[RegExp, string]> = [
  [/^(t|tap)\.(plan|before|beforeEach|after|afterEach|teardown|end|setTimeout|jobs)\b/m, 'a hook or setting of the root test at top level'],
  [/\bmock(Import|Require)\b/, 't.mockImport'],
  [/^process\.(env\b.*[^=!]=[^=]|on\(|once\()/m, 'a process.env write or process listener at top level'],
  [/ownExtractionPool/, 'a test of the extraction pool\'s life'],
  // run-group.ts imports the members inside a root subtest: their root tests wait for it to end.
  [/^await (t|tap)\.test\b/m, 'top-level await of a root test (in a group it would wait on the group\'s import)'],
  // The process's CPU or memory counts what the other members left behind or run beside it.
  [/\b(watchBufferPeak|cpuUsage|memoryUsage)\b/, 'a measure of the process\'s CPU or memory'],
  [/\bchild_process\b|\bopenBrowser\b|\b(childWorker|serviceBuild|prepareServiceBuild|serviceCommand)\b/, 'a child process (the service started from its build) or a browser'],
]

t.test('no member touches what its group shares at process level', async t => {
  const found = Object.values(groups).flat().flatMap(member => {
    const source = readFileSync(member, 'utf8')
    return PROCESS_LEVEL.filter(([pattern]) => pattern.test(source)).map(([, what]) => `${member}: ${what}`)
  })
  t.same(found, [], 'read a file before grouping it (README, "Tests"); these stay alone')
})

t.test('npm test tells file arguments from tap options', async t => {
  t.same(fileArguments([]), [])
  t.same(fileArguments(['--jobs=2']), [], '.ci/run\'s SQLite and PostgreSQL suites: the default list')
  t.same(fileArguments(['--jobs', '2', '-R', 'terse']), [], 'option values are not files')
  t.same(fileArguments(['--jobs=2', 'test/jobs/a.test.ts', 'test/agent/b.test.ts']), ['test/jobs/a.test.ts', 'test/agent/b.test.ts'])
  t.same(fileArguments(['test/kernel']), ['test/kernel'], 'a folder')
  t.same(fileArguments(['x.test.ts']), ['x.test.ts'])
})

t.test('on PostgreSQL, only files that cannot open a database are left out, and every other file still runs once', async t => {
  const free = await databaseFreeFiles(ROOT)
  t.ok(free.size > 10 && free.size < testFiles.length / 2, `${free.size} of ${testFiles.length} files open no database`)
  t.ok(free.has('test/extract/emails.test.ts'), 'a parser test')
  t.ok(free.has('test/plugins/websearch/parsers.test.ts'))
  for (const file of ['test/kernel/me.test.ts', 'test/jobs/lifecycle.test.ts', 'test/cluster/worker-processes.test.ts', 'test/kernel/compiled-start.test.ts', 'test/exec/media-programs.test.ts']) {
    t.notOk(free.has(file), `${file} opens one (directly or through a helper)`)
  }
  // Whatever names a database, a test app or a service program in its own text runs on PostgreSQL.
  const named = testFiles.filter(file => /helpers\/(build|jobs)\.ts|DATABASE_URL|core\/(server|worker)\.ts|npm (start|run)/.test(readFileSync(file, 'utf8')))
  t.same(named.filter(file => free.has(file)), [], 'no file that names a database or builds an app is left out')

  // A computed import() path, which esbuild cannot follow, makes a test-side module a database test.
  t.ok(namesDatabase('test/x.test.ts', 'const m = await import(url.href)'), 'a computed import() path')
  t.ok(namesDatabase('test/x.test.ts', 'await import(`../${name}.ts`)'), 'a template with a value in it')
  t.notOk(namesDatabase('test/x.test.ts', "const m = await import('../../core/logger.ts')"), 'a literal path (esbuild follows it)')
  t.notOk(namesDatabase('test/x.test.ts', '// loads each with import(href)\n/** or import(module.href) */\nconst a = 1'), 'in comments')
  t.notOk(namesDatabase('test/helpers/tool-context.ts', 'await import(module.href)'), 'a module known to load no database')

  const runs = new Map<string, number>()
  for (const file of defaultTestFiles(ROOT, free)) {
    const name = /^test\/groups\/(.+)\.group\.ts$/.exec(file)?.[1]
    for (const member of name ? groups[name]! : [file]) runs.set(member, (runs.get(member) ?? 0) + 1)
  }
  t.same(testFiles.filter(file => !free.has(file) && runs.get(file) !== 1), [], 'every database test runs once')
  t.same(Object.entries(groups).filter(([, members]) => members.every(m => free.has(m)) && members.some(m => runs.has(m))).map(([name]) => name), [], 'a group of database-free files only is left out whole')
})
