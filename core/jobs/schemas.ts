// Request schemas of the job endpoints.
import { Type } from 'typebox'

export const WebhookSchema = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000 }),
  events: Type.Optional(Type.Array(Type.Union([Type.Literal('done'), Type.Literal('error')]), { minItems: 1, maxItems: 2 })),
  secret: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
}, { additionalProperties: false })

export const ToolRunBody = Type.Object({
  tool: Type.String({ minLength: 1, maxLength: 64 }),
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  webhook: Type.Optional(WebhookSchema),
})

/** The answer of a job start (POST /api/tool-run and asynchronous aliases). */
export const JobStarted = Type.Object({
  job_id: Type.String(),
  status: Type.Literal('running'),
  tool: Type.String(),
  status_url: Type.String(),
  results_url: Type.String(),
  poll_seconds: Type.Integer(),
})

export const JobParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) })
export const ExportParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), fmt: Type.String({ maxLength: 8 }) })
export const ArtifactParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), artifactId: Type.String({ minLength: 1, maxLength: 64 }) })

export const ResultsQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
})

export const ExportQuery = Type.Object({ fields: Type.Optional(Type.String({ maxLength: 2000 })) })
export const ListQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) })
