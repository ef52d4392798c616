// `/`: what the service does, the tools this server runs (the registry's
// enabled tools, so a disabled one is never offered), and where to go next.
import { html, type Html } from './html.ts'
import { SITE_NAME, type PageHead } from './layout.ts'

export interface ToolSummary { key: string, title: string, description: string }

const SUMMARY_MAX = 140

/**
 * One line out of a description written for agents (long, with examples):
 * its first sentence, up to a colon that starts a field list, cut at a word
 * boundary past SUMMARY_MAX characters. Markdown code quotes are dropped (the page shows text).
 */
export function oneLine (description: string): string {
  const flat = description.replace(/`/g, '').replace(/\s+/g, ' ').trim()
  let line = /^(.+?[.!?])(?=\s+[A-Z("`]|$)/.exec(flat)?.[1] ?? flat
  const colon = line.indexOf(': ')
  if (colon > 20) line = `${line.slice(0, colon)}.`
  if (line.length <= SUMMARY_MAX) return line
  const cut = line.slice(0, SUMMARY_MAX - 1)
  const space = cut.lastIndexOf(' ')
  return `${(space > SUMMARY_MAX / 2 ? cut.slice(0, space) : cut).replace(/[\s,;(]+$/, '')}…`
}

/** The dashboard's playground with the tool chosen (a person not signed in logs in first and lands there). */
const playgroundLink = (key: string) => `/app#playground?tool=${encodeURIComponent(key)}`

export function homePage (tools: ToolSummary[], origin: string | null): { head: PageHead, body: Html } {
  const description = 'A self-hostable data-extraction jobs service: tools that turn the public web into rows, run as jobs over REST and over an MCP agent endpoint, exported as CSV, XLSX, JSON or JSONL.'
  const body = html`<h1>Turn the public web into rows</h1>
<p class="lead">Search the web and maps, scrape pages, stores and public profiles, find and verify e-mail addresses, read video data and captions. Each tool runs as a job you start, watch, page through and export as CSV, XLSX, JSON or JSONL, over a REST API and over an MCP endpoint for AI agents, with the same keys, quotas and rate limits.</p>
<p class="actions"><a class="button" href="/app#signup">Sign up</a> <a class="button quiet" href="/app#login">Log in</a> <a class="button quiet" href="/docs">API docs</a></p>
<h2>How it works</h2>
<ol>
<li>Sign up for a personal API key (or mint a scoped token for chosen tools).</li>
<li>Start a tool, three ways with the same key: in the <a href="/app#playground">dashboard's playground</a>, a form made from the tool's parameters (pick a tool below to open it there); over REST, <code>POST /api/tool-run</code> with <code>{"tool": "&lt;key&gt;", "params": {…}}</code> (see the <a href="/docs">API docs</a>); or from an AI agent, which connects to the MCP endpoint <code>/mcp</code> and calls the tools by name (see the <a href="/mcp/docs.md">agent guide</a>).</li>
<li>Follow its progress: a live bar in the dashboard, the status, WebSocket or a webhook over REST, progress notifications over MCP.</li>
<li>Read the rows: page through them and download CSV, XLSX, JSON or JSONL in the dashboard's results, or over REST; an agent gets them in the call's answer. The dashboard's Jobs list keeps every run with its input, to open, cancel or run again.</li>
</ol>
<p>Reference: the <a href="/docs">REST API documentation</a> (also as <a href="/openapi.json">OpenAPI</a>), the <a href="/mcp/docs.md">agent guide</a> for MCP clients, and the <a href="/blog">blog</a>.</p>
<h2 id="tools">Tools on this server</h2>
${tools.length
  ? html`<ul class="tools">
${tools.map(tool => html`<li><h3><a href="${playgroundLink(tool.key)}">${tool.title}</a></h3><p><code>${tool.key}</code> ${oneLine(tool.description)}</p></li>
`)}</ul>`
  : html`<p>No tool is enabled on this server yet.</p>`}`
  return { head: { title: SITE_NAME, description, canonical: origin ? `${origin}/` : undefined }, body }
}
