// The `disposable` tool (agent: disposable_email_check): is an address or
// domain from a throw-away mail provider? See README.md for the list, the
// precedence of allow/deny lists and the MX match.
import { defineTool, InputError, listItems } from '../../core/tools/contract.ts'
import { DisposableInput, DisposableRow, ITEMS_LIST } from './schema.ts'
import { DisposableSettingsSchema } from './settings.ts'
import { DisposableMatcher } from './disposable-domains.ts'
import { checkItems } from './check.ts'

const DESCRIPTION = `Tells whether e-mail addresses or domains belong to disposable (throw-away) mail providers such as mailinator.com. Checks, in order: the operator's deny list, the operator's allow list, a maintained list of over 100,000 disposable domains (subdomains of listed domains count too, e.g. x.mailinator.com), and, for domains on no list, their MX hosts against the mail servers of known disposable providers (which catches their new domains). Sends no mail and contacts no mail server.

Returns one row per input: domain, disposable (true/false), reason (deny_list, allow_list, listed, listed_parent, disposable_mx, not_listed, invalid_input), matched (the entry or MX host that decided), mx_checked and mx_hosts.

Use it to screen sign-ups or lead lists; it is fast and cheap. For whether a mailbox actually exists, use email_verify instead. Example: {"items": ["jane@mailinator.com", "acme.com"]}.`

export default defineTool({
  key: 'disposable',
  agentName: 'disposable_email_check',
  title: 'Detect disposable e-mail addresses',
  description: DESCRIPTION,
  input: DisposableInput,
  row: DisposableRow,
  // A monitor's row identity and the fields whose changes it reports (core/monitors).
  rowKey: ['input'],
  watch: ['disposable', 'reason'],
  settings: DisposableSettingsSchema,
  examples: [
    { task: 'is jane@mailinator.com a throw-away address?', args: { items: ['jane@mailinator.com'] } },
    { task: 'screen these sign-up e-mails for temporary mail providers', args: { emails: ['a@acme.com', 'b@guerrillamail.com'] } },
    { task: 'check whether some domains are disposable e-mail providers, without DNS lookups', args: { domains: ['yopmail.com', 'acme.com'], check_mx: false } },
  ],
  keywords: ['disposable email', 'throwaway', 'throw-away', 'burner', 'temporary email', 'temp mail', 'one-time', 'fake signups', 'fake email', 'spam signups', 'mailinator', 'guerrillamail', 'yopmail', 'trash mail', 'sign-up fraud', 'screen registrations', 'block', 'filter signups'],
  cues: ['disposable', 'throwaway', 'temporary', 'burner', 'one-time', 'fake', 'sign-ups', 'mail service', 'mail provider'],
  notFor: ['bounce', 'deliverable', 'smtp', 'mailbox exists', 'catch-all', 'website', 'crawl'],
  list: ITEMS_LIST,
  async run (ctx) {
    const items = listItems(ctx, ITEMS_LIST)
    if (items.length === 0) {
      if (ctx.remaining() > 0) throw new InputError('Give at least one address or domain in "items" (or "emails", "domains").')
      return
    }

    const settings = ctx.settings
    const matcher = new DisposableMatcher({ allow: settings.allow, deny: settings.deny, extraMxHosts: settings.disposable_mx_hosts })
    const resolver = ctx.input.check_mx
      ? ctx.dns.using({ servers: settings.dns_servers, timeoutMs: settings.dns_timeout_ms, tries: settings.dns_tries })
      : null
    ctx.stage(`Checking ${items.length} item${items.length === 1 ? '' : 's'}`)
    let lookupErrors = 0
    await checkItems(items, {
      matcher,
      resolver,
      signal: ctx.signal,
      onRows: async rows => {
        lookupErrors += rows.filter(r => r.mx_error).length
        await ctx.push(rows)
      },
      onProgress: (done, total) => ctx.stage(`Checked ${done} of ${total} items`),
    })
    if (lookupErrors > 0) ctx.warn(`${lookupErrors} MX lookup${lookupErrors === 1 ? '' : 's'} failed; those rows rest on the lists alone (see mx_error).`)
  },
})
