// Mounts the read endpoints tool plugins declare (e.g. GET /api/search/status),
// served from the plugin's per-app state. The endpoint's `auth` is the route's
// access class, enforced by the auth hook. An endpoint several tools declare
// with one state group (`group`) is mounted once, by the first of them; the
// same path declared otherwise twice stays a boot error (fastify's duplicate route).
import { routeDefaults } from '../route-defaults.ts'
import type { FastifyInstance, FastifySchema } from 'fastify'
import { upstreamConfig } from './upstream-config.ts'

export default async function toolEndpointRoutes (app: FastifyInstance): Promise<void> {
  routeDefaults(app, { tag: 'Service', auth: 'key' })
  const { registry, config, secrets, net } = app.services
  // Paths of endpoints served from a state group: the first enabled tool declaring one serves it for all.
  const grouped = new Map<string, string>()
  for (const tool of registry.enabled()) {
    for (const endpoint of tool.declaration.endpoints ?? []) {
      if (endpoint.group !== undefined) {
        const served = grouped.get(endpoint.path)
        if (served === endpoint.group) continue
        if (served === undefined) grouped.set(endpoint.path, endpoint.group)
      }
      // OpenAPI reads `summary` from the schema (fastify's FastifySchema does not name it).
      const schema: FastifySchema & { summary: string } = { summary: endpoint.summary }
      app.get(endpoint.path, { schema, config: { auth: endpoint.auth, responses: { 200: endpoint.response } } }, async (req) => {
        const answer = await endpoint.handle({ state: tool.state, query: req.query as Record<string, string>, upstream: upstreamConfig(tool, config), proxyConfigured: net.proxies.size > 0, proxies: net.proxies.health() })
        // Shared state (engine health) holds upstream failure reasons, and any key, a guest's included, reads it.
        return secrets.scrubValue(answer)
      })
    }
  }
}
