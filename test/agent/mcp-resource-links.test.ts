// A job whose rows carry files: the agent's tool result links each file the
// rows name as an MCP resource_link (absolute URI on the name the client used,
// name, mimeType, size), on the finished call and on get_job_results; the URI
// downloads the file with the same key. A job without files links nothing.
import t from 'tap'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { connect, listeningApp } from './_agent.ts'

type Content = CallToolResult['content'][number]
const links = (result: CallToolResult) => result.content.filter((c: Content) => c.type === 'resource_link') as Array<Extract<Content, { type: 'resource_link' }>>

t.test('files named by the rows come back as resource_link items', async t => {
  const { base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  const result = await client.callTool({ name: 'store_files', arguments: { files: 3, size: 1234, name: 'frame.png', content_type: 'image/png', wait_seconds: 30 } }) as CallToolResult
  t.notOk(result.isError, 'the call succeeded')
  const rows = (result.structuredContent as { results: Array<{ url: string }> }).results
  const linked = links(result)
  t.equal(linked.length, 3, 'one link per file')
  t.same(linked.map(l => l.uri), rows.map(r => `${base}${r.url}`), 'absolute URIs of the rows\' download paths, in row order')
  t.same(linked.map(l => l.name), ['frame-0.png', 'frame-1.png', 'frame-2.png'])
  for (const link of linked) t.match(link, { mimeType: 'image/png', size: 1234 })
  t.equal(result.content[0]!.type, 'text', 'the summary text still comes first')

  const download = await fetch(linked[0]!.uri, { headers: { authorization: `Bearer ${user.apiKey}` } })
  t.equal(download.status, 200, 'the URI downloads the file with the same key')
  t.equal((await download.arrayBuffer()).byteLength, 1234)

  // get_job_results links the files of the page it returns, and only those.
  const jobId = (result.structuredContent as { job_id: string }).job_id
  const page = await client.callTool({ name: 'get_job_results', arguments: { job_id: jobId, offset: 1, limit: 1 } }) as CallToolResult
  t.same(links(page).map(l => l.uri), [`${base}${rows[1]!.url}`], 'the page\'s one file')
})

t.test('a job without files has no resource_link', async t => {
  const { base, user } = await listeningApp(t)
  const client = await connect(t, base, user.apiKey)
  const none = await client.callTool({ name: 'store_files', arguments: { files: 0, wait_seconds: 30 } }) as CallToolResult
  t.notOk(none.isError)
  t.same(links(none), [])
  const counted = await client.callTool({ name: 'count_rows', arguments: { limit: 2 } }) as CallToolResult
  t.same(links(counted), [])
})
