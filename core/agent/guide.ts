// The agent guide (GET /mcp/docs.md and the docs://guide resource) and the
// instructions `initialize` returns, both written from the agent catalog so
// they list exactly the tools tools/list serves.
import type { AdvertisedTool, AgentCatalog, JsonSchema } from './agent-catalog.ts'
import { INLINE_ROWS, WAIT_SECONDS_DEFAULT, WAIT_SECONDS_MAX } from './schemas.ts'

export interface ServerInfo { name: string, version: string }

export function agentInstructions (catalog: AgentCatalog): string {
  return [
    'Data-extraction tools that run as jobs. Each job tool call is one call of your plan\'s quota (status and result reads are free).',
    'Not sure which tool fits? Call find_tool {"task": "<the job in plain English>"}: it returns the best tools with example arguments.',
    `A job tool waits up to wait_seconds (default ${WAIT_SECONDS_DEFAULT}, at most ${WAIT_SECONDS_MAX}) and returns the rows in structuredContent.results (up to ${INLINE_ROWS}; page on with get_job_results).`,
    'If the job is still running it returns status "running" and a job_id: call get_job_status {"job_id", "wait_seconds"} until status is "done", then get_job_results {"job_id", "offset", "limit"}.',
    'Send a progress token to receive progress notifications while a call waits.',
    'Errors come back as isError results with a reason you can act on (bad arguments, tool not allowed for this token, quota used up, job error).',
    `Tools here: ${catalog.jobTools().map(t => t.name).join(', ') || 'none enabled'}. The full guide is the resource docs://guide.`,
  ].join('\n')
}

function typeOf (schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map(v => JSON.stringify(v)).join(' \\| ')
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (variants) return variants.map(typeOf).join(' or ')
  if (schema.type === 'array') return `array of ${schema.items ? typeOf(schema.items as JsonSchema) : 'any'}`
  if (Array.isArray(schema.type)) return schema.type.join(' or ')
  return typeof schema.type === 'string' ? schema.type : 'any'
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ')

function argumentTable (schema: JsonSchema): string {
  const properties = schema.properties ?? {}
  const required = new Set(schema.required ?? [])
  const rows = Object.entries(properties).map(([name, p]) => {
    const notes = [p.description as string | undefined, p.default !== undefined ? `default ${JSON.stringify(p.default)}` : undefined]
      .filter(Boolean).join('; ')
    return `| \`${name}\` | ${cell(typeOf(p))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(notes)} |`
  })
  if (!rows.length) return '_No arguments._'
  return ['| argument | type | required | notes |', '|---|---|---|---|', ...rows].join('\n')
}

function rowFields (tool: AdvertisedTool): string {
  const results = tool.outputSchema.properties?.results as JsonSchema | undefined
  const row = (results?.items ?? {}) as JsonSchema
  const fields = Object.entries(row.properties ?? {}).map(([name, p]) => `\`${name}\` (${typeOf(p)})`)
  return fields.length ? fields.join(', ') : 'see outputSchema'
}

/** How the agent arguments map onto REST's POST /api/tool-run params (the spec: "except documented renames"). */
function restMapping (tool: AdvertisedTool): string {
  const renamed = Object.entries(tool.renames).map(([agent, rest]) => `\`${agent}\` is REST \`${rest}\``)
  const fixed = Object.entries(tool.fixedParams).map(([k, v]) => `\`${k}: ${JSON.stringify(v)}\``)
  return `REST: \`POST /api/tool-run {"tool": "${tool.restKey}", "params": {…}}\`; ` +
    (renamed.length ? `renamed arguments: ${renamed.join(', ')}; the others keep their names` : 'every argument keeps its name (no renames)') +
    (fixed.length ? `; this tool sets ${fixed.join(', ')}` : '') + '.'
}

function toolSection (tool: AdvertisedTool): string {
  const lines = [`### \`${tool.name}\``, '', `**${tool.title}**${tool.restKey ? ` (REST key \`${tool.restKey}\`)` : ''}`, '', tool.description, '', argumentTable(tool.inputSchema)]
  if (tool.restKey) lines.push('', restMapping(tool))
  if (tool.job) {
    lines.push('', `Row fields: ${rowFields(tool)}.`)
    for (const ex of tool.job.examples) lines.push('', `Example: ${ex.task}`, '', '```json', JSON.stringify({ name: tool.name, arguments: ex.args }), '```')
  }
  return lines.join('\n')
}

export function renderGuide (catalog: AgentCatalog, info: ServerInfo): string {
  const prompts = catalog.prompts.map(p => `- \`${p.name}\`: ${p.description} Arguments: ${p.arguments.map(a => `\`${a.name}\`${a.required ? '' : ' (optional)'}`).join(', ')}.`)
  return [
    `# ${info.name} ${info.version}: agent guide`,
    '',
    'The agent endpoint speaks MCP (Model Context Protocol) over Streamable HTTP at `POST /mcp`.',
    'It answers JSON or a server-sent event stream, whichever the client\'s `Accept` header prefers (the stream carries progress notifications).',
    '',
    '## Connecting',
    '',
    '- Endpoint: `POST /mcp` (stateless: no session; `GET` and `DELETE /mcp` answer 405). Protocol revisions: 2026-07-28 (per-request metadata, `server/discover`) and 2025-11-25 with the earlier revisions the MCP SDK v2 keeps (negotiated by `initialize`), from the one endpoint; any server process answers any request.',
    '- Tasks (2026-07-28, extension `io.modelcontextprotocol/tasks`): a client that names the extension in its request capabilities gets a task for every job tool call; the task id is the job id, `tasks/get` gives its status and progress and, once it ended, the tool result; `tasks/cancel` cancels the job (refunded, as over REST). Disconnecting never cancels a task. Other clients wait up to `wait_seconds` as below.',
    '- Results carry at most `max_result_bytes` of rows (default 50000); the rest is a `get_job_results` page or the resource link away. Trace context (`traceparent`, `tracestate`) in a request\'s `_meta` is carried into the job.',
    '- Auth: `Authorization: Bearer <key>` with your personal `sk-` key or a scoped `scp-` token (minted with `POST /api/auth/tokens`, limited to the tools it names). Missing or bad: 401; a guest or admin key: 403.',
    '- The same plan limits and quota as REST: every job tool call is one call; `find_tool`, `get_job_status` and `get_job_results` are free.',
    '',
    '## How to work',
    '',
    agentInstructions(catalog).split('\n').map(l => `- ${l}`).join('\n'),
    '',
    '## Prompts',
    '',
    ...(prompts.length ? prompts : ['None on this server (a workflow is offered only when all its tools are enabled).']),
    '',
    '## Tools',
    '',
    ...catalog.tools.map(toolSection).flatMap(s => [s, '']),
    '## Discovery',
    '',
    '- `GET /mcp/manifest.json`: every tool with its `inputSchema` and `outputSchema` (the schemas tools/list serves).',
    '- `GET /openapi.json`: the REST API (OpenAPI 3.0.3); `GET /docs`: the same as a page.',
    '',
  ].join('\n')
}
