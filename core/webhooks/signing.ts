// The headers that sign one delivery attempt.
//
// Standard Webhooks (https://www.standardwebhooks.com): `webhook-id` (the
// delivery's id, the same on every attempt and redelivery, so a receiver can
// drop what it has seen), `webhook-timestamp` (this attempt's, in seconds) and
// `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
// A receiver checks the signature and refuses a timestamp more than a few
// minutes from its clock, so a captured request cannot be replayed later.
//
// The key: a `whsec_<base64>` secret (what PUT /api/account/webhook makes) is
// the decoded bytes, as the `standardwebhooks` package reads it by default;
// any other secret (a job start's own `webhook.secret`) is its characters as
// bytes, as that package reads it with `{ format: 'raw' }`.
//
// `X-Signature: sha256=<hex HMAC of the body>` with the secret's text as the
// key is kept beside them for existing receivers. It signs neither a time nor
// an id: a captured request verifies for ever (replayable).
import { createHmac, randomBytes } from 'node:crypto'

const STANDARD_PREFIX = 'whsec_'

/** A new signing secret in the Standard Webhooks format: `whsec_` + 32 random bytes in base64. */
export const newSigningSecret = () => `${STANDARD_PREFIX}${randomBytes(32).toString('base64')}`

/** A delivery's `webhook-id`. */
export const newDeliveryId = () => `msg_${randomBytes(16).toString('base64url')}`

function standardKey (secret: string): Buffer {
  // latin1: one byte per UTF-16 unit, as the package's raw format reads a string.
  return secret.startsWith(STANDARD_PREFIX) ? Buffer.from(secret.slice(STANDARD_PREFIX.length), 'base64') : Buffer.from(secret, 'latin1')
}

/** The headers of one attempt: the Standard Webhooks three (the signature only with a secret) and the older X-Signature. */
export function signatureHeaders (delivery: { id: string, body: string, secret: string | null }, at: Date): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000))
  const headers: Record<string, string> = { 'webhook-id': delivery.id, 'webhook-timestamp': timestamp }
  if (delivery.secret === null) return headers
  const signed = createHmac('sha256', standardKey(delivery.secret)).update(`${delivery.id}.${timestamp}.${delivery.body}`).digest('base64')
  headers['webhook-signature'] = `v1,${signed}`
  headers['x-signature'] = `sha256=${createHmac('sha256', delivery.secret).update(delivery.body).digest('hex')}`
  return headers
}
