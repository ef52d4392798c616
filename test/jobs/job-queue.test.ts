// The in-process scheduler alone, with a handler the test finishes by hand:
// which job gets each freed slot, deterministically.
import t from 'tap'
import { InProcessQueue } from '../../core/jobs/job-queue.ts'

/** A queue whose jobs run until the test calls finish(id); `started` is the order of claims. */
function harness (concurrency: number) {
  const started: string[] = []
  const pending = new Map<string, () => void>()
  const queue = new InProcessQueue(concurrency, (id) => {
    started.push(id)
    return new Promise<void>(resolve => pending.set(id, resolve))
  })
  const settle = () => new Promise(resolve => setImmediate(resolve))
  return {
    queue,
    started,
    async finish (id: string) {
      const done = pending.get(id)
      if (!done) throw new Error(`${id} is not running`)
      pending.delete(id)
      done()
      await settle()
    },
    /** Closes the queue and ends whatever still runs. */
    async shutdown () {
      const closing = queue.close()
      for (const done of pending.values()) done()
      pending.clear()
      await closing
    },
  }
}

t.test('one account\'s backlog: another account\'s first job takes the next free slot', async t => {
  const h = harness(2)
  for (let i = 1; i <= 50; i++) h.queue.enqueue({ id: `a${i}`, accountId: 'A', maxRunning: 4, place: i })
  t.same(h.started, ['a1', 'a2'])
  h.queue.enqueue({ id: 'b1', accountId: 'B', maxRunning: 4, place: 1 })
  h.queue.enqueue({ id: 'c1', accountId: 'C', maxRunning: 4, place: 1 })
  t.same(h.started, ['a1', 'a2'], 'no free slot yet')
  await h.finish('a1')
  t.same(h.started.slice(2), ['b1'], 'B is next after one turnover')
  await h.finish('a2')
  t.same(h.started.slice(3), ['c1'], 'then C')
  await h.finish('b1')
  t.same(h.started.slice(4), ['a3'], 'then A again, in its own order')
  await h.finish('c1')
  t.same(h.started.slice(5), ['a4'])
  t.equal(h.queue.size(), 48)
  await h.shutdown()
})

t.test('round robin across accounts with backlogs', async t => {
  const h = harness(1)
  for (const account of ['A', 'B', 'C']) for (let i = 1; i <= 3; i++) h.queue.enqueue({ id: `${account}${i}`, accountId: account, maxRunning: 4, place: i })
  for (let i = 0; i < 8; i++) await h.finish(h.started[h.started.length - 1]!)
  t.same(h.started, ['A1', 'B1', 'C1', 'A2', 'B2', 'C2', 'A3', 'B3', 'C3'])
  await h.finish('C3')
  t.equal(h.queue.size(), 0)
})

t.test('an account never runs more than its cap, even with slots free', async t => {
  const h = harness(4)
  for (let i = 1; i <= 5; i++) h.queue.enqueue({ id: `a${i}`, accountId: 'A', maxRunning: 2, place: i })
  t.same(h.started, ['a1', 'a2'], 'two of A\'s five run; two slots stay free')
  h.queue.enqueue({ id: 'b1', accountId: 'B', maxRunning: 2, place: 1 })
  t.same(h.started, ['a1', 'a2', 'b1'], 'B starts at once')
  await h.finish('a1')
  t.same(h.started, ['a1', 'a2', 'b1', 'a3'], 'A\'s next job when one of its own ends')
  await h.shutdown()
})

t.test('close drops the waiting jobs and waits for the running ones', async t => {
  const h = harness(1)
  h.queue.enqueue({ id: 'a1', accountId: 'A', maxRunning: 1, place: 1 })
  h.queue.enqueue({ id: 'a2', accountId: 'A', maxRunning: 1, place: 2 })
  let closed = false
  const closing = h.queue.close().then(() => { closed = true })
  await new Promise(resolve => setImmediate(resolve))
  t.notOk(closed, 'a1 still runs')
  await h.finish('a1')
  await closing
  t.same(h.started, ['a1'], 'a2 never starts')
  h.queue.enqueue({ id: 'a3', accountId: 'A', maxRunning: 1, place: 1 })
  t.same(h.started, ['a1'], 'nothing is taken after close')
})
