// Route fuzz, shard 3 of 3 (the harness and the property: _route-fuzz.ts).
import t from 'tap'
import { fuzzShard } from './_route-fuzz.ts'

// About 13,000 requests, ~50 s of CPU; 15 minutes or more of wall time when the machine is shared (hence the long timeout).
t.setTimeout(1_800_000)
t.test('fuzzed routes never answer 5xx, and every error is {detail}', async t => fuzzShard(t as never, 2, 3))
