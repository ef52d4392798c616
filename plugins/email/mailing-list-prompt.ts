// The verify_mailing_list workflow (MCP prompts): disposable check, then SMTP
// verification. Offered only when both tools are enabled.
import type { WorkflowPrompt } from '../../core/tools/contract.ts'

export const verifyMailingList: WorkflowPrompt = {
  name: 'verify_mailing_list',
  title: 'Verify a mailing list',
  description: 'Sort a list of e-mail addresses into deliverable, risky, undeliverable and disposable before a send.',
  arguments: [
    { name: 'addresses', description: 'The addresses, separated by commas, spaces or new lines.', required: true },
  ],
  tools: ['disposable_email_check', 'email_verify'],
  render: (a) => {
    const addresses = a.addresses!.split(/[\s,;]+/).filter(Boolean)
    return [
      `Verify this mailing list of ${addresses.length} address${addresses.length === 1 ? '' : 'es'}: ${JSON.stringify(addresses)}`,
      '1. Flag disposable and temporary addresses with `disposable_email_check` (items: the list).',
      '2. Check deliverability of the rest with `email_verify` (emails: the list); it asks each mail server without sending anything.',
      '3. Answer with four groups: deliverable, risky (catch-all, greylisted, role), undeliverable (with the reason) and disposable, then a one-line recommendation per group.',
    ].join('\n')
  },
}
