// The email tool end to end through run(ctx): a local dns2 server answers MX
// and A records pointing at 127.0.0.1, local smtp-server instances answer the
// SMTP dialogue, and the fake context collects rows, stages and warnings.
import t, { type Test } from 'tap'
import { Compile } from 'typebox/compile'
import tool from '../../../plugins/email/index.ts'
import type { EmailRow } from '../../../plugins/email/schema.ts'
import { toolContext, type ToolContextOptions } from '../../helpers/tool-context.ts'
import { startDnsServer, type Zone } from './fixtures/dns-server.ts'
import { selfSignedCertificate, startSilentServer, startSmtpServer, type TestSmtpServer } from './fixtures/smtp-servers.ts'

const rowCheck = Compile(tool.row)

/** A zone where each domain has one MX, mx.<domain>, at 127.0.0.1. */
function mxZone (...domains: string[]): Zone {
  const zone: Zone = {}
  for (const domain of domains) {
    zone[domain] = { MX: [{ exchange: `mx.${domain}`, priority: 10 }] }
    zone[`mx.${domain}`] = { A: ['127.0.0.1'] }
  }
  return zone
}

function settingsFor (dns: string, port: number, extra: Record<string, unknown> = {}) {
  return {
    dns_servers: [dns],
    dns_timeout_ms: 500,
    dns_tries: 1,
    smtp_port: port,
    helo_name: 'probe.test',
    mail_from: 'verify@probe.test',
    connect_timeout_ms: 1000,
    command_timeout_ms: 1000,
    greylist_retry_ms: 50,
    greylist_retries: 1,
    ...extra,
  }
}

async function verify (input: Record<string, unknown>, options: ToolContextOptions) {
  const run = toolContext<EmailRow>(tool, input, options)
  await tool.run(run.ctx as never)
  for (const row of run.rows) {
    if (!rowCheck.Check(row)) throw new Error(`row does not match the schema: ${JSON.stringify([...rowCheck.Errors(row)].slice(0, 3))}`)
  }
  return run
}

const byEmail = (rows: EmailRow[], email: string) => {
  const row = rows.find(r => r.email === email)
  if (!row) throw new Error(`no row for ${email}`)
  return row
}

/** No server ever saw DATA (or BDAT), nor a message body. */
function assertNoData (t: Test, ...servers: TestSmtpServer[]) {
  for (const server of servers) {
    t.notOk(server.commands.some(c => /^(DATA|BDAT)\b/i.test(c) || c === 'DATA-BODY-RECEIVED'), 'no DATA was ever sent')
  }
}

t.test('an accepted mailbox is deliverable; the dialogue never sends DATA', async t => {
  const smtp = await startSmtpServer(t, { onRcpt: address => (address === 'jane@acme.test' || address === 'info@acme.test' ? 250 : 550) })
  const dns = await startDnsServer(t, mxZone('acme.test'))
  const run = await verify({ emails: ['jane@acme.test', 'info@acme.test'] }, { settings: settingsFor(dns.address, smtp.port) })

  const jane = byEmail(run.rows, 'jane@acme.test')
  t.match(jane, {
    status: 'deliverable',
    reason: 'accepted',
    syntax_valid: true,
    domain: 'acme.test',
    mx_found: true,
    mx_host: 'mx.acme.test',
    null_mx: false,
    smtp_connected: true,
    smtp_code: 250,
    catch_all: false,
    role: false,
    disposable: false,
    greylisted: false,
  })
  t.match(jane.checks, {
    dns: { outcome: 'mx', mx_records: [{ host: 'mx.acme.test', priority: 10 }] },
    mx: { host: 'mx.acme.test', address: '127.0.0.1' },
    smtp: { connected: true, greeting: 'EHLO', tls: false, stage: 'rcpt_to', code: 250 },
    catch_all: { accepted: false, code: 550 },
  })
  t.equal(byEmail(run.rows, 'info@acme.test').role, true, 'info@ is a role address')

  // One session for both recipients and the catch-all probe, RSET between them.
  t.equal(smtp.sessions, 1, 'the addresses of one domain share a session')
  t.same(smtp.commands.filter(c => !c.startsWith('RCPT')), [
    'EHLO probe.test',
    'MAIL FROM:<verify@probe.test>',
    'RSET', 'MAIL FROM:<verify@probe.test>',
    'RSET', 'MAIL FROM:<verify@probe.test>',
    'QUIT',
  ])
  t.equal(smtp.commands.filter(c => c.startsWith('RCPT TO')).length, 3, 'two recipients and one catch-all probe')
  assertNoData(t, smtp)
  t.match(run.stages.at(-1), /Checked 2 of 2 addresses/)
})

