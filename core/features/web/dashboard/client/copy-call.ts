// The playground's "copy as curl" and "copy as an MCP call": the form's call
// written for a terminal and for an agent. Pure text, no DOM: tested as is.
// The key is never written into either (a placeholder the reader sets).

/** What /mcp/manifest.json says of one agent tool. */
export interface ManifestTool {
  name: string
  rest_key: string | null
  renames: Record<string, string>
  fixed_params: Record<string, unknown>
}

/** The shell variable the copied commands read the key from. */
export const KEY_VARIABLE = 'EXTRACTION_API_KEY'

/** A single-quoted shell word: safe for any text. */
export const shellWord = (text: string) => `'${text.replaceAll("'", "'\\''")}'`

/** `curl` starting the tool with these params (multipart with the file's name when it runs on an upload). */
export function curlCommand (origin: string, tool: string, params: Record<string, unknown>, uploadName?: string): string {
  const lines = [`curl -X POST ${shellWord(`${origin}/api/tool-run`)}`, `  -H "x-api-key: $${KEY_VARIABLE}"`]
  if (uploadName === undefined) {
    lines.push("  -H 'content-type: application/json'", `  -d ${shellWord(JSON.stringify({ tool, params }))}`)
  } else {
    lines.push(`  -F ${shellWord(`tool=${tool}`)}`, `  -F ${shellWord(`params=${JSON.stringify(params)}`)}`, `  -F ${shellWord(`file=@${uploadName}`)}`)
  }
  return lines.join(' \\\n')
}

/**
 * The JSON-RPC `tools/call` an agent sends to /mcp for the same call: the
 * agent tool of this REST key whose fixed params the call has (the most of
 * them), its arguments renamed to the agent's names. Null when no agent tool
 * runs this tool (or the call needs an upload, which agents cannot send).
 */
export function mcpCall (tools: ManifestTool[], tool: string, params: Record<string, unknown>): string | null {
  const fits = tools
    .filter(t => t.rest_key === tool && Object.entries(t.fixed_params).every(([k, v]) => JSON.stringify(params[k] ?? null) === JSON.stringify(v)))
    .sort((a, b) => Object.keys(b.fixed_params).length - Object.keys(a.fixed_params).length)
  const agentTool = fits[0]
  if (!agentTool) return null
  const agentName = Object.fromEntries(Object.entries(agentTool.renames).map(([agent, rest]) => [rest, agent]))
  const args = Object.fromEntries(Object.entries(params).filter(([k]) => !(k in agentTool.fixed_params)).map(([k, v]) => [agentName[k] ?? k, v]))
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: agentTool.name, arguments: args } }, null, 2)
}
