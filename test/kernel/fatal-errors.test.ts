// What the entry points do with an unhandled rejection or an uncaught exception
// (core/fatal-errors.ts): a fatal log line with the stack, the log written, then
// exit 1, once.
import t from 'tap'
import { Writable } from 'node:stream'
import { createLogger } from '../../core/logger.ts'
import { fatalErrorHandler } from '../../core/fatal-errors.ts'

t.test('the first unhandled error is logged at fatal with its stack, then the process exits 1', async t => {
  const lines: string[] = []
  const logger = createLogger('info', new Writable({ write (chunk, _encoding, done) { lines.push(chunk.toString()); done() } }))
  const exits: number[] = []
  let exited!: () => void
  const exitCalled = new Promise<void>(resolve => { exited = resolve })
  const handle = fatalErrorHandler(logger, code => { exits.push(code); exited() })

  const err = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
  handle(err, 'unhandledRejection')
  handle(new Error('a second one'), 'uncaughtException')
  await exitCalled
  t.same(exits, [1], 'exit 1, once')
  const logged = lines.map(line => JSON.parse(line) as { level: number, msg: string, origin: string, err: { message: string, stack: string } })
  t.equal(logged.length, 2, 'both are logged')
  t.equal(logged[0].level, 60, 'at fatal')
  t.equal(logged[0].origin, 'unhandledRejection')
  t.equal(logged[0].err.message, 'read ECONNRESET')
  t.match(logged[0].err.stack, /fatal-errors\.test\.ts/, 'with its stack')
  t.match(logged[1].msg, /while exiting/)
})
