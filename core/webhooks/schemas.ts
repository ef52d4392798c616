// The webhook endpoints' bodies and answers (TypeBox: validation, types and OpenAPI in one).
import { Type, type Static } from 'typebox'

/** One event a webhook asks for: `done` and `error` are a job's end (`error` also a cancel), `changed` a monitor's run that found changes. */
const WebhookEventName = Type.Union([Type.Literal('done'), Type.Literal('error'), Type.Literal('changed')])
export type WebhookEvent = Static<typeof WebhookEventName>

/** What a new setting asks for when it names no events (a start that is not a monitor's run never has a `changed`). */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['done', 'error', 'changed']

/**
 * The events of every webhook setting: a start's or a monitor's `webhook.events`
 * (core/jobs/schemas.ts WebhookSchema) and the account's default. One schema for all.
 */
export const WebhookEvents = Type.Array(WebhookEventName, {
  minItems: 1,
  maxItems: 3,
  default: [...DEFAULT_WEBHOOK_EVENTS],
  description: "Which events are sent: 'done' (the job ended done: job.done), 'error' (ended in error or cancelled: job.error, job.cancelled), " +
    "'changed' (a monitor's run ended done and found rows added, removed or changed: monitor.changed, beside its job.done). " +
    "Default: all three; a setting stored before 'changed' existed without events keeps 'done' and 'error'.",
})

export const AccountWebhookBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000 }),
  events: Type.Optional(WebhookEvents),
}, { additionalProperties: false })

const AccountWebhookFields = {
  url: Type.String(),
  events: WebhookEvents,
  created_at: Type.String({ format: 'date-time' }),
}

export const AccountWebhookAnswer = Type.Object(AccountWebhookFields)

export const AccountWebhookCreated = Type.Object({
  ...AccountWebhookFields,
  secret: Type.String({ description: 'The signing secret (`whsec_…`, Standard Webhooks): shown here only, never again.' }),
})

export const AccountWebhookDeleted = Type.Object({ deleted: Type.Literal(true) })

export const RedeliverBody = Type.Object({
  delivery_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
}, { additionalProperties: false })

export const DeliverySchema = Type.Object({
  id: Type.String({ description: 'The delivery\'s `webhook-id` (the same on every attempt and redelivery).' }),
  event: Type.String(),
  target: Type.String({ description: 'The target\'s origin (its path is often its token).' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('dead')]),
  attempts: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  delivered_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  attempt_log: Type.Array(Type.Object({
    number: Type.Integer(),
    at: Type.String({ format: 'date-time' }),
    http_status: Type.Union([Type.Integer(), Type.Null()]),
    duration_ms: Type.Integer(),
    error: Type.Union([Type.String(), Type.Null()]),
    next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }), { description: 'The latest 50 attempts, newest first.' }),
})

export const JobDeliveriesAnswer = Type.Object({
  job_id: Type.String(),
  deliveries: Type.Array(DeliverySchema, { description: 'The latest 20 deliveries, newest first.' }),
})
