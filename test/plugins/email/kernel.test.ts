// The email tool through the real kernel: buildApp + inject on a real
// database, a temp tools config whose email entry is the one in
// tools.config.json with test settings (a local dns2 server in dns_servers,
// the local smtp-server's port as smtp_port, small timeouts and greylist
// delays). Covers one row per address with each status, the private-target
// refusal when ALLOW_PRIVATE_TARGETS is unset, and the per-run row ceiling.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { build, signup, tempDir } from '../../helpers/build.ts'
import { startJob, usageOf, waitForEnd } from '../../helpers/jobs.ts'
import { startDnsServer, type Zone } from './fixtures/dns-server.ts'
import { startSmtpServer, type TestSmtpServer } from './fixtures/smtp-servers.ts'

type Teardown = Parameters<typeof tempDir>[0]

function realEmailEntry (): Record<string, any> {
  const file = JSON.parse(readFileSync(resolve('tools.config.json'), 'utf8'))
  const entry = file.tools.find((e: { key: string }) => e.key === 'email')
  if (!entry) throw new Error('tools.config.json has no email entry')
  return structuredClone(entry)
}

function writeToolsConfig (t: Teardown, settings: Record<string, unknown>): string {
  const entry = realEmailEntry()
  entry.settings = { ...entry.settings, ...settings }
  const path = join(tempDir(t, 'email-config-'), 'tools.config.json')
  writeFileSync(path, JSON.stringify({ tools: [entry], retired: [] }, null, 2))
  return path
}

function testSettings (dns: string, smtpPort: number, extra: Record<string, unknown> = {}) {
  return {
    dns_servers: [dns],
    dns_timeout_ms: 500,
    dns_tries: 1,
    smtp_port: smtpPort,
    helo_name: 'probe.test',
    mail_from: 'verify@probe.test',
    connect_timeout_ms: 1000,
    command_timeout_ms: 1000,
    greylist_retry_ms: 20,
    greylist_retries: 1,
    ...extra,
  }
}

async function buildEmail (t: Teardown, settings: Record<string, unknown>, allowPrivate = true): Promise<FastifyInstance> {
  return build(t, { env: { TOOLS_CONFIG: writeToolsConfig(t, settings), ...(allowPrivate ? { ALLOW_PRIVATE_TARGETS: '1' } : {}) } })
}

/** Each domain has one MX, mx.<domain>, at 127.0.0.1. */
function mxZone (...domains: string[]): Zone {
  const zone: Zone = {}
  for (const domain of domains) {
    zone[domain] = { MX: [{ exchange: `mx.${domain}`, priority: 10 }] }
    zone[`mx.${domain}`] = { A: ['127.0.0.1'] }
  }
  return zone
}

async function runEmail (app: FastifyInstance, apiKey: string, params: Record<string, unknown>) {
  const res = await startJob(app, apiKey, params, 'email')
  if (res.statusCode !== 202) throw new Error(`tool-run answered ${res.statusCode}: ${res.body}`)
  const id = res.json().job_id as string
  const status = await waitForEnd(app, apiKey, id, 30_000)
  const rows = (await app.inject({ url: `/api/tool-run/${id}/results?limit=1000`, headers: { 'x-api-key': apiKey } })).json().results as Array<Record<string, any>>
  return { id, status, rows, byEmail: (email: string) => rows.find(r => r.email === email) }
}

const noData = (server: TestSmtpServer) => !server.commands.some(c => /^(DATA|BDAT)\b/i.test(c) || c === 'DATA-BODY-RECEIVED')

