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

// query and prompt: one text or a list of them; the maps schema sets the limits.
const ScrapeText = Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })]))

export const ScrapeBody = Type.Object({
  query: ScrapeText,
  prompt: ScrapeText,
  max_results: Type.Optional(Type.Integer({ minimum: 1 })),
  deep_scan: Type.Optional(Type.Boolean()),
  webhook: Type.Optional(WebhookSchema),
}, { additionalProperties: true })

export const WebsiteEmailBody = Type.Object({
  website: Type.String({ minLength: 1, maxLength: 2000 }),
  max_pages: Type.Optional(Type.Integer({ minimum: 1 })),
  include_phones: Type.Optional(Type.Boolean()),
  include_socials: Type.Optional(Type.Boolean()),
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
