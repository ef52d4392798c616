// A small round-robin HTTP proxy for `npm run cluster` (and the cluster
// benchmark): each request goes to the next API process in turn, WebSocket
// upgrades included (the upgraded connection stays with the process that took
// it), with the client's address appended to X-Forwarded-For so the API
// processes (TRUST_PROXY=1) rate-limit the client, not the proxy. A process that
// refuses the connection is skipped for that request. Not a production load
// balancer: put nginx/HAProxy/a cloud LB there, with the same two duties.
import { createServer, request } from 'node:http'
import { connect } from 'node:net'

/** Starts the proxy on `port` (0: any) in front of `backends` ([{host, port}]); resolves with {server, port, close}. */
export async function startRoundRobinProxy ({ port, host = '127.0.0.1', backends }) {
  let next = 0
  const pick = () => backends[next++ % backends.length]
  const forwardedFor = (req) => [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ')

  const server = createServer((req, res) => {
    const attempt = (triesLeft) => {
      const backend = pick()
      const upstream = request({ host: backend.host, port: backend.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': forwardedFor(req) } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders)
        answer.pipe(res)
      })
      upstream.on('error', (err) => {
        // Connection refused before anything was sent: the next process takes it.
        if (err.code === 'ECONNREFUSED' && triesLeft > 1 && !res.headersSent) return attempt(triesLeft - 1)
        if (!res.headersSent) { res.writeHead(502, { 'content-type': 'application/json' }); res.end(JSON.stringify({ detail: 'No API process answered.' })) } else res.destroy()
      })
      req.pipe(upstream)
    }
    attempt(backends.length)
  })

  // WebSocket (and any other) upgrade: replay the request head to a backend, then splice the two sockets.
  server.on('upgrade', (req, socket, head) => {
    const backend = pick()
    const upstream = connect(backend.port, backend.host, () => {
      const headers = { ...req.headers, 'x-forwarded-for': forwardedFor(req) }
      const lines = [`${req.method} ${req.url} HTTP/1.1`, ...Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map(value => `${k}: ${value}`)), '', '']
      upstream.write(lines.join('\r\n'))
      if (head?.length) upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })

  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(port, host, resolve) })
  return {
    server,
    port: server.address().port,
    close: () => new Promise(resolve => { server.closeAllConnections?.(); server.close(() => resolve()) }),
  }
}
