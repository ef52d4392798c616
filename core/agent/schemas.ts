// Schemas of what the agent endpoint answers beyond the tools' own rows: the
// job envelope a job tool returns, the helper tools' arguments and results,
// (the job status record they share with REST is core/jobs/schemas.ts).
import { Type, type Static, type TSchema } from 'typebox'
import { Nullable } from '../tools/contract.ts'
import { JobStatusSchema, WebhookSchema } from '../jobs/schemas.ts'
import { ScheduleSchema } from '../monitors/schemas.ts'

export { JobStatusSchema }

export const WAIT_SECONDS_DEFAULT = 25
export const WAIT_SECONDS_MAX = 60
/** Rows a job tool call returns inline; the rest are paged with get_job_results. */
export const INLINE_ROWS = 100

/**
 * Bytes of rows (their JSON) one answer carries at most, so a result fits a
 * model's context; the rest is a get_job_results page or the resource link away.
 */
export const MAX_RESULT_BYTES_DEFAULT = 50_000
export const MAX_RESULT_BYTES_MIN = 1_000
export const MAX_RESULT_BYTES_MAX = 1_000_000

export const MaxResultBytes = Type.Integer({
  minimum: MAX_RESULT_BYTES_MIN,
  maximum: MAX_RESULT_BYTES_MAX,
  default: MAX_RESULT_BYTES_DEFAULT,
  description: `Most bytes of rows (as JSON) the answer carries (default ${MAX_RESULT_BYTES_DEFAULT}, clamped to ${MAX_RESULT_BYTES_MIN}–${MAX_RESULT_BYTES_MAX}). ` +
    'Rows past it are left for get_job_results (offset = count) or the resource link to the rest.',
})

export const WaitSeconds = (fallback: number) => Type.Integer({
  minimum: 0,
  maximum: WAIT_SECONDS_MAX,
  default: fallback,
  description: `Seconds to wait for the job to finish before answering (default ${fallback}, at most ${WAIT_SECONDS_MAX}). ` +
    'If the job is still running then, the answer carries its job_id: poll get_job_status, then read get_job_results.',
})

/** What a job tool call returns as structuredContent, wrapping the tool's row schema. */
export const JobEnvelope = (row: TSchema) => Type.Object({
  job_id: Type.String(),
  tool: Type.String({ description: 'REST tool key.' }),
  status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('error'), Type.Literal('cancelled')]),
  stage: Type.String(),
  records: Type.Integer({ description: 'Rows the job produced in all.' }),
  count: Type.Integer({ description: 'Rows included in results.' }),
  has_more: Type.Boolean({ description: 'More rows than shown: page on with get_job_results (offset = count).' }),
  results: Type.Array(row),
  error: Nullable(Type.String()),
  warning: Nullable(Type.String()),
  blocked: Type.Boolean(),
  refunded: Type.Boolean(),
  summary: Nullable(Type.Record(Type.String(), Type.Unknown()), { description: 'What the job found beside its rows (e.g. a web search\'s related_searches and answer_box); null when the tool writes none or the job is still running.' }),
  next: Type.String({ description: 'What to call next.' }),
})

/** MCP tool annotations: hints a client may show or act on (readOnlyHint always; the others only when true). */
export const ToolAnnotationsSchema = Type.Object({
  readOnlyHint: Type.Boolean(),
  openWorldHint: Type.Optional(Type.Literal(true)),
  idempotentHint: Type.Optional(Type.Literal(true)),
  destructiveHint: Type.Optional(Type.Literal(true)),
}, { description: 'The MCP tool annotations tools/list serves.' })
export type ToolAnnotations = Static<typeof ToolAnnotationsSchema>

export const FindToolArgs = Type.Object({
  task: Type.String({ minLength: 1, maxLength: 2000, description: 'The job in plain English, e.g. "find the contact e-mails of acme.com".' }),
  limit: Type.Integer({ minimum: 1, maximum: 10, default: 3, description: 'How many tools to suggest (default 3).' }),
}, { additionalProperties: false })

export const FindToolResult = Type.Object({
  task: Type.String(),
  tools: Type.Array(Type.Object({
    name: Type.String({ description: 'Agent tool name to call.' }),
    title: Type.String(),
    rest_key: Nullable(Type.String(), { description: 'The REST tool key; null for a helper (jobs, results, usage) that is no tool.' }),
    score: Type.Number(),
    description: Type.String(),
    example_task: Type.String(),
    example_arguments: Type.Record(Type.String(), Type.Unknown()),
  })),
})

export const JobStatusArgs = Type.Object({
  job_id: Type.String({ minLength: 1, maxLength: 64 }),
  wait_seconds: WaitSeconds(0),
}, { additionalProperties: false })

export const JobResultsArgs = Type.Object({
  job_id: Type.String({ minLength: 1, maxLength: 64 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  max_result_bytes: MaxResultBytes,
}, { additionalProperties: false })

export const JobResultsResult = Type.Object({
  job_id: Type.String(),
  tool: Type.String(),
  status: Type.String(),
  count: Type.Integer({ description: 'Rows on this page.' }),
  total: Type.Integer({ description: 'Rows the job produced in all.' }),
  offset: Type.Integer(),
  limit: Type.Integer(),
  results: Type.Array(Type.Record(Type.String(), Type.Unknown())),
})

// The monitor tools (core/monitors): the same operations as /api/monitors, as the caller.
const MonitorId = Type.String({ minLength: 1, maxLength: 64, description: 'The monitor\'s id (monitor_id of create_monitor or list_monitors).' })
export const CreateMonitorArgs = Type.Object({
  tool: Type.String({ minLength: 1, maxLength: 64, description: 'The tool to run: its agent tool name (then params are that tool\'s arguments) or its REST key (then REST params).' }),
  params: Type.Record(Type.String(), Type.Unknown(), { default: {}, description: 'The tool\'s arguments, as for a call of it (without wait_seconds).' }),
  schedule: ScheduleSchema,
  webhook: Type.Optional(WebhookSchema),
  name: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false })

export const MonitorIdArgs = Type.Object({ monitor_id: MonitorId }, { additionalProperties: false })

export const UpdateMonitorArgs = Type.Object({
  monitor_id: MonitorId,
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'New params, as get_monitor shows them (REST names); replace the old ones whole.' })),
  schedule: Type.Optional(ScheduleSchema),
  name: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false })

export const RunMonitorArgs = Type.Object({ monitor_id: MonitorId, wait_seconds: WaitSeconds(WAIT_SECONDS_DEFAULT), max_result_bytes: MaxResultBytes }, { additionalProperties: false })

export const MonitorChangesArgs = Type.Object({
  monitor_id: MonitorId,
  run: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The run (job id); default: the latest.' })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'At most this many of each kind (added, removed, changed, duplicates).' }),
}, { additionalProperties: false })
