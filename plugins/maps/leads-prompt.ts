// The find_leads_in_city workflow (MCP prompts): maps lists the businesses,
// the other tools enrich and check them. Offered only when all five are enabled.
import type { WorkflowPrompt } from '../../core/tools/contract.ts'

export const findLeadsInCity: WorkflowPrompt = {
  name: 'find_leads_in_city',
  title: 'Find leads in a city',
  description: 'Local businesses of one kind in one city, with their websites, contact e-mails and phones, e-mails verified.',
  arguments: [
    { name: 'niche', description: 'The kind of business, e.g. "dentists" or "coffee roasters".', required: true },
    { name: 'city', description: 'The city (and country if ambiguous), e.g. "Leeds, UK".', required: true },
    { name: 'count', description: 'How many businesses to aim for (default 25).', required: false },
  ],
  tools: ['maps_search', 'ad_library_lead_finder', 'website_email_find', 'email_verify', 'disposable_email_check'],
  render: (a) => [
    `Build a lead list of ${a.count || '25'} ${a.niche} in ${a.city}.`,
    `1. List the businesses with \`maps_search\` (query "${a.niche} in ${a.city}"); \`ad_library_lead_finder\` also says which of them run ads.`,
    '2. For each business website, collect public e-mails, phones and social links with `website_email_find` (pass several sites at once).',
    '3. Check the e-mails with `email_verify` and drop throw-away ones with `disposable_email_check`.',
    '4. Answer with a table: business, website, phone, best e-mail (with its verification status), source.',
    'Long jobs: if a call answers with status running, poll get_job_status with wait_seconds, then read get_job_results.',
  ].join('\n'),
}
