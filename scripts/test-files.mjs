// Which files `npm test` runs when it is given none (scripts/test.mjs): every group of
// test/groups/groups.json, one test process each, and every test file that is in no
// group, alone as before. A test file's fixed cost (Node, tap, the app's modules, the
// first build: ≈ 4 s of CPU) is paid once per group instead of once per member
// (scripts/bench/README.md, "The test suite", fifth pass). Also read by
// test/groups/grouping.test.ts, which checks that this list covers every test file once.
import { readdirSync, readFileSync } from 'node:fs'
import { join, sep } from 'node:path'

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

/** The groups' files, then every test file in no group. */
export function defaultTestFiles (root) {
  const groups = readGroups(root)
  const grouped = new Set(Object.values(groups).flat())
  return [...Object.keys(groups).map(groupFile), ...allTestFiles(root).filter(path => !grouped.has(path))]
}

/**
 * The arguments of `npm test -- …` that name test files or folders, not tap options
 * or their values (`--jobs 2`, `-R terse`): a path, i.e. it holds a `/` or ends in
 * `.ts`. With none, `npm test` runs defaultTestFiles().
 */
export function fileArguments (args) {
  return args.filter(arg => !arg.startsWith('-') && (arg.includes('/') || arg.endsWith('.ts')))
}