t.test('tool-run email: one row per address with deliverable, undeliverable, risky and unknown', async t => {
  const smtp = await startSmtpServer(t, {
    onRcpt: address => {
      const [local, domain] = address.split('@')
      if (domain === 'catchall.test') return 250
      if (domain === 'grey.test') return { code: 451, message: '4.7.1 Greylisted, try again later' }
      if (domain === 'policy.test') return { code: 550, message: '5.7.1 Client host rejected' }
      return local === 'jane' || local === 'info' ? 250 : { code: 550, message: '5.1.1 User unknown' }
    },
  })
  const dns = await startDnsServer(t, {
    ...mxZone('acme.test', 'catchall.test', 'grey.test', 'policy.test'),
    'nullmx.test': { MX: [{ exchange: '', priority: 0 }], A: ['127.0.0.1'] },
  })
  const app = await buildEmail(t, testSettings(dns.address, smtp.port))
  const user = await signup(app)
  const emails = [
    'jane@acme.test', 'info@acme.test', 'ghost@acme.test', 'bob@catchall.test', 'jane@grey.test', 'jane@policy.test',
    'anyone@nowhere.test', 'x@nullmx.test', 'not an address', 'jane@acme.test',
  ]
  const { status, rows, byEmail } = await runEmail(app, user.apiKey, { emails })
  t.match(status, { status: 'done', records: 9, error: null, blocked: false, refunded: false })
  t.equal(rows.length, 9, 'one row per distinct address')
  t.same(new Set(rows.map(r => r.email)), new Set(emails))

  t.match(byEmail('jane@acme.test'), {
    status: 'deliverable', reason: 'accepted', syntax_valid: true, domain: 'acme.test', mx_found: true, mx_host: 'mx.acme.test',
    smtp_connected: true, smtp_code: 250, catch_all: false, role: false, disposable: false, greylisted: false,
    checks: { dns: { outcome: 'mx', mx_records: [{ host: 'mx.acme.test', priority: 10 }] }, mx: { host: 'mx.acme.test', address: '127.0.0.1' }, smtp: { greeting: 'EHLO', stage: 'rcpt_to', code: 250 } },
  })
  t.match(byEmail('info@acme.test'), { status: 'deliverable', role: true })
  t.match(byEmail('ghost@acme.test'), { status: 'undeliverable', reason: 'mailbox_not_found', smtp_code: 550, smtp_message: /User unknown/ })
  t.match(byEmail('bob@catchall.test'), { status: 'risky', reason: 'catch_all', catch_all: true, checks: { catch_all: { accepted: true, probe: /^nx-[0-9a-f]+@catchall\.test$/ } } })
  t.match(byEmail('jane@grey.test'), { status: 'unknown', reason: 'temporary_failure', greylisted: true, smtp_code: 451 })
  t.match(byEmail('jane@policy.test'), { status: 'unknown', reason: 'rcpt_policy_rejected', smtp_code: 550 })
  t.match(byEmail('anyone@nowhere.test'), { status: 'undeliverable', reason: 'domain_not_found', mx_found: false, smtp_connected: false, checks: { dns: { outcome: 'nxdomain' }, smtp: null } })
  t.match(byEmail('x@nullmx.test'), { status: 'undeliverable', reason: 'null_mx', null_mx: true, smtp_connected: false })
  t.match(byEmail('not an address'), { status: 'undeliverable', reason: /^invalid_syntax: /, syntax_valid: false, domain: null })

  t.ok(noData(smtp), 'no DATA ever reached the server')
  t.notOk(smtp.rcpts.some(r => r.endsWith('@nullmx.test') || r.endsWith('@nowhere.test')), 'no SMTP for domains DNS already decided')
  t.equal(smtp.rcpts.filter(r => r === 'jane@grey.test').length, 2, 'the greylisted address was retried once (greylist_retries 1)')
  t.ok(smtp.commands.includes('EHLO probe.test'), 'helo_name from the settings')
  t.ok(smtp.commands.includes('MAIL FROM:<verify@probe.test>'), 'mail_from from the settings')
  t.match(status.stage, 'done')
  t.equal((await usageOf(app, user.apiKey)).records_today, 9)
})

t.test('smtp_check false: syntax and DNS only, no SMTP session', async t => {
  const smtp = await startSmtpServer(t)
  const dns = await startDnsServer(t, mxZone('acme.test'))
  const app = await buildEmail(t, testSettings(dns.address, smtp.port))
  const user = await signup(app)
  const { status, byEmail } = await runEmail(app, user.apiKey, { email: 'jane@acme.test', emails: ['ghost@nowhere.test'], smtp_check: false })
  t.match(status, { status: 'done', records: 2 })
  t.match(byEmail('jane@acme.test'), { status: 'unknown', reason: 'smtp_not_checked', mx_found: true, smtp_connected: false })
  t.match(byEmail('ghost@nowhere.test'), { status: 'undeliverable', reason: 'domain_not_found' })
  t.equal(smtp.sessions, 0)
})

