// Mounts the alias endpoints tool plugins declare (ToolAlias in
// core/tools/contract.ts): "start this tool's job from this body shape",
// answering like POST /api/tool-run (202), or, for a synchronous alias, waiting
// up to SYNC_WAIT_SECONDS and answering the plugin's shaping of the rows.
// The kernel names no tool here; which paths exist is the enabled plugins' say.
import { routeDefaults } from '../route-defaults.ts'
import type { FastifyInstance } from 'fastify'
import type { RouteResponses } from '../fastify-types.ts'
import { Type, type TSchema } from 'typebox'
import { requireAccount } from '../auth/guards.ts'
import { badRequest, timedOut } from '../errors.ts'
import { InputError, type ToolAlias } from '../tools/contract.ts'
import { idempotencyKey, markReplay } from './routes.ts'
import { JobStarted, JobStatusSchema, WebhookSchema } from './schemas.ts'
import type { WebhookSpec } from '../webhooks/webhook-deliveries.ts'

/** The alias body as validated: the plugin's schema, plus `webhook` when it accepts one. */
function aliasBody (alias: ToolAlias): TSchema {
  if (!alias.webhook) return alias.body
  const body = alias.body as TSchema & { properties?: Record<string, TSchema> }
  const { properties = {}, ...options } = body
  return Type.Object({ ...properties, webhook: Type.Optional(WebhookSchema) }, options)
}

/** The job's outcome fields a synchronous alias adds to its answer (as the status record has them). */
const SyncOutcome = {
  job_id: Type.String(),
  status: JobStatusSchema.properties.status,
  error: JobStatusSchema.properties.error,
  blocked: Type.Boolean(),
  refunded: Type.Boolean(),
}

export default async function aliasRoutes (app: FastifyInstance): Promise<void> {
  routeDefaults(app, { tag: 'Jobs', auth: 'account' })
  const { registry, jobs, config } = app.services
  const syncWindowMs = config.syncWaitSeconds * 1000

  for (const tool of registry.enabled()) {
    const key = tool.declaration.key
    for (const alias of tool.declaration.aliases ?? []) {
      const sync = alias.sync
      const responses: RouteResponses = sync
        ? { 200: Type.Object({ ...(sync.result as TSchema & { properties?: Record<string, TSchema> }).properties, ...SyncOutcome }), 408: Type.Object({ detail: Type.String(), job_id: Type.String(), status_url: Type.String(), results_url: Type.String() }) }
        : { 202: JobStarted }
      app.route({
        method: alias.method,
        url: alias.path,
        schema: { summary: alias.summary, ...(alias.description ? { description: alias.description } : {}), body: aliasBody(alias) },
        config: { auth: 'account', responses, tag: 'Jobs' },
        handler: async (req, reply) => {
          const caller = requireAccount(req.principal, { scoped: true })
          const { webhook, ...fields } = req.body as Record<string, unknown>
          let params: Record<string, unknown>
          try {
            params = alias.params ? alias.params(alias.webhook ? fields : req.body as never) : (alias.webhook ? fields : req.body as Record<string, unknown>)
          } catch (err) {
            if (err instanceof InputError) throw badRequest(err.message)
            throw err
          }
          const { replayed, ...started } = await jobs.start({
            caller, tool: key, params, idempotencyKey: idempotencyKey(req.headers),
            webhook: alias.webhook ? webhook as WebhookSpec | undefined : undefined,
            resultsPath: alias.jobLinks ?? 'tool-run',
            // The alias's body is the tool's params (as given, or as its `params` returns them): a refusal names the body.
            paramsAt: 'body',
          })
          if (!sync) {
            markReplay(reply, replayed, 202)
            return started
          }
          markReplay(reply, replayed)
          const final = await jobs.waitFor(caller, started.job_id, syncWindowMs)
          if (!final) {
            throw timedOut(`The job did not finish within ${syncWindowMs / 1000} s; it goes on as job ${started.job_id}: poll GET ${started.status_url}.`, { job_id: started.job_id, status_url: started.status_url, results_url: started.results_url })
          }
          // Done or failed, one shape: the plugin's answer plus the job's outcome fields.
          const outcome = { job_id: started.job_id, status: final.status, error: final.error, blocked: final.blocked, refunded: final.refunded }
          const page = final.has_results ? await jobs.results(caller, started.job_id, 0, sync.rows ?? 1) : null
          return { ...sync.answer((page?.results ?? []) as Array<Record<string, unknown>>, req.body as never), ...outcome }
        },
      })
    }
  }
}
