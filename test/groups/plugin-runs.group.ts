// Test group "plugin-runs": its members (test/groups/groups.json) in one test process.
import { runGroup } from './run-group.ts'

await runGroup(import.meta.url)
