// WebhookSender.close() during a delivery attempt: the attempt is aborted and
// the back-off that would follow is skipped, so a shutdown does not wait for a
// retry delay (a sleep on an already-aborted signal used to keep its full timer).
import t from 'tap'
import pino from 'pino'
import { WebhookSender } from '../../core/jobs/webhooks.ts'
import { SecretScrubber } from '../../core/secrets/secret-scrubber.ts'
import type { NetFactory } from '../../core/jobs/net-factory.ts'
import type { JobStatusRecord } from '../../core/jobs/job-view.ts'

t.test('close() during an attempt ends the delivery at once, without the 60 s back-off', async t => {
  let attempts = 0
  let started!: () => void
  const attemptStarted = new Promise<void>(resolve => { started = resolve })
  // An upstream that never answers: the attempt ends only when the sender's signal aborts it.
  const net = {
    http: (signal: AbortSignal) => ({
      fetch: () => new Promise((_resolve, reject) => {
        attempts++
        started()
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })
      }),
      close: async () => {},
    }),
  } as unknown as NetFactory
  const sender = new WebhookSender(net, pino({ level: 'silent' }), new SecretScrubber([]), { attempts: 3, baseDelayMs: 60_000 })
  sender.deliver({ id: 'job-1', webhook: JSON.stringify({ url: 'https://hooks.example/x' }) }, { job_id: 'job-1', status: 'done' } as JobStatusRecord)
  await attemptStarted
  const t0 = performance.now()
  await sender.close()
  t.ok(performance.now() - t0 < 10_000, `close() returned after ${Math.round(performance.now() - t0)} ms, not after the back-off`)
  t.equal(attempts, 1, 'no further attempt after the close')
})
