// The contract's list input: listItems reads the declared param (one value or
// a list; trimmed, de-duplicated, cut with a warning) and eachItem applies the
// declared per-item failure policy.
import t from 'tap'
import { eachItem, listItems, MissingCredentialError, ToolBlockedError, UpstreamError, type ListInput } from '../../core/tools/contract.ts'

function fakeRun (input: Record<string, unknown>, room = 100) {
  const rows: unknown[] = []
  const warnings: string[] = []
  const ctx = {
    input,
    signal: new AbortController().signal,
    remaining: () => room - rows.length,
    warn: (text: string) => { warnings.push(text) },
    stage: () => {},
    push: async (batch: unknown[]) => { rows.push(...batch); return batch.length },
  }
  return { ctx, rows, warnings }
}

const fail = async (item: string) => { if (item.startsWith('bad')) throw new UpstreamError(`${item} failed`); return [{ item }] }

t.test('listItems: one value or a list, trimmed and de-duplicated, cut to max and to the row room with a warning', async t => {
  t.same(listItems(fakeRun({ url: ' a ' }).ctx, { param: 'url', noun: 'links' }), ['a'])
  const run = fakeRun({ url: ['a', 'b', 'a', ' ', 'c', 'd'] }, 3)
  t.same(listItems(run.ctx, { param: 'url', noun: 'links' }), ['a', 'b', 'c'])
  t.match(run.warnings, [/Only the first 3 of 4 links/])
  const capped = fakeRun({ url: ['a', 'b', 'c'] })
  t.same(listItems(capped.ctx, { param: 'url', noun: 'links', max: 2 }), ['a', 'b'])
  t.match(capped.warnings, [/at most 2/])
})

t.test("'warn-and-skip': a failing item is a warning; all failing is the job's failure", async t => {
  const list: ListInput = { param: 'url', noun: 'links', onItemError: 'warn-and-skip' }
  const run = fakeRun({})
  t.same(await eachItem(run.ctx, list, ['a', 'bad1', 'b'], fail), { rows: 2, failed: 1 })
  t.match(run.warnings, ['bad1: The upstream failed: bad1 failed'])
  await t.rejects(eachItem(fakeRun({}).ctx, list, ['bad1', 'bad2'], fail), /bad2 failed/)
  await t.rejects(eachItem(fakeRun({}).ctx, list, ['bad1'], fail), /bad1 failed/)
})

t.test("'row-error' pushes the declared error row; 'fail-job' ends the run", async t => {
  const list: ListInput = { param: 'url', noun: 'links', onItemError: 'row-error', errorRow: (item, error) => ({ item, error: error.message }) }
  const run = fakeRun({})
  t.same(await eachItem(run.ctx, list, ['a', 'bad1'], fail), { rows: 2, failed: 1 })
  t.same(run.rows, [{ item: 'a' }, { item: 'bad1', error: 'bad1 failed' }])
  await t.rejects(eachItem(fakeRun({}).ctx, { ...list, onItemError: 'fail-job' }, ['a', 'bad1', 'b'], fail), /bad1 failed/)
})

t.test('whatever the policy, a failure that needs the operator, a bug and a full run stop at once', async t => {
  const list: ListInput = { param: 'url', noun: 'links', onItemError: 'warn-and-skip' }
  await t.rejects(eachItem(fakeRun({}).ctx, list, ['a', 'b'], async () => { throw new MissingCredentialError('KEY', 'x') }), MissingCredentialError)
  await t.rejects(eachItem(fakeRun({}).ctx, list, ['a', 'b'], async () => { throw new TypeError('bug') }), TypeError)
  const full = fakeRun({}, 1)
  t.same(await eachItem(full.ctx, list, ['a', 'b', 'c'], fail), { rows: 1, failed: 0 })
  t.match(full.warnings, [/Stopped after 1 of 3 links/])
})

t.test('concurrency: at most n items at once, rows and error rows pushed in the items\' order whatever order they finish in', async t => {
  const list: ListInput = { param: 'url', noun: 'links', onItemError: 'row-error', errorRow: (item, error) => ({ item, error: error.message }) }
  const run = fakeRun({})
  // Each item waits until the one after it has finished (the last at once): they finish last to first.
  const items = ['a', 'bad1', 'c', 'd']
  const finished = items.map(() => {
    let resolve!: () => void
    const promise = new Promise<void>(r => { resolve = r })
    return { promise, resolve }
  })
  let running = 0
  let most = 0
  const result = await eachItem(run.ctx, list, items, async (item, index) => {
    running++
    most = Math.max(most, running)
    try {
      if (index < items.length - 1 && index % 2 === 0) await finished[index + 1]!.promise
      return await fail(item)
    } finally {
      running--
      finished[index]!.resolve()
    }
  }, { concurrency: 2 })
  t.same(result, { rows: 4, failed: 1 })
  t.same(run.rows, [{ item: 'a' }, { item: 'bad1', error: 'bad1 failed' }, { item: 'c' }, { item: 'd' }], 'in input order')
  t.equal(most, 2, 'two at once, never more')
})

