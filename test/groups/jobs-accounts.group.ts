// Test group "jobs-accounts": its members (test/groups/groups.json) in one test process.
import { runGroup } from './run-group.ts'

await runGroup(import.meta.url)