t.test('550 unknown user is undeliverable', async t => {
  const smtp = await startSmtpServer(t, { onRcpt: () => ({ code: 550, message: '5.1.1 User unknown' }) })
  const dns = await startDnsServer(t, mxZone('acme.test'))
  const run = await verify({ email: 'ghost@acme.test' }, { settings: settingsFor(dns.address, smtp.port) })
  t.match(run.rows[0], {
    status: 'undeliverable',
    reason: 'mailbox_not_found',
    smtp_connected: true,
    smtp_code: 550,
    smtp_message: /User unknown/,
    catch_all: false,
  })
  t.equal(run.rows[0].checks.catch_all, null, 'no catch-all probe when nothing was accepted')
  assertNoData(t, smtp)
})

t.test('a 5.7.x refusal is about us, not the mailbox: unknown', async t => {
  const smtp = await startSmtpServer(t, { onRcpt: () => ({ code: 554, message: '5.7.1 Client host blocked' }) })
  const dns = await startDnsServer(t, mxZone('acme.test'))
  const run = await verify({ email: 'jane@acme.test' }, { settings: settingsFor(dns.address, smtp.port) })
  t.match(run.rows[0], { status: 'unknown', reason: 'rcpt_policy_rejected', smtp_code: 554 })
})

t.test('a server that accepts a random local part is catch-all: risky', async t => {
  const smtp = await startSmtpServer(t, { onRcpt: () => 250 })
  const dns = await startDnsServer(t, mxZone('catchall.test'))
  const run = await verify({ emails: ['jane@catchall.test', 'bob@catchall.test'] }, { settings: settingsFor(dns.address, smtp.port) })
  for (const row of run.rows) {
    t.match(row, { status: 'risky', reason: 'catch_all', catch_all: true, smtp_code: 250 })
    t.match(row.checks.catch_all, { accepted: true, probe: /^nx-[0-9a-f]+@catchall\.test$/ })
  }
  const probes = smtp.rcpts.filter(r => r.startsWith('nx-'))
  t.equal(probes.length, 1, 'the catch-all probe runs once per domain')
  assertNoData(t, smtp)
})

t.test('greylisting: 451 first, accepted on the bounded retry', async t => {
  const seen = new Map<string, number>()
  const smtp = await startSmtpServer(t, {
    onRcpt: address => {
      const count = (seen.get(address) ?? 0) + 1
      seen.set(address, count)
      if (count === 1) return { code: 451, message: '4.7.1 Greylisted, try again later' }
      return address.startsWith('nx-') ? 550 : 250
    },
  })
  const dns = await startDnsServer(t, mxZone('grey.test'))
  const started = Date.now()
  const run = await verify({ email: 'jane@grey.test' }, { settings: settingsFor(dns.address, smtp.port) })
  t.match(run.rows[0], { status: 'deliverable', reason: 'accepted', greylisted: true, smtp_code: 250, catch_all: false })
  t.equal(run.rows[0].checks.smtp?.attempts, 2)
  t.ok(Date.now() - started >= 50, 'waited greylist_retry_ms before retrying')
  assertNoData(t, smtp)
})

t.test('greylisting that outlasts the retries is unknown', async t => {
  const smtp = await startSmtpServer(t, { onRcpt: () => ({ code: 450, message: '4.2.0 Greylisted' }) })
  const dns = await startDnsServer(t, mxZone('grey.test'))
  const run = await verify({ email: 'jane@grey.test' }, { settings: settingsFor(dns.address, smtp.port, { greylist_retries: 2, greylist_retry_ms: 10 }) })
  t.match(run.rows[0], { status: 'unknown', reason: 'temporary_failure', greylisted: true, smtp_code: 450 })
  t.equal(run.rows[0].checks.smtp?.attempts, 3, 'one try and two retries')
  t.equal(smtp.rcpts.length, 3)
})