t.test("concurrency: 'fail-job' ends the run with the first failing item's failure in the items' order; the row room is checked before each start", async t => {
  const list: ListInput = { param: 'url', noun: 'links', onItemError: 'fail-job' }
  const run = fakeRun({})
  await t.rejects(eachItem(run.ctx, list, ['a', 'bad1', 'bad2', 'b'], fail, { concurrency: 3 }), /bad1 failed/)
  t.same(run.rows, [{ item: 'a' }], 'the rows before it are kept')
  const full = fakeRun({}, 1)
  const started: string[] = []
  t.same(await eachItem(full.ctx, { ...list, onItemError: 'warn-and-skip' }, ['a', 'b', 'c'], async item => { started.push(item); return [{ item }] }, { concurrency: 1 }), { rows: 1, failed: 0 })
  t.same(started, ['a'], 'no item starts once the run is full')
})

t.test("onBlocked 'stop-list': a refusal partway through keeps the rows read and names the items not read; before any, it is the job's", async t => {
  const list: ListInput = { param: 'url', noun: 'videos', onItemError: 'row-error', errorRow: (item, error) => ({ item, error: error.message }), onBlocked: 'stop-list' }
  const walled = async (item: string) => { if (item.startsWith('wall')) throw new ToolBlockedError('asked to sign in'); return fail(item) }
  for (const concurrency of [1, 3]) {
    const run = fakeRun({})
    const started: string[] = []
    t.same(await eachItem(run.ctx, list, ['a', 'bad1', 'wall', 'b', 'c'], async item => { started.push(item); return await walled(item) }, { concurrency }), { rows: 2, failed: 2 })
    t.same(run.rows, [{ item: 'a' }, { item: 'bad1', error: 'bad1 failed' }], `concurrency ${concurrency}: the rows before the refusal are kept`)
    t.same(run.warnings, ['The source refused the rest of the list (asked to sign in); 3 of the videos were not read: "wall", "b", "c". The rows before it are kept.'])
    if (concurrency === 1) t.same(started, ['a', 'bad1', 'wall'], 'no item is asked after the refusal')
  }
  await t.rejects(eachItem(fakeRun({}).ctx, list, ['wall', 'a'], walled), ToolBlockedError, 'met first: the job is blocked')
  await t.rejects(eachItem(fakeRun({}).ctx, { ...list, readRow: row => !('error' in (row as object)) }, ['bad1', 'wall', 'a'], walled), ToolBlockedError, 'met after only error rows (readRow): the job is blocked')
  const policy = fakeRun({})
  await eachItem(policy.ctx, { ...list, onBlocked: undefined }, ['a', 'wall', 'b'], walled)
  t.same(policy.rows, [{ item: 'a' }, { item: 'wall', error: 'asked to sign in' }, { item: 'b' }], 'without it, a refusal follows the failure policy')
})

t.test('listItems: several params make one list, in order, de-duplicated across them; reserve keeps rows free', async t => {
  t.same(listItems(fakeRun({ emails: ['a', 'b'], email: 'a' }).ctx, { param: ['emails', 'email'], noun: 'addresses' }), ['a', 'b'])
  t.same(listItems(fakeRun({ email: 'c' }).ctx, { param: ['emails', 'email'], noun: 'addresses' }), ['c'])
  const run = fakeRun({ channels: ['a', 'b', 'c'] }, 3)
  t.same(listItems(run.ctx, { param: 'channels', noun: 'channels', reserve: 1 }), ['a', 'b'])
  t.match(run.warnings, [/Only the first 2 of 3 channels/])
})

t.test('an item may push its pages itself: they count as read, so a later refusal stops the list', async t => {
  const list: ListInput = { param: 'query', noun: 'queries', onItemError: 'fail-job', onBlocked: 'stop-list' }
  const run = fakeRun({})
  const paged = async (item: string, _index: number, push: (rows: unknown[]) => Promise<number>) => {
    if (item === 'wall') throw new ToolBlockedError('captcha')
    await push([{ item, page: 1 }])
    await push([{ item, page: 2 }])
    return []
  }
  t.same(await eachItem(run.ctx, list, ['a', 'wall', 'b'], paged), { rows: 2, failed: 1 })
  t.same(run.rows, [{ item: 'a', page: 1 }, { item: 'a', page: 2 }])
  t.match(run.warnings, [/2 of the queries were not read: "wall", "b"/])
  await t.rejects(eachItem(fakeRun({}).ctx, list, ['wall', 'a'], paged), ToolBlockedError)
})
