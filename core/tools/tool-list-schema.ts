// The answer of GET /api/tools (tool-list-routes.ts); also the dashboard's type of it.
import { Type } from 'typebox'

export const ToolListAnswer = Type.Object({
  count: Type.Integer(),
  tools: Type.Array(Type.Object({
    key: Type.String({ description: 'The REST tool key (`tool` of POST /api/tool-run).' }),
    title: Type.String(),
    description: Type.String(),
    params: Type.Object({}, { additionalProperties: true, description: 'The JSON Schema of `params`.' }),
    per_run_fields: Type.Array(Type.String(), { description: "Params clamped to the tier's max_records_per_run (and the field's own maximum)." }),
    upload: Type.Union([Type.Object({ param: Type.String(), content_types: Type.Array(Type.String()) }), Type.Null()], { description: 'The param an uploaded file may stand in for (multipart start), or null.' }),
  })),
})
