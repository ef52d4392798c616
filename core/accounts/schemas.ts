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

// The answers (OpenAPI documents them from the routes' declarations). The `me`
// answer is also a fastify response schema: a compiled serialiser (this
// endpoint is polled by dashboards and agents).
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
    max_pending_uploads_mb: Type.Integer({ description: 'Uploads the account holds at once (its unfinished jobs\' and those still arriving), in MB.' }),
    max_monitors: Type.Integer({ description: 'Monitors the account keeps (0: none).' }),
    min_monitor_interval_minutes: Type.Integer({ description: 'The shortest interval between two runs of one monitor, in minutes.' }),
  }),
  usage: Type.Union([Type.Object({
    calls_today: Type.Integer(),
    calls_this_month: Type.Integer(),
    records_today: Type.Integer(),
    jobs_running: Type.Integer(),
    jobs_queued: Type.Integer(),
  }), Type.Null()]),
})

const Success = Type.Literal('success')

/** signup: the personal sk- key is in user.api_key. */
export const UserAnswer = Type.Object({ status: Success, user: UserView })

export const LoginAnswer = Type.Object({ status: Success, api_key: Type.String(), user: UserView })

export const RegeneratedKeyAnswer = Type.Object({ status: Success, api_key: Type.String(), detail: Type.String() })

const ScopedTokenView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  tools: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
})

/** The token itself is shown once, here. */
export const MintedTokenAnswer = Type.Object({ status: Success, token: Type.String(), ...ScopedTokenView.properties })

export const TokenListAnswer = Type.Object({ count: Type.Integer(), tokens: Type.Array(ScopedTokenView) })

export const TokenRevokedAnswer = Type.Object({ status: Success, id: Type.String(), revoked: Type.Literal(true) })
