// The webhook endpoints' bodies and answers (TypeBox: validation, types and OpenAPI in one).
import { Type } from 'typebox'

const Events = Type.Array(Type.Union([Type.Literal('done'), Type.Literal('error')]), { minItems: 1, maxItems: 2 })

export const AccountWebhookBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000 }),
  events: Type.Optional(Events),
}, { additionalProperties: false })

const AccountWebhookFields = {
  url: Type.String(),
  events: Events,
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
