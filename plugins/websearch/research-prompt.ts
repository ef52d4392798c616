// The research_topic workflow (MCP prompts): search, read, write a sourced brief.
// All three agent tools are this plugin's own.
import type { WorkflowPrompt } from '../../core/tools/contract.ts'

export const researchTopic: WorkflowPrompt = {
  name: 'research_topic',
  title: 'Research a topic on the web',
  description: 'Search the web, read the best pages and write a sourced brief.',
  arguments: [
    { name: 'topic', description: 'What to research, e.g. "EU AI Act obligations for providers".', required: true },
    { name: 'sources', description: 'How many pages to read (default 5).', required: false },
  ],
  tools: ['web_search_scrape', 'web_search', 'scrape_web_pages'],
  render: (a) => [
    `Research "${a.topic}" and write a brief with sources.`,
    `1. Search with \`web_search_scrape\` (query "${a.topic}", limit ${a.sources || '5'}), which also reads each result page; or \`web_search\` first if you want to pick the pages yourself.`,
    '2. Read any further pages you need with `scrape_web_pages` (urls: [...]).',
    '3. Write the brief: key points, where sources disagree, and a numbered source list with URLs. Quote only what the pages say.',
  ].join('\n'),
}
