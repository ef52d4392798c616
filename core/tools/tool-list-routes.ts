// GET /api/tools: the enabled tools with their REST params schema, for a form
// built from it (the dashboard's playground) or any client that wants the
// params without reading the whole OpenAPI document. Public, like the MCP
// manifest: it lists what the server runs, nothing about an account.
import type { FastifyInstance } from 'fastify'
import { ToolListAnswer } from './tool-list-schema.ts'
import { routeDefaults } from '../route-defaults.ts'

export default async function toolListRoutes (app: FastifyInstance): Promise<void> {
  routeDefaults(app, { tag: 'Tools', auth: 'none' })
  const { registry } = app.services
  // Built once: the registry does not change while the app runs. JSON text
  // drops TypeBox's symbol keys, leaving plain JSON Schema.
  const answer = JSON.parse(JSON.stringify({
    count: registry.enabled().length,
    tools: registry.enabled().map(tool => ({
      key: tool.declaration.key,
      title: tool.declaration.title,
      description: tool.declaration.description,
      params: tool.declaration.input,
      per_run_fields: tool.perRunFields.filter(field => field in ((tool.declaration.input as { properties?: object }).properties ?? {})),
      upload: tool.declaration.upload ? { param: tool.declaration.upload.param, content_types: tool.declaration.upload.contentTypes } : null,
    })),
  })) as unknown
  app.get('/api/tools', { config: { responses: { 200: ToolListAnswer } } }, async () => answer)
}
