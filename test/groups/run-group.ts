// The body of every group file (test/groups/<name>.group.ts): imports the group's
// member test files (test/groups/groups.json) one after the other into this one test
// process. Each member's top-level `t.test`s register on the root tap in order, as
// they do when the member runs alone, with their own apps and teardowns; what the
// group saves is the process's fixed cost (Node, tap, the app's modules, the first
// build), paid once instead of once per member. How members are chosen: README, "Tests".
import { basename, dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import t from 'tap'
import { GROUPS_LIST, readGroups } from '../../scripts/test-files.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Runs the group named by the calling group file's name (`<name>.group.ts`); rejects if a member fails to load. */
export function runGroup (groupFileUrl: string): Promise<void> {
  const name = basename(fileURLToPath(groupFileUrl), '.group.ts')
  const members = readGroups(ROOT)[name]
  if (!members?.length) throw new Error(`${GROUPS_LIST} has no group "${name}"`)
  const loaded = (async () => {
    for (const member of members) {
      // Which member the next tests come from, in the TAP output (queued in order, like the tests).
      t.comment(member)
      // One at a time: a member's top-level awaits end before the next member's tests register.
      await import(pathToFileURL(join(ROOT, member)).href)
    }
  })()
  // The root waits on the loading (no test point of its own) before it runs anything queued
  // behind it, so every member's tests are registered, in member order, before the first runs.
  // Loaded between root tests instead, the root could go idle while a member loads, and once
  // anything has added a root teardown (build.ts's shared extraction pool, the PostgreSQL
  // template) tap ends an idle root: the next member's tests would come after its end.
  t.waitOn(loaded.catch(() => {}))
  return loaded
}