t.test('no MX: the A record is the implicit MX', async t => {
  const smtp = await startSmtpServer(t, { onRcpt: address => (address.startsWith('nx-') ? 550 : 250) })
  const dns = await startDnsServer(t, { 'amail.test': { A: ['127.0.0.1'] } })
  const run = await verify({ email: 'jane@amail.test' }, { settings: settingsFor(dns.address, smtp.port) })
  t.match(run.rows[0], { status: 'deliverable', mx_found: false, mx_host: 'amail.test', smtp_connected: true })
  t.match(run.rows[0].checks.dns, { outcome: 'implicit_mx', mx_records: [] })
  assertNoData(t, smtp)
})

t.test('no MX and no A: undeliverable without an SMTP attempt', async t => {
  const smtp = await startSmtpServer(t)
  const dns = await startDnsServer(t, { 'nomail.test': {} })
  const run = await verify({ email: 'jane@nomail.test' }, { settings: settingsFor(dns.address, smtp.port) })
  t.match(run.rows[0], { status: 'undeliverable', reason: 'no_mail_host', mx_found: false, mx_host: null, smtp_connected: false })
  t.equal(smtp.sessions, 0)
})

t.test('a null MX (RFC 7505) is undeliverable without an SMTP attempt', async t => {
  const smtp = await startSmtpServer(t)
  const dns = await startDnsServer(t, { 'nullmx.test': { MX: [{ exchange: '', priority: 0 }], A: ['127.0.0.1'] } })
  const run = await verify({ email: 'jane@nullmx.test' }, { settings: settingsFor(dns.address, smtp.port) })
  t.match(run.rows[0], { status: 'undeliverable', reason: 'null_mx', null_mx: true, mx_found: false, smtp_connected: false })
  t.equal(smtp.sessions, 0, 'the A record is not used as a fallback')
})

t.test('a domain that does not exist (NXDOMAIN) is undeliverable', async t => {
  const dns = await startDnsServer(t, {})
  const run = await verify({ email: 'jane@missing.test' }, { settings: settingsFor(dns.address, 9) })
  t.match(run.rows[0], { status: 'undeliverable', reason: 'domain_not_found', mx_found: false })
  t.match(run.rows[0].checks.dns, { outcome: 'nxdomain' })
})

t.test('a DNS server that does not answer: unknown (dns_error)', async t => {
  const dns = await startDnsServer(t, { 'slow.test': { silent: true } })
  const run = await verify({ email: 'jane@slow.test' }, { settings: settingsFor(dns.address, 9, { dns_timeout_ms: 200 }) })
  t.match(run.rows[0], { status: 'unknown', reason: 'dns_error' })
  t.match(run.rows[0].checks.dns, { outcome: 'dns_error', error: /ETIMEOUT/ })
})

t.test('an MX that accepts the connection and never answers: timeout, unknown', async t => {
  const silent = await startSilentServer(t)
  const dns = await startDnsServer(t, mxZone('hang.test'))
  const started = Date.now()
  const run = await verify({ emails: ['jane@hang.test', 'bob@hang.test'] }, { settings: settingsFor(dns.address, silent.port, { command_timeout_ms: 300 }) })
  for (const row of run.rows) {
    t.match(row, { status: 'unknown', reason: 'smtp_timeout', smtp_connected: false, mx_host: 'mx.hang.test' })
    t.match(row.checks.smtp, { connected: false, error: /^timeout: / })
  }
  t.equal(silent.connections, 1, 'the second address reuses the failure instead of waiting again')
  t.ok(Date.now() - started < 10_000, 'bounded by command_timeout_ms, not hanging')
})

