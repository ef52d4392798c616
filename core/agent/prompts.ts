// Ready workflows offered by prompts/list and prompts/get. Each names the
// tools it chains by agent name; a tool that is not enabled on this server is
// said to be missing, and the agent is sent to find_tool instead, so a prompt
// never promises a tool the server cannot run.
import type { AgentCatalog } from './agent-catalog.ts'

export interface PromptArgument { name: string, description: string, required: boolean }

export interface WorkflowPrompt {
  name: string
  title: string
  description: string
  arguments: PromptArgument[]
  render (args: Record<string, string>, tool: (name: string) => string): string
}

export const WORKFLOW_PROMPTS: WorkflowPrompt[] = [
  {
    name: 'find_leads_in_city',
    title: 'Find leads in a city',
    description: 'Local businesses of one kind in one city, with their websites, contact e-mails and phones, e-mails verified.',
    arguments: [
      { name: 'niche', description: 'The kind of business, e.g. "dentists" or "coffee roasters".', required: true },
      { name: 'city', description: 'The city (and country if ambiguous), e.g. "Leeds, UK".', required: true },
      { name: 'count', description: 'How many businesses to aim for (default 25).', required: false },
    ],
    render: (a, tool) => [
      `Build a lead list of ${a.count || '25'} ${a.niche} in ${a.city}.`,
      `1. List the businesses with ${tool('maps_search')} (query "${a.niche} in ${a.city}"); ${tool('ad_library_lead_finder')} also says which of them run ads.`,
      `2. For each business website, collect public e-mails, phones and social links with ${tool('website_email_find')} (pass several sites at once).`,
      `3. Check the e-mails with ${tool('email_verify')} and drop throw-away ones with ${tool('disposable_email_check')}.`,
      '4. Answer with a table: business, website, phone, best e-mail (with its verification status), source.',
      'Long jobs: if a call answers with status running, poll get_job_status with wait_seconds, then read get_job_results.',
    ].join('\n'),
  },
  {
    name: 'audit_video_channel',
    title: 'Audit a video channel',
    description: 'A channel\'s recent uploads, their performance and what they talk about, compared with competitors.',
    arguments: [
      { name: 'channel', description: 'Channel URL or handle.', required: true },
      { name: 'competitors', description: 'Up to four competitor channel URLs or handles, comma-separated.', required: false },
    ],
    render: (a, tool) => [
      `Audit the video channel ${a.channel}.`,
      `1. Get the channel's stats and recent videos with ${tool('videoA_extract')}.`,
      a.competitors
        ? `2. Compare it with ${a.competitors} using ${tool('videoA_competitor')} (subscribers, upload cadence, recent performance).`
        : `2. Compare it with up to four similar channels using ${tool('videoA_competitor')}.`,
      `3. Read the transcripts of the three best and three worst recent videos with ${tool('videoA_transcript')}.`,
      '4. Report: cadence, view trends, topics and hooks that work, and three concrete recommendations.',
    ].join('\n'),
  },
  {
    name: 'verify_mailing_list',
    title: 'Verify a mailing list',
    description: 'Sort a list of e-mail addresses into deliverable, risky, undeliverable and disposable before a send.',
    arguments: [
      { name: 'addresses', description: 'The addresses, separated by commas, spaces or new lines.', required: true },
    ],
    render: (a, tool) => {
      const addresses = a.addresses!.split(/[\s,;]+/).filter(Boolean)
      return [
        `Verify this mailing list of ${addresses.length} address${addresses.length === 1 ? '' : 'es'}: ${JSON.stringify(addresses)}`,
        `1. Flag disposable and temporary addresses with ${tool('disposable_email_check')} (items: the list).`,
        `2. Check deliverability of the rest with ${tool('email_verify')} (emails: the list); it asks each mail server without sending anything.`,
        '3. Answer with four groups: deliverable, risky (catch-all, greylisted, role), undeliverable (with the reason) and disposable, then a one-line recommendation per group.',
      ].join('\n')
    },
  },
  {
    name: 'research_topic',
    title: 'Research a topic on the web',
    description: 'Search the web, read the best pages and write a sourced brief.',
    arguments: [
      { name: 'topic', description: 'What to research, e.g. "EU AI Act obligations for providers".', required: true },
      { name: 'sources', description: 'How many pages to read (default 5).', required: false },
    ],
    render: (a, tool) => [
      `Research "${a.topic}" and write a brief with sources.`,
      `1. Search with ${tool('web_search_scrape')} (query "${a.topic}", limit ${a.sources || '5'}), which also reads each result page; or ${tool('web_search')} first if you want to pick the pages yourself.`,
      `2. Read any further pages you need with ${tool('scrape_web_pages')} (urls: [...]).`,
      '3. Write the brief: key points, where sources disagree, and a numbered source list with URLs. Quote only what the pages say.',
    ].join('\n'),
  },
]

/** The prompts/get text for one workflow, naming tools as this server has them. */
export function renderPrompt (prompt: WorkflowPrompt, args: Record<string, string>, catalog: AgentCatalog): string {
  const tool = (name: string) => (catalog.get(name)?.job ? `\`${name}\`` : `\`${name}\` (not enabled on this server: ask find_tool for an alternative)`)
  return prompt.render(args, tool)
}
