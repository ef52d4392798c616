// Request schemas of the account endpoints (TypeBox: validation and types in one).
import { Type } from 'typebox'

export const SignupBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
})

export const LoginBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
})

export const UpdateBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  current_password: Type.Optional(Type.String({ maxLength: 1024 })),
  new_password: Type.Optional(Type.String({ maxLength: 1024 })),
})

export const MintTokenBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  tools: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 64 }),
  expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
})

export const TokenParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) })

// The `me` answer: a response schema lets fastify serialise it with a compiled
// serialiser (this endpoint is polled by dashboards and agents).
const UserView = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  tier: Type.String(),
  pro_eligible: Type.Boolean(),
  pro_expires_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  api_key: Type.Optional(Type.String()),
})

export const MeResponse = Type.Object({
  user: Type.Union([UserView, Type.Null()]),
  tier: Type.String(),
  limits: Type.Object({
    max_records_per_run: Type.Integer(),
    calls_per_day: Type.Integer(),
    calls_per_month: Type.Integer(),
    retention_hours: Type.Integer(),
    rate_limit_per_minute: Type.Integer(),
    max_running_jobs: Type.Integer(),
    max_queued_jobs: Type.Integer(),
    max_file_mb: Type.Integer({ description: 'Largest file a job may store or take as an upload, in MB.' }),
    max_job_files_mb: Type.Integer({ description: 'All the files one job stores together, in MB.' }),
  }),
  usage: Type.Union([Type.Object({
    calls_today: Type.Integer(),
    calls_this_month: Type.Integer(),
    records_today: Type.Integer(),
    jobs_running: Type.Integer(),
    jobs_queued: Type.Integer(),
  }), Type.Null()]),
})