t.test('without ALLOW_PRIVATE_TARGETS an MX on loopback is refused: unknown / mx_refused rows, no connection, job done', async t => {
  const smtp = await startSmtpServer(t)
  const dns = await startDnsServer(t, mxZone('acme.test'))
  const app = await buildEmail(t, testSettings(dns.address, smtp.port), false)
  const user = await signup(app)
  const { status, rows } = await runEmail(app, user.apiKey, { emails: ['jane@acme.test', 'bob@acme.test', 'x@[127.0.0.1]'] })
  t.match(status, { status: 'done', records: 3, blocked: false, refunded: false })
  for (const row of rows) {
    t.match(row, { status: 'unknown', reason: 'mx_refused', smtp_connected: false }, row.email)
    t.match(row.checks.mx.attempts[0], { address: '127.0.0.1', outcome: /^refused: / })
  }
  t.match(rows.find(r => r.email === 'jane@acme.test'), { mx_found: true, mx_host: 'mx.acme.test', checks: { dns: { outcome: 'mx' } } })
  t.equal(smtp.sessions, 0, 'no connection reached the SMTP server')
  t.equal((await usageOf(app, user.apiKey)).calls_today, 1, 'a finished job is charged')
})

t.test('a registered account (200 rows per run) sending 230 addresses gets 200 rows and a warning', async t => {
  const smtp = await startSmtpServer(t, { onRcpt: address => (address.startsWith('user') ? 250 : 550) })
  const dns = await startDnsServer(t, mxZone('acme.test'))
  const app = await buildEmail(t, testSettings(dns.address, smtp.port, { per_domain_concurrency: 4, rcpts_per_session: 25 }))
  const user = await signup(app)
  const emails = Array.from({ length: 230 }, (_, i) => `user${i}@acme.test`)
  const { status, rows } = await runEmail(app, user.apiKey, { emails })
  t.match(status, { status: 'done', records: 200, blocked: false })
  t.equal(rows.length, 200)
  t.match(status.warning, /Only the first 200 of 230 addresses were checked/)
  t.same(new Set(rows.map(r => r.email)), new Set(emails.slice(0, 200)), 'the first 200, each once')
  t.ok(rows.every(r => r.status === 'deliverable'))
  t.notOk(smtp.rcpts.some(r => /^user2(0\d|1\d|2\d)@/.test(r)), 'addresses past the ceiling were never asked about')
  t.ok(smtp.maxConcurrent <= 4, `per_domain_concurrency respected (${smtp.maxConcurrent})`)
  t.equal((await usageOf(app, user.apiKey)).records_today, 200)
})

t.test('input refused: no address is a 400 before any charge; a bad setting names itself', async t => {
  const dns = await startDnsServer(t, mxZone('acme.test'))
  const app = await buildEmail(t, testSettings(dns.address, 2525))
  const user = await signup(app)
  const empty = await startJob(app, user.apiKey, { emails: ['  '] }, 'email')
  t.equal(empty.statusCode, 400, 'only blanks: neither emails nor email is given')
  t.match(empty.json().detail, /params\.emails or params\.email is required/)
  t.equal((await usageOf(app, user.apiKey)).calls_today, 0, 'not charged')

  const schema = await startJob(app, user.apiKey, { emails: 'jane@acme.test' }, 'email')
  t.equal(schema.statusCode, 400, 'a string where the schema wants an array is a 400 before any charge')
  t.match(schema.json().detail, /emails/)

  // An operator's mistake never reaches a caller: the server does not start, and says which setting.
  await t.rejects(build(t, { env: { TOOLS_CONFIG: writeToolsConfig(t, testSettings(dns.address, 2525, { smtp_port: 'twenty-five' })), ALLOW_PRIVATE_TARGETS: '1' } }),
    { name: 'ConfigError', message: /the "email" tool's setting "smtp_port" must be integer, got "twenty-five"/ })
})
