// An app for the extraction-pool tests: the test-only `pooled` tool, webemail and
// websearch, private targets allowed, one worker and a short task limit, a pool of its own.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { build, tempDir } from '../helpers/build.ts'

export type Teardown = Parameters<typeof build>[0]

export async function appWithPool (t: Teardown, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const dir = tempDir(t, 'ejs-pool-')
  const toolsConfig = join(dir, 'tools.json')
  writeFileSync(toolsConfig, JSON.stringify({
    tools: [
      { key: 'pooled', plugin: resolve('test/fixtures/plugins/pooled'), enabled: true },
      { key: 'webemail', plugin: resolve('plugins/webemail'), enabled: true, settings: { page_timeout_ms: 60_000, concurrency: 2 } },
      { key: 'websearch', plugin: resolve('plugins/websearch'), enabled: true },
    ],
    retired: [],
  }))
  // Its own pool: these tests read the pool's counts and see its threads start and end with the app.
  return build(t, { env: { TOOLS_CONFIG: toolsConfig, ALLOW_PRIVATE_TARGETS: '1', EXTRACT_WORKERS: '1', EXTRACT_TASK_TIMEOUT_MS: '2000', ...env }, ownExtractionPool: true })
}

/** A local site: path → HTML; anything else 404. */
export async function serveSite (t: Teardown, pages: Record<string, string>): Promise<string> {
  const server: Server = createServer((req, res) => {
    const body = pages[req.url ?? '/']
    if (body === undefined) { res.writeHead(404).end('not found'); return }
    res.writeHead(200, { 'content-type': req.url?.endsWith('.xml') ? 'application/xml' : 'text/html; charset=utf-8' }).end(body)
  })
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>(r => { server.closeAllConnections(); server.close(() => r()) }))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

export async function resultsOf (app: FastifyInstance, apiKey: string, jobId: string): Promise<Array<Record<string, any>>> {
  return (await app.inject({ method: 'GET', url: `/api/tool-run/${jobId}/results`, headers: { 'x-api-key': apiKey } })).json().results
}
