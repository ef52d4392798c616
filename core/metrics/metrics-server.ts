// METRICS_PORT: a listener of its own that answers `GET /metrics` (and only
// that) without a key, for a scraper on a private network, in an API process
// and in a worker alike (a worker has no other port). Plain node:http: no
// route, hook or rate limit of the API's applies to it.
import { createServer, type Server } from 'node:http'
import { once } from 'node:events'
import type { Logger } from 'pino'
import type { Metrics } from './metrics.ts'

export interface MetricsListener {
  /** The bound port (METRICS_PORT, or the system's choice for 0). */
  port: number
  close (): Promise<void>
}

export async function listenForScrapes (metrics: Metrics, host: string, port: number, logger: Logger): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Only GET /metrics is served on this port.' }))
      return
    }
    metrics.render().then(
      ({ contentType, body }) => { res.writeHead(200, { 'content-type': contentType }).end(body) },
      (err: unknown) => {
        logger.error({ err }, 'rendering the metrics failed')
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'The metrics could not be read; see the server log.' }))
      })
  })
  server.listen(port, host)
  await once(server, 'listening')
  const address = server.address()
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise<void>(resolve => {
      server.close(() => resolve())
      server.closeAllConnections()
    }),
  }
}
