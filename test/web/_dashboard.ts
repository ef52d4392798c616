// Shared by the dashboard browser tests: an app listening on loopback (the
// browser needs a real socket), and a small multi-host website for webemail.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { build, type BuildTestOptions } from '../helpers/build.ts'

interface Teardown { teardown (fn: () => unknown): void }

export async function listeningApp (t: Teardown, options: BuildTestOptions = {}): Promise<{ app: FastifyInstance, base: string }> {
  const app = await build(t, options)
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` }
}

/**
 * Sites shop-1.example … shop-<n>.example, all on one loopback server, each
 * four pages with two addresses; every page answers after `delayMs`, so a
 * crawl takes long enough for its progress to be seen. stall-<n>.example on the
 * same server never answers: a crawl of it runs until it is cancelled.
 */
export async function startShops (t: Teardown, options: { delayMs?: number } = {}) {
  const page = (host: string, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${host}</title></head><body>
<nav><a href="/">Home</a> <a href="/contact">Contact</a> <a href="/about">About</a> <a href="/team">Team</a></nav>${body}</body></html>`
  const server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0]!
    // Held open until the client gives up (a cancel) or the server closes at teardown.
    if (host.startsWith('stall-')) return
    const path = (req.url ?? '/').split('?')[0]!
    const bodies: Record<string, string> = {
      '/': `<h1>${host}</h1><p>Welcome.</p>`,
      '/contact': `<p>Write to info@${host}.</p>`,
      '/about': '<p>About us.</p>',
      '/team': `<p>Sales: <a href="mailto:sales@${host}">sales@${host}</a></p>`,
    }
    const body = bodies[path]
    setTimeout(() => {
      if (body === undefined) { res.writeHead(404, { 'content-type': 'text/html' }); res.end(page(host, 'not here')); return }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(page(host, body))
    }, options.delayMs ?? 150)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.closeAllConnections(); server.close() })
  const port = (server.address() as AddressInfo).port
  return {
    port,
    site: (n: number) => `http://shop-${n}.example:${port}/`,
    stalledSite: (n: number) => `http://stall-${n}.example:${port}/`,
    /** build()'s network option: shop-N.example and stall-N.example resolve to the loopback server, which counts as public. */
    network: {
      lookup: async (name: string) => (/^(shop|stall)-\d+\.example$/.test(name) ? [{ address: '127.0.0.1', family: 4 as const }] : []),
      allowedTargets: [`127.0.0.1:${port}`],
    },
  }
}
