// The job queue's close after a Redis blip: the CI failure of kernel/rate-limit-redis's
// "Redis away" (an unhandled `read ECONNRESET` while its apps closed). BullMQ's
// connections that Redis reset during their first handshake, closed while they
// connect again, used to reject their start after BullMQ had removed every
// listener: an unhandled rejection, which ends a production process
// (core/jobs/bull-queue.ts, keepErrorListener; bullmq#3546).
//
// A real redis-server cannot be stopped at that point on purpose, so a stand-in
// does what the kernel does for one: it resets each client's first connection
// once the client has written its handshake (Redis killed with the handshake
// unread), then accepts the reconnections and never answers (Redis back, but
// slow to answer: a loaded machine), so the close finds every connection
// between its reset and its first 'ready'.
import t from 'tap'
import pino from 'pino'
import { createServer, type Socket } from 'node:net'
import { Writable } from 'node:stream'
import { BullJobQueue } from '../../core/jobs/bull-queue.ts'
import type { JobRunner } from '../../core/jobs/job-runner.ts'

/** Connections the queue opens with RUN_JOBS: the queue's, the worker's, and BullMQ's blocking duplicate of the worker's. */
const CLIENTS = 3

async function until (condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) return false
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  return true
}

t.test('Redis resets the queue\'s connections in their first handshake, then stalls: closing leaves no unhandled rejection', async t => {
  const unhandled: unknown[] = []
  const record = (reason: unknown) => { unhandled.push(reason) }
  process.on('unhandledRejection', record)
  t.teardown(() => { process.off('unhandledRejection', record) })

  let reset = 0
  const stalled = new Set<Socket>()
  const server = createServer(socket => {
    socket.on('error', () => {})
    socket.once('data', () => {
      if (reset < CLIENTS) { reset++; socket.resetAndDestroy(); return }
      stalled.add(socket)
    })
    socket.on('close', () => stalled.delete(socket))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { for (const socket of stalled) socket.destroy(); server.close() })
  const { port } = server.address() as { port: number }

  const lines: string[] = []
  const logger = pino({ level: 'debug' }, new Writable({ write (chunk, _encoding, done) { lines.push(chunk.toString()); done() } }))
  const queue = new BullJobQueue({
    redisUrl: `redis://127.0.0.1:${port}`, keyPrefix: 'close-test', runner: {} as JobRunner, logger,
    runJobs: true, concurrency: 1, shutdownGraceMs: 0,
  })
  t.ok(await until(() => reset === CLIENTS && stalled.size === CLIENTS, 10_000), 'each connection was reset once, and is back in its handshake')

  // As the app closes it (core/services.ts): drain, then close.
  await queue.drain()
  await queue.close()
  const late = () => lines.filter(line => line.includes('failed after the queue closed'))
  // Each connection's start fails as its socket ends; the old code had no listener left for it.
  await until(() => late().length === CLIENTS, 5000)
  t.same(unhandled.map(reason => (reason as Error).message), [], 'no unhandled rejection')
  t.equal(late().length, CLIENTS, 'each connection\'s late failure is logged instead')
  t.match(late()[0], /ECONNRESET/, 'the reset of its first handshake')
})
