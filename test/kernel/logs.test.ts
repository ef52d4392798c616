import t from 'tap'
import { build, signup, ADMIN_KEY, PUBLIC_TOKEN } from '../helpers/build.ts'
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
  const run = (tail: string) => spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
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
