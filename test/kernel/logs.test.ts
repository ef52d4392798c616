import t from 'tap'
import { build, signup, ADMIN_KEY, PUBLIC_TOKEN } from '../helpers/build.ts'
import { sourceLoaderFlags } from '../helpers/source-loader.ts'
import { call, mintToken } from './_kernel.ts'

t.test('secrets never appear in captured log output', async t => {
  const logLines: string[] = []
  const app = await build(t, { logLines })
  const u = await signup(app, { password: 'hunter2-password-Alpha' })
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: u.email, password: u.password } })
  const tok = await mintToken(app, u.apiKey)
  await call(app, 'GET', '/api/auth/me', u.apiKey)
  await call(app, 'GET', '/api/auth/me', tok.token)
  await call(app, 'GET', '/api/auth/me', PUBLIC_TOKEN)
  await call(app, 'GET', '/api/auth/me', ADMIN_KEY)
  await app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${u.apiKey}` } })
  await call(app, 'POST', '/api/auth/update', u.apiKey, { current_password: u.password, new_password: 'new-secret-Bravo-99' })
  await call(app, 'POST', '/api/auth/update', u.apiKey, { current_password: 'wrong-pass-Charlie', new_password: 'new-secret-Delta-99' })
  await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: u.email, password: 'wrong-pass-Echo' } })
  await app.inject({ method: 'POST', url: '/api/auth/signup', headers: { 'content-type': 'application/json' }, payload: '{"email":"x@example.com","password":"broken-Foxtrot' })
  const rot = await call(app, 'POST', '/api/auth/regenerate-key', u.apiKey)
  await call(app, 'GET', '/api/auth/me', 'sk-made-up-Golf-key')

  const secrets = [
    u.apiKey, tok.token, rot.json().api_key, login.json().api_key, PUBLIC_TOKEN, ADMIN_KEY, 'test-secret-key-0123456789',
    'hunter2-password-Alpha', 'new-secret-Bravo-99', 'wrong-pass-Charlie', 'new-secret-Delta-99', 'wrong-pass-Echo', 'broken-Foxtrot', 'sk-made-up-Golf-key',
  ]
  const log = logLines.join('')
  t.ok(logLines.length >= 14, `captured ${logLines.length} lines (one a request)`)
  t.match(log, /"msg":"request completed"/, 'request logging was on (one line per request, when answered)')
  for (const s of secrets) t.notOk(log.includes(s), `not logged: ${s.slice(0, 6)}…`)
  // Key digests are lookup handles; they must not be logged either.
  const { sha256Hex } = await import('../../core/crypto.ts')
  t.notOk(log.includes(sha256Hex(u.apiKey)), 'no key digest')
})

t.test('the logger redacts secrets in objects the code logs itself', async t => {
  const logLines: string[] = []
  const app = await build(t, { logLines })
  app.log.info({ api_key: 'sk-AAA', password: 'pw-BBB', body: { new_password: 'pw-CCC' }, headers: { 'x-api-key': 'sk-DDD', authorization: 'Bearer sk-EEE' }, user: { token: 'scp-FFF' } }, 'manual')
  const log = logLines.join('')
  for (const s of ['sk-AAA', 'pw-BBB', 'pw-CCC', 'sk-DDD', 'sk-EEE', 'scp-FFF']) t.notOk(log.includes(s), s)
  t.match(log, /\[redacted\]/)
})

t.test('stdout logging is asynchronous, yet every line reaches stdout by the time the process exits', async t => {
  // The service's own destination (no stream given): 2,000 lines logged in one
  // synchronous burst, then process.exit() at once, and an uncaught exception
  // after a line: pino's exit hook writes out what is still buffered.
  const { spawnSync } = await import('node:child_process')
  const { fileURLToPath } = await import('node:url')
  const logger = fileURLToPath(new URL('../../core/logger.ts', import.meta.url))
  const run = (tail: string) => spawnSync(process.execPath, [...sourceLoaderFlags(), '--input-type=module', '-e', `
    import { createLogger } from ${JSON.stringify(logger)}
    const log = createLogger('info')
    for (let i = 0; i < 2000; i++) log.info({ i }, 'burst')
    ${tail}
  `], { encoding: 'utf8', timeout: 60_000 })
  const exited = run('process.exit(0)')
  const lines = exited.stdout.trim().split('\n').map(l => JSON.parse(l) as { i: number })
  t.equal(lines.length, 2000, 'all 2,000 lines written before exit')
  t.same(lines.map(l => l.i), Array.from({ length: 2000 }, (_, i) => i), 'in order, none split')
  const crashed = run("log.info('last words'); throw new Error('boom')")
  t.not(crashed.status, 0, 'the crash ends the process with an error')
  t.match(crashed.stdout, /"msg":"last words"/, 'the line before an uncaught exception is written')
  t.equal(crashed.stdout.trim().split('\n').length, 2001)
})

/**
 * A child that logs 10,000 lines (≈ 1 MB) into a stdout pipe nobody reads (a stalled log
 * collector: the pipe holds far less), says "logged" on stderr, and on a line on stdin
 * exits the way core/server.ts's graceful exit does (flushLogs, then process.exit) with
 * the given flushLogs bound.
 */
async function stalledLogger (t: { teardown (fn: () => unknown): void }, flushWithinMs: number) {
  const { spawn } = await import('node:child_process')
  const { fileURLToPath } = await import('node:url')
  const logger = fileURLToPath(new URL('../../core/logger.ts', import.meta.url))
  const child = spawn(process.execPath, [...sourceLoaderFlags(), '--input-type=module', '-e', `
    import { createLogger, flushLogs } from ${JSON.stringify(logger)}
    const log = createLogger('info')
    for (let i = 0; i < 10000; i++) log.info({ i, pad: 'x'.repeat(40) }, 'burst')
    process.stderr.write('logged\\n')
    process.stdin.on('data', async () => { await flushLogs(log, ${flushWithinMs}); process.exit(0) })
  `], { stdio: ['pipe', 'pipe', 'pipe'] })
  t.teardown(() => { child.kill('SIGKILL') })
  child.stdout.pause()
  const logged = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 30_000)
    child.stderr.on('data', (chunk: Buffer) => { if (chunk.toString().includes('logged')) { clearTimeout(timer); resolve(true) } })
  })
  const exited = new Promise<number | null>(resolve => child.on('close', resolve))
  return { child, logged, exited }
}

t.test('a log reader that stops reading does not block the service, and a graceful exit waits for it', async t => {
  // A synchronous destination blocks in its write until the reader comes back; the
  // service's returns at once, so the child says "logged" while its stdout is still
  // unread. The exit is asked for while the reader is still away: pino's own flush at
  // exit could not wait for the write then under way (CI once lost 123 lines of 10,000
  // that way); flushLogs does, and every line arrives once the reader is back.
  const { child, logged, exited } = await stalledLogger(t, 20_000)
  t.ok(logged, 'all 10,000 lines logged while nobody read stdout')
  child.stdin.write('exit\n')
  await new Promise(resolve => setTimeout(resolve, 300))
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  child.stdout.resume()
  t.equal(await exited, 0)
  const lines = out.trim().split('\n')
  t.equal(lines.length, 10000, 'then every line arrives')
  t.ok(lines.every((line, k) => (JSON.parse(line) as { i: number }).i === k), 'in order, none cut')
})

t.test('a graceful exit waits for a reader that never comes back only so long', async t => {
  const { child, logged, exited } = await stalledLogger(t, 200)
  t.ok(logged)
  child.stdin.write('exit\n')
  t.equal(await exited, 0, 'exited with stdout still unread')
})

t.test("a request's own log lines are made on first use, carry its request id and are redacted", async t => {
  const { createLogger, lazyChildLogger } = await import('../../core/logger.ts')
  const { Writable } = await import('node:stream')
  const lines: string[] = []
  const parent = createLogger('info', new Writable({ write (chunk, _enc, done) { lines.push(chunk.toString()); done() } }) as never)
  let children = 0
  const child = parent.child.bind(parent)
  parent.child = ((...args: Parameters<typeof parent.child>) => { children++; return child(...args) }) as typeof parent.child
  const requestLog = lazyChildLogger(parent, { reqId: 'req-7' }, {})
  requestLog.debug({ x: 1 }, 'below the level')
  t.equal(children, 0, 'a line below the level makes no child')
  t.equal(requestLog.level, 'info')
  requestLog.info({ password: 'pw-AAA' }, 'own line')
  requestLog.warn('second line')
  t.equal(children, 1, 'one child, made by the first line written')
  await new Promise(resolve => setImmediate(resolve))
  t.equal(lines.length, 2)
  const first = JSON.parse(lines[0]!) as Record<string, unknown>
  t.match(first, { reqId: 'req-7', msg: 'own line', password: '[redacted]' })
  t.match(JSON.parse(lines[1]!), { reqId: 'req-7', msg: 'second line' })
  // A route's own log level (fastify passes it as the child's option) is the child's.
  const quiet = lazyChildLogger(parent, { reqId: 'req-8' }, { level: 'error' })
  quiet.info('dropped')
  t.equal(quiet.level, 'error')
  t.notOk(quiet.isLevelEnabled('info'))
  t.equal(lines.length, 2, 'nothing written below the route level')

  // Through the app: a request whose handling logs (the database down: 503) writes
  // that line with the same request id as its access line.
  const logLines: string[] = []
  const app = await build(t, { logLines })
  const u = await signup(app)
  const { database } = app.services
  const hotSelectUnchanged = database.hot.selectUnchanged
  database.hot.selectUnchanged = async () => { throw Object.assign(new Error("Can't reach database server"), { code: 'P1001' }) }
  t.teardown(() => { database.hot.selectUnchanged = hotSelectUnchanged })
  logLines.length = 0
  const res = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { 'x-api-key': u.apiKey } })
  t.equal(res.statusCode, 503)
  const parsed = logLines.map(l => JSON.parse(l) as { reqId?: string, msg?: string })
  const own = parsed.find(l => l.msg === 'database unavailable')
  const access = parsed.find(l => l.msg === 'request errored' || l.msg === 'request completed')
  t.ok(own?.reqId, 'the handler\'s line has the request id')
  t.equal(own?.reqId, access?.reqId, 'the same id as the access line')
})
