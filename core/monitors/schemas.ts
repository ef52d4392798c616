// Request and answer schemas of the monitor endpoints (core/monitors/routes.ts).
import { Type } from 'typebox'
import { Nullable } from '../tools/contract.ts'
import { JobStarted, WebhookSchema } from '../jobs/schemas.ts'

export const ScheduleSchema = Type.Union([
  Type.Object({
    cron: Type.String({ minLength: 1, maxLength: 200, description: 'Five fields: minute hour day-of-month month day-of-week ("0 8 * * 1-5").' }),
    tz: Type.String({ minLength: 1, maxLength: 64, default: 'UTC', description: 'An IANA time zone ("Europe/Berlin").' }),
  }, { additionalProperties: false }),
  Type.Object({
    every: Type.String({ minLength: 2, maxLength: 16, description: 'An interval: "30m", "6h", "1d" (ticks at its multiples since 1970-01-01 UTC).' }),
  }, { additionalProperties: false }),
], { description: 'When the monitor runs; no two ticks closer than the plan\'s min_monitor_interval_minutes.' })

export const MonitorBody = Type.Object({
  tool: Type.String({ minLength: 1, maxLength: 64 }),
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  schedule: ScheduleSchema,
  webhook: Type.Optional(WebhookSchema),
  name: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false })

export const MonitorPatch = Type.Object({
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  schedule: Type.Optional(ScheduleSchema),
  webhook: Type.Optional(Nullable(WebhookSchema)),
  name: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false })

export const MonitorParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) })
export const MonitorExportParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), fmt: Type.String({ maxLength: 8 }) })
export const ChangesQuery = Type.Object({
  run: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The run (job id); default: the latest.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'At most this many of each kind (the exports have them all).' })),
})
export const ChangesExportQuery = Type.Object({ run: ChangesQuery.properties.run })

export const MonitorView = Type.Object({
  monitor_id: Type.String(),
  name: Type.String(),
  tool: Type.String(),
  params: Type.Record(Type.String(), Type.Unknown()),
  schedule: Type.Union([Type.Object({ cron: Type.String(), tz: Type.String() }), Type.Object({ every: Type.String() })]),
  webhook: Nullable(Type.Object({ url: Type.String() })),
  status: Type.Union([Type.Literal('active'), Type.Literal('paused')]),
  paused_reason: Nullable(Type.String()),
  failures_in_a_row: Type.Integer(),
  next_run_at: Nullable(Type.String({ format: 'date-time' })),
  last_run_id: Nullable(Type.String()),
  baseline_run_id: Nullable(Type.String({ description: 'The last successful run: the next run is compared with it.' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
})

export const MonitorList = Type.Object({ count: Type.Integer(), monitors: Type.Array(MonitorView) })

// One object, not an intersection: an MCP tool's outputSchema must be an object schema (get_monitor).
export const MonitorDetail = Type.Object({
  ...MonitorView.properties,
  runs: Type.Array(Type.Object({
    tick: Type.String({ format: 'date-time' }),
    trigger: Type.String({ description: 'schedule, missed (run late, once, after the service was down) or now (POST …/run).' }),
    job_id: Nullable(Type.String()),
    skipped: Nullable(Type.String({ description: 'Why the tick ran nothing (out of quota, job caps, the tool turned off).' })),
    status: Type.String(),
    error: Nullable(Type.String()),
    records: Nullable(Type.Integer()),
    changes: Nullable(Type.Record(Type.String(), Type.Unknown())),
    finished_at: Nullable(Type.String({ format: 'date-time' })),
  }), { description: 'The latest ticks, newest first.' }),
})

export const MonitorDeleted = Type.Object({ deleted: Type.Boolean(), monitor_id: Type.String() })

export const MonitorRunStarted = Type.Intersect([JobStarted, Type.Object({ monitor_id: Type.String() })])

export const MonitorChangesSchema = Type.Object({
  monitor_id: Type.String(),
  run: Type.String(),
  status: Type.String(),
  changes: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'The counts (also on the run\'s status record).' })),
  added: Type.Array(Type.Unknown(), { description: '{key, after}: the identity and watched fields of each new row.' }),
  removed: Type.Array(Type.Unknown(), { description: '{key, before}: rows of the last successful run this run no longer has.' }),
  changed: Type.Array(Type.Unknown(), { description: '{key, fields: {<field>: {before, after}}}: each watched field that changed.' }),
  duplicates: Type.Array(Type.Unknown(), { description: '{key, occurrence}: a row whose identity an earlier row of the run had (kept and compared as its own row).' }),
})
