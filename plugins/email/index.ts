// The `email` tool (agent: email_verify): is this address deliverable?
// Syntax, then DNS (MX, implicit MX, null MX), then an SMTP dialogue with the
// best MX that stops at RCPT TO. See README.md for settings and statuses.
import { defineTool, InputError, listItems } from '../../core/tools/contract.ts'
import { verifyMailingList } from './mailing-list-prompt.ts'
import { ADDRESSES_LIST, EmailInput, EmailRow } from './schema.ts'
import { EmailSettingsSchema, emailSettingsForRun } from './settings.ts'

const DESCRIPTION = `Verifies e-mail addresses without sending mail. For each address it checks the syntax (RFC 5321/5322, IDN domains), looks up the domain's mail servers (MX, falling back to A/AAAA; a null MX or a missing domain means undeliverable), then asks the best mail server over SMTP whether it would accept the recipient (EHLO, MAIL FROM, RCPT TO; never DATA), and probes a random address on the same domain to detect catch-all servers.

Returns one row per address: status (deliverable, undeliverable, risky, unknown) with a reason code, plus syntax_valid, mx_found, mx_host, null_mx, smtp_connected, smtp_code, smtp_message, catch_all, role (info@, sales@…), disposable (a throw-away provider), greylisted, and the detail of each check under checks.

risky means the server accepts everything (catch_all), the domain is disposable, or the answer was a 252/mailbox full; unknown means no firm answer (timeouts, greylisting that outlasted the retry, policy refusals, smtp_check false).

Use it to clean a list before sending, or to check one address found elsewhere. Example: {"emails": ["jane@acme.com", "info@acme.com"]}.`

export default defineTool({
  key: 'email',
  agentName: 'email_verify',
  title: 'Verify e-mail addresses',
  description: DESCRIPTION,
  input: EmailInput,
  row: EmailRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['email'],
  watch: ['status', 'reason', 'catch_all', 'disposable'],
  settings: EmailSettingsSchema,
  renamedSettings: { max_parallel_sessions: { to: 'concurrency' } },
  examples: [
    { task: 'check whether jane@acme.com is a real, deliverable address', args: { email: 'jane@acme.com' } },
    { task: 'verify a list of lead e-mails before a campaign', args: { emails: ['jane@acme.com', 'sales@acme.com', 'bob@example.org'] } },
    { task: 'validate the syntax and mail servers of addresses without contacting them', args: { emails: ['jane@acme.com'], smtp_check: false } },
  ],
  keywords: ['email verification', 'email validation', 'email verifier', 'email checker', 'deliverable', 'deliverability', 'bounce', 'hard bounce', 'invalid emails', 'does the mailbox exist', 'mailbox exists', 'real mailbox', 'receive mail', 'catch-all', 'smtp check', 'mx record', 'clean an email list', 'list cleaning', 'list hygiene', 'before sending', 'newsletter', 'cold email', 'reachable'],
  cues: ['bounce', 'deliverable', 'smtp', 'mailbox exists', 'real mailbox', 'invalid', 'verify', 'catch-all'],
  notFor: ['disposable', 'throwaway', 'temporary', 'burner', 'fake', 'website', 'crawl', 'domains of companies'],
  prompts: [verifyMailingList],
  list: ADDRESSES_LIST,
  async run (ctx) {
    const addresses = listItems(ctx, ADDRESSES_LIST)
    if (addresses.length === 0) {
      if (ctx.remaining() > 0) throw new InputError('Give at least one address in "emails" (or "email").')
      return
    }

    const settings = emailSettingsForRun(ctx.settings)
    const resolver = ctx.dns.using({ servers: settings.dns_servers, timeoutMs: settings.dns_timeout_ms, tries: settings.dns_tries })
    ctx.stage(`Checking ${addresses.length} address${addresses.length === 1 ? '' : 'es'}`)
    // The verifier (and the shared e-mail parser it uses) loads with the first job, not at boot.
    const { verifyEmails } = await import('./verify.ts')
    await verifyEmails(addresses, {
      settings,
      resolver,
      network: ctx.network,
      signal: ctx.signal,
      smtpCheck: ctx.input.smtp_check,
      onRows: async rows => { await ctx.push(rows) },
      onProgress: (done, total) => ctx.stage(`Checked ${done} of ${total} addresses`),
    })
  },
})
