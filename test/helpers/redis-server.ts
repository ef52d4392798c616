// startRedis(t): a throwaway redis-server (Debian's package) on a free loopback
// port, its data in a temp dir, stopped in teardown. Tests of the distributed
// mode (REDIS_URL) use it; `restart()` stops and starts the same server on the
// same port (the "Redis restarts mid-run" test); `pause()` freezes it (SIGSTOP:
// the kernel still accepts connections and keeps what clients send, unread)
// until `resume()`. scripts/bench/cluster.ts
// starts its Redis with it too (a teardown list of its own for `t`).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../scripts/bench/server-process.ts'

interface Teardown { teardown (fn: () => unknown): void }

export interface RedisServer {
  url: string
  port: number
  stop (): Promise<void>
  start (): Promise<void>
  restart (): Promise<void>
  /** SIGSTOP: connections are still accepted (the kernel's backlog); nothing is read or answered. stop() kills it as it is. */
  pause (): void
  /** SIGCONT after pause(). */
  resume (): void
}

export const redisServerPath = () => process.env.REDIS_SERVER_BIN ?? 'redis-server'

async function waitForPort (port: number, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => { socket.end(); resolve(true) })
      socket.once('error', () => resolve(false))
    })
    if (ok) return
    if (Date.now() > until) throw new Error(`redis-server did not listen on ${port}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export async function startRedis (t: Teardown): Promise<RedisServer> {
  // Not build.ts's tempDir: scripts/bench/cluster.ts uses this too, and build.ts imports tap.
  const dir = mkdtempSync(join(tmpdir(), 'redis-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const port = await freePort()
  let child: ChildProcess | null = null

  const start = async () => {
    child = spawn(redisServerPath(), [
      '--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
      '--save', '', '--appendonly', 'no', '--daemonize', 'no',
      // BullMQ asks for this policy; a test server has no memory limit anyway.
      '--maxmemory-policy', 'noeviction',
    ], { stdio: 'ignore' })
    await waitForPort(port, 10_000)
  }
  const stop = async () => {
    const running = child
    child = null
    if (!running || running.exitCode !== null) return
    const exited = once(running, 'exit')
    running.kill('SIGKILL')
    await exited
  }
  await start()
  t.teardown(stop)
  const signal = (name: NodeJS.Signals) => { if (child && child.exitCode === null) child.kill(name) }
  return {
    url: `redis://127.0.0.1:${port}`, port, start, stop,
    restart: async () => { await stop(); await start() },
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
  }
}
