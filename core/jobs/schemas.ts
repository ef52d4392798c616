// Request and answer schemas of the job endpoints (the status record is also
// what the agent endpoint's get_job_status returns).
import { Type } from 'typebox'
import { Nullable } from '../tools/contract.ts'
import { WebhookEvents } from '../webhooks/schemas.ts'

export const WebhookSchema = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000 }),
  events: Type.Optional(WebhookEvents),
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

export const ExportParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), fmt: Type.String({ maxLength: 8 }) })

export const ResultsQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
})

export const ExportQuery = Type.Object({
  fields: Type.Optional(Type.String({ maxLength: 2000, description: 'The columns to export, comma-separated, in this order (default: every column the rows have).' })),
  explode: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A list column (e.g. `emails`): one row per item of it, the row\'s other fields repeated; a row with an empty list is kept once with it empty.' })),
})
export const ListQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) })

/** The job status record (GET status, cancel, the agent's get_job_status). */
export const JobStatusSchema = Type.Object({
  job_id: Type.String(),
  tool: Type.String({ description: 'REST tool key.' }),
  status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('error'), Type.Literal('cancelled')], { description: "'cancelled': stopped by DELETE, refunded, the rows written before the cancel kept (its error reads 'cancelled')." }),
  records: Type.Integer({ description: 'Rows produced so far.' }),
  stage: Type.String({ description: 'Human-readable progress.' }),
  has_results: Type.Boolean(),
  done: Type.Boolean(),
  error: Nullable(Type.String()),
  warning: Nullable(Type.String({ description: 'Why an empty or short run was empty.' })),
  blocked: Type.Boolean({ description: 'The source refused the request.' }),
  refunded: Type.Boolean({ description: 'The call was given back to the quota.' }),
  results_url: Type.String(),
  status_url: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  started_at: Nullable(Type.String({ format: 'date-time' })),
  finished_at: Nullable(Type.String({ format: 'date-time' })),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  summary: Nullable(Type.Record(Type.String(), Type.Unknown())),
  monitor: Type.Optional(Type.Object({
    monitor_id: Type.String(),
    changes: Nullable(Type.Object({
      added: Type.Integer(), removed: Type.Integer(), changed: Type.Integer(),
      duplicates: Type.Integer({ description: 'Rows whose identity an earlier row of the run already had (each is kept and compared as its own row).' }),
      first_run: Type.Boolean({ description: 'No earlier successful run to compare with: every row is added.' }),
    }, { description: 'Against the monitor\'s last successful run; null until compared, or when the run failed.' })),
  }, { description: 'Present when the job is a run of a monitor (GET /api/monitors/<id>/changes?run=<job>).' })),
})

/** A page of a job's rows (GET …/results); OpenAPI narrows `results` to the enabled tools' rows. */
export const JobResultsSchema = Type.Object({
  job_id: Type.String(),
  tool: Type.String(),
  status: Type.String(),
  count: Type.Integer(),
  total: Type.Integer(),
  offset: Type.Integer(),
  limit: Type.Integer(),
  results: Type.Array(Type.Record(Type.String(), Type.Unknown())),
})

/** GET /api/jobs: the caller's jobs, newest first. */
export const JobListSchema = Type.Object({
  count: Type.Integer(),
  jobs: Type.Array(Type.Object({
    job_id: Type.String(),
    tool: Type.String(),
    status: JobStatusSchema.properties.status,
    input: Type.String({ description: 'The input in short: its text params (a list as its first item and how many more, an upload as its file name), at most two, cut to 120 characters. The whole input: GET /api/jobs/<id>/input.' }),
    records: Type.Integer(),
    stage: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    finished_at: Nullable(Type.String({ format: 'date-time' })),
    expires_at: Nullable(Type.String({ format: 'date-time' })),
    status_url: Type.String(),
    results_url: Type.String(),
  })),
})

/** GET /api/jobs/<id>/input: the params a job was started with, as stored (defaults filled, per-run fields clamped). */
export const JobInputSchema = Type.Object({
  job_id: Type.String(),
  tool: Type.String(),
  params: Type.Record(Type.String(), Type.Unknown()),
  upload: Type.Boolean({ description: 'The job was started with an uploaded file (its param reads upload://<name>); a rerun needs the file again.' }),
})
