// The run supervisor on its own, with a recording ending and recorder: how a
// run's end (returned, threw, stopped for each reason) becomes one ending or
// the shutdown hand-back, after the rows are settled and flushed, with the
// timer and heartbeat released.
import t from 'tap'
import pino from 'pino'
import type { JobEnd, RunResidue } from '../../core/jobs/job-ending.ts'
import { newLiveRun, stopRun, superviseRun, type StopReason } from '../../core/jobs/run-supervisor.ts'
import { ToolBlockedError, UpstreamError } from '../../core/tools/contract.ts'

const JOB = { id: 'job-1', accountId: 'acc', tool: 'counter', createdAt: new Date(0), retentionHours: 1 }

function harness (options: { requeued?: boolean } = {}) {
  const calls: string[] = []
  const ends: Array<{ end: JobEnd, residue: RunResidue | undefined }> = []
  const ending = {
    endJob: async (_job: unknown, end: JobEnd, residue?: RunResidue) => { calls.push('endJob'); ends.push({ end, residue }); return true },
    requeue: async () => { calls.push('requeue'); return options.requeued ?? true },
  }
  const recorder = {
    started: () => { calls.push('started') },
    settled: async () => { calls.push('settled') },
    flush: async () => { calls.push('flush') },
    residue: (done: boolean) => ({ records: 0, warning: done ? 'empty' : null }),
    startHeartbeat: () => { calls.push('heartbeat on') },
    stopHeartbeat: () => { calls.push('heartbeat off') },
  }
  const { live, letGo } = newLiveRun()
  const supervise = (run: () => Promise<unknown>, timeoutSeconds = 60) =>
    superviseRun(ending, { job: JOB, live, recorder, run, close: async () => { calls.push('close') }, timeoutSeconds, heartbeatMs: 60_000, log: pino({ level: 'silent' }) })
  return { calls, ends, live, letGo, supervise }
}

/** A run that waits for its signal, as a well-behaved plugin does. */
const untilStopped = (signal: AbortSignal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)))

t.test('a run that returns ends done, after its rows settle and flush, with the recorder\'s residue', async t => {
  const { calls, ends, supervise, live } = harness()
  t.equal(await supervise(async () => {}), 'ended')
  t.same(calls, ['heartbeat on', 'started', 'settled', 'heartbeat off', 'close', 'flush', 'endJob'])
  t.same(ends, [{ end: { status: 'done' }, residue: { records: 0, warning: 'empty' } }])
  t.equal(live.controller.signal.aborted, false)
})

t.test('a thrown outcome error becomes its ending; anything else is a refunded generic error', async t => {
  const blocked = harness()
  await blocked.supervise(async () => { throw new ToolBlockedError('captcha at https://x.example/p?token=1') })
  t.match(blocked.ends[0]!.end, { status: 'error', blocked: true, refund: true })
  t.notMatch((blocked.ends[0]!.end as { error: string }).error, /token=1/, 'an upstream text loses its URL queries')
  const upstream = harness()
  await upstream.supervise(async () => { throw new UpstreamError('HTTP 502') })
  t.match(upstream.ends[0]!.end, { status: 'error', refund: true, blocked: false })
  const bug = harness()
  await bug.supervise(async () => { throw new TypeError('x is undefined') })
  t.match(bug.ends[0]!.end, { status: 'error', refund: true, error: /failed unexpectedly/ })
  t.equal(bug.ends[0]!.residue?.warning, null, 'a failed run is not called empty')
})

const stopped: Array<[StopReason, JobEnd | 'requeue']> = [
  ['cap', { status: 'done' }],
  ['cancelled', { status: 'cancelled' }],
  ['ended', { status: 'cancelled' }],
  ['shutdown', 'requeue'],
]
for (const [reason, expected] of stopped) {
  t.test(`a run stopped for '${reason}' ends accordingly, even when the plugin ignores its signal`, async t => {
    const { calls, ends, live, supervise } = harness()
    const result = supervise(() => new Promise(() => {}))
    stopRun(live, reason)
    stopRun(live, 'timeout')
    t.equal(live.stopReason, reason, 'the first reason stands')
    if (expected === 'requeue') {
      t.equal(await result, 'requeued')
      t.same(calls.slice(-2), ['flush', 'requeue'])
      t.same(ends, [])
    } else {
      t.equal(await result, 'ended')
      t.same(ends.map(e => e.end), [expected])
    }
  })
}

t.test('a shutdown hand-back that finds the job ended elsewhere reports it ended', async t => {
  const { live, supervise } = harness({ requeued: false })
  const result = supervise(() => untilStopped(live.controller.signal))
  stopRun(live, 'shutdown')
  t.equal(await result, 'ended')
})

t.test('the timeout stops the run and ends it with the tool\'s timeout in its text', async t => {
  const { ends, live, supervise } = harness()
  t.equal(await supervise(() => untilStopped(live.controller.signal), 0.01), 'ended')
  t.equal(live.stopReason, 'timeout')
  t.same(ends.map(e => e.end), [{ status: 'error', error: 'The job did not finish within 0.01 s and was stopped.', refund: true }])
})

t.test('newLiveRun: done resolves when the runner lets go', async t => {
  const { live, letGo } = harness()
  let resolved = false
  live.done.then(() => { resolved = true })
  await Promise.resolve()
  t.equal(resolved, false)
  letGo()
  await live.done
  t.equal(resolved, true)
})
