// The SMTP client on its own: reply parsing, EHLO extensions, the refusal to
// send DATA, and a session that drops (421) being reopened once.
import t from 'tap'
import { SmtpReplyParser, SmtpSession, parseEhloExtensions } from '../../../plugins/email/smtp.ts'
import tool from '../../../plugins/email/index.ts'
import type { EmailRow } from '../../../plugins/email/schema.ts'
import { toolContext } from '../../helpers/tool-context.ts'
import { startDnsServer } from './fixtures/dns-server.ts'
import { startSmtpServer } from './fixtures/smtp-servers.ts'

t.test('multi-line replies are joined; chunks may split lines anywhere', async t => {
  const parser = new SmtpReplyParser()
  t.same(parser.push('250-mx.example.com greets you\r\n250-PIPE'), [])
  t.same(parser.push('LINING\r\n250-SIZE 35882577\r\n250 SMTPUTF8\r'), [])
  const [reply] = parser.push('\n')
  t.same(reply.lines, ['mx.example.com greets you', 'PIPELINING', 'SIZE 35882577', 'SMTPUTF8'])
  t.equal(reply.code, 250)
  t.same([...parseEhloExtensions(reply)], [['PIPELINING', ''], ['SIZE', '35882577'], ['SMTPUTF8', '']])
})

t.test('several replies in one chunk, a bare code, LF-only line ends, enhanced codes', async t => {
  const parser = new SmtpReplyParser()
  const replies = parser.push('250\n550 5.1.1 <x@example.com>: Recipient address rejected\r\n451-4.7.1 Greylisted\r\n451 4.7.1 come back later\r\n')
  t.equal(replies.length, 3)
  t.match(replies[0], { code: 250, lines: [''], enhanced: null })
  t.match(replies[1], { code: 550, enhanced: '5.1.1', text: '5.1.1 <x@example.com>: Recipient address rejected' })
  t.match(replies[2], { code: 451, enhanced: '4.7.1', text: '4.7.1 Greylisted 4.7.1 come back later' })
})

t.test('malformed replies are protocol errors', async t => {
  t.throws(() => new SmtpReplyParser().push('hello there\r\n'), { name: 'SmtpProtocolError', kind: 'protocol' })
  t.throws(() => new SmtpReplyParser().push('250-first\r\n251 second\r\n'), /reply code changed/)
  t.throws(() => new SmtpReplyParser().push('2'.repeat(70_000)), /too long/)
})

t.test('a session refuses to send DATA, BDAT or a line break', async t => {
  const smtp = await startSmtpServer(t)
  const session = await SmtpSession.open({
    address: '127.0.0.1', port: smtp.port, hostname: 'localhost', heloName: 'probe.test',
    connectTimeoutMs: 1000, commandTimeoutMs: 1000, startTls: false,
  })
  t.teardown(() => session.destroy())
  await t.rejects(session.send('DATA'), /refuses to send DATA/)
  await t.rejects(session.send('bdat 100 LAST'), /refuses to send DATA/)
  await t.rejects(session.send('RCPT TO:<a@b.test>\r\nDATA'), /line break/)
  t.equal(session.greeting, 'EHLO')
  t.ok(session.extensions.has('SMTPUTF8'))
  await session.quit()
  t.same(smtp.commands, ['EHLO probe.test', 'QUIT'], 'nothing refused reached the server')
})

t.test('a 421 mid-session: the session is reopened once and the address asked again', async t => {
  let first = true
  const smtp = await startSmtpServer(t, {
    onRcpt: address => {
      if (first) {
        first = false
        return { code: 421, message: '4.3.2 Service shutting down' }
      }
      return address.startsWith('nx-') ? 550 : 250
    },
  })
  const dns = await startDnsServer(t, { 'drop.test': { MX: [{ exchange: 'mx.drop.test', priority: 10 }] }, 'mx.drop.test': { A: ['127.0.0.1'] } })
  const run = toolContext<EmailRow>(tool, { email: 'jane@drop.test' }, {
    settings: { dns_servers: [dns.address], smtp_port: smtp.port, helo_name: 'probe.test', command_timeout_ms: 1000, connect_timeout_ms: 1000 },
  })
  await tool.run(run.ctx as never)
  t.match(run.rows[0], { status: 'deliverable', smtp_code: 250 })
  t.equal(smtp.sessions, 2)
})
