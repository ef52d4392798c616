// One JSON-RPC request of the MCP 2026-07-28 revision as a client sends it
// over HTTP: its envelope in params._meta (protocol version, client info, the
// client capabilities naming the tasks extension) and the Mcp-Method /
// Mcp-Name headers. The cluster tasks test and scripts/bench/mcp-tasks.ts
// send it (this module imports no tap, so a benchmark may use it).
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

export function modernMcpRequest (key: string, method: string, params: Record<string, unknown>, client = 'test'): { headers: Record<string, string>, body: Record<string, unknown> } {
  const name = (params.name ?? params.taskId) as string | undefined
  return {
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: client, version: '0' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
        },
      },
    },
  }
}