t.test('an MX host that refuses connections is skipped for the next one', async t => {
  const smtp = await startSmtpServer(t, { onRcpt: address => (address.startsWith('nx-') ? 550 : 250) })
  // 127.0.0.2 is loopback too, but nothing listens on it.
  const dns = await startDnsServer(t, {
    'backup.test': { MX: [{ exchange: 'dead.backup.test', priority: 5 }, { exchange: 'live.backup.test', priority: 20 }] },
    'dead.backup.test': { A: ['127.0.0.2'] },
    'live.backup.test': { A: ['127.0.0.1'] },
  })
  const run = await verify({ email: 'jane@backup.test' }, { settings: settingsFor(dns.address, smtp.port) })
  t.match(run.rows[0], { status: 'deliverable', mx_host: 'live.backup.test' })
  t.match(run.rows[0].checks.mx?.attempts, [
    { host: 'dead.backup.test', address: '127.0.0.2', outcome: /^connect: / },
    { host: 'live.backup.test', address: '127.0.0.1', outcome: 'connected' },
  ])
})

t.test('STARTTLS offered: the session upgrades (self-signed accepted) and greets again', async t => {
  const certificate = selfSignedCertificate('mx.tls.test')
  const smtp = await startSmtpServer(t, { tls: certificate, onRcpt: address => (address.startsWith('nx-') ? 550 : 250) })
  const dns = await startDnsServer(t, mxZone('tls.test'))
  const run = await verify({ email: 'jane@tls.test' }, { settings: settingsFor(dns.address, smtp.port) })
  t.match(run.rows[0], { status: 'deliverable', smtp_connected: true })
  t.match(run.rows[0].checks.smtp, { tls: true, tls_authorized: false, tls_error: null })
  t.equal(smtp.secureSessions, 1)
  t.same(smtp.commands.slice(0, 3), ['EHLO probe.test', 'STARTTLS', 'EHLO probe.test'])
  assertNoData(t, smtp)
})

t.test('private MX targets are refused when the network policy says so', async t => {
  const smtp = await startSmtpServer(t)
  const dns = await startDnsServer(t, mxZone('private.test'))
  const run = await verify({ email: 'jane@private.test' }, { settings: settingsFor(dns.address, smtp.port), allowPrivateTargets: false })
  t.match(run.rows[0], { status: 'unknown', reason: 'mx_refused', mx_found: true, mx_host: 'mx.private.test', smtp_connected: false })
  t.match(run.rows[0].checks.mx?.attempts, [{ host: 'mx.private.test', address: '127.0.0.1', outcome: /^refused: / }])
  t.same(run.network.checked, ['127.0.0.1'], 'the MX address went through the policy')
  t.equal(smtp.sessions, 0, 'no connection was made')
})

t.test('an address literal is probed directly, after the policy check', async t => {
  const smtp = await startSmtpServer(t, { onRcpt: address => (address.startsWith('nx-') ? 550 : 250) })
  const dns = await startDnsServer(t, {})
  const allowed = await verify({ email: 'jane@[127.0.0.1]' }, { settings: settingsFor(dns.address, smtp.port) })
  t.match(allowed.rows[0], { status: 'deliverable', domain: '[127.0.0.1]', mx_host: '[127.0.0.1]' })
  t.equal(dns.queries.length, 0, 'no DNS lookup for a literal')
  const refused = await verify({ email: 'jane@[127.0.0.1]' }, { settings: settingsFor(dns.address, smtp.port), allowPrivateTargets: false })
  t.match(refused.rows[0], { status: 'unknown', reason: 'mx_refused' })
})

t.test('per-domain concurrency limit holds; sessions carry several recipients', async t => {
  const smtp = await startSmtpServer(t, {
    onRcpt: async address => {
      await new Promise(resolve => setTimeout(resolve, 40))
      return address.startsWith('nx-') ? 550 : 250
    },
  })
  const dns = await startDnsServer(t, mxZone('busy.test'))
  const emails = Array.from({ length: 12 }, (_, i) => `user${i}@busy.test`)
  const run = await verify({ emails }, {
    settings: settingsFor(dns.address, smtp.port, { per_domain_concurrency: 2, rcpts_per_session: 2, concurrency: 10 }),
  })
  t.equal(run.rows.length, 12)
  t.ok(run.rows.every(r => r.status === 'deliverable'))
  t.equal(smtp.sessions, 6, '12 addresses at 2 per session')
  t.equal(smtp.maxConcurrent, 2, 'never more than per_domain_concurrency sessions at once')
  t.equal(smtp.rcpts.filter(r => r.startsWith('nx-')).length, 1, 'one catch-all probe for the whole domain')
  t.ok(run.pushes.length > 1, 'rows are pushed as sessions finish')
  assertNoData(t, smtp)
})

t.test('invalid syntax, disposable and role flags, duplicates and the row limit', async t => {
  const smtp = await startSmtpServer(t, { onRcpt: address => (address.startsWith('nx-') ? 550 : 250) })
  // mailinator.com is on the disposable list; the local zone points it at the test server.
  const dns = await startDnsServer(t, mxZone('mailinator.com'))
  const run = await verify({ emails: ['not an address', 'jane@mailinator.com', 'jane@mailinator.com', 'sales@mailinator.com'] }, { settings: settingsFor(dns.address, smtp.port) })
  t.equal(run.rows.length, 3, 'duplicates are checked once')
  t.match(byEmail(run.rows, 'not an address'), { status: 'undeliverable', reason: /^invalid_syntax: /, syntax_valid: false, checks: { dns: null, smtp: null } })
  t.match(byEmail(run.rows, 'jane@mailinator.com'), { status: 'risky', reason: 'disposable', disposable: true, checks: { disposable: { matched: 'mailinator.com' } } })
  t.match(byEmail(run.rows, 'sales@mailinator.com'), { role: true, disposable: true })
  t.notOk(dns.queries.some(q => q.name.includes('not an address')), 'invalid addresses are not looked up')

  const limited = await verify({ emails: ['a@mailinator.com', 'b@mailinator.com', 'c@mailinator.com'] }, { settings: settingsFor(dns.address, smtp.port), cap: 2 })
  t.equal(limited.rows.length, 2)
  t.match(limited.warnings, [/first 2 of 3/])
})

t.test('smtp_check false stops after DNS', async t => {
  const smtp = await startSmtpServer(t)
  const dns = await startDnsServer(t, mxZone('acme.test'))
  const run = await verify({ email: 'jane@acme.test', smtp_check: false }, { settings: settingsFor(dns.address, smtp.port) })
  t.match(run.rows[0], { status: 'unknown', reason: 'smtp_not_checked', mx_found: true, mx_host: 'mx.acme.test', smtp_connected: false })
  t.equal(smtp.sessions, 0)
})

t.test('a UTF-8 local part needs SMTPUTF8 from the server', async t => {
  const plain = await startSmtpServer(t, { hideSmtpUtf8: true })
  const dns = await startDnsServer(t, mxZone('utf8.test'))
  const refused = await verify({ email: 'δοκιμή@utf8.test' }, { settings: settingsFor(dns.address, plain.port) })
  t.match(refused.rows[0], { status: 'unknown', reason: 'smtputf8_not_supported', smtp_connected: true })
  t.notOk(plain.commands.some(c => c.startsWith('RCPT')), 'the address was not sent to a server that cannot take it')

  const utf8 = await startSmtpServer(t, { onRcpt: address => (address.startsWith('nx-') ? 550 : 250) })
  const accepted = await verify({ email: 'δοκιμή@utf8.test' }, { settings: settingsFor(dns.address, utf8.port) })
  t.match(accepted.rows[0], { status: 'deliverable' })
  t.ok(utf8.commands.includes('MAIL FROM:<verify@probe.test> SMTPUTF8'))
})

t.test('input errors; settings errors are the boot\'s (readToolSettings)', async t => {
  await t.rejects(tool.run(toolContext(tool, { emails: [' '] }).ctx as never), { name: 'InputError' })
  t.throws(() => toolContext(tool, { email: 'jane@acme.test' }, { settings: { smtp_port: 'twenty-five' } }), { name: 'ConfigError', message: /"email" tool's setting "smtp_port" must be integer/ })
  t.throws(() => toolContext(tool, { email: 'jane@acme.test' }, { settings: { helo_name: 'two words' } }), { name: 'ConfigError', message: /"helo_name"/ })
  t.throws(() => toolContext(tool, { email: 'jane@acme.test' }, { settings: { mail_from: '<a@b.test>' } }), { name: 'ConfigError', message: /"mail_from"/ })
})
