// An account's default webhook: where a job's end (and a monitor run's
// `monitor.changed`) is delivered when its start named no `webhook`. Its signing secret is made here (`whsec_…`, the Standard
// Webhooks format), sealed under SECRET_KEY, and shown once: in the answer of
// the PUT that made it. Every PUT makes a new one.
import type { Db } from '../db/database.ts'
import type { Clock } from '../clock.ts'
import type { SecretBox } from '../crypto.ts'
import { badRequest } from '../errors.ts'
import { newSigningSecret } from './signing.ts'
import { DEFAULT_WEBHOOK_EVENTS, type WebhookEvent } from './schemas.ts'

/** Where an event goes and the secret it is signed with (null: unsigned). */
export interface WebhookTarget { url: string, secret: string | null }

export interface AccountWebhookView { url: string, events: WebhookEvent[], created_at: string }

/** A webhook URL the service will send to: http(s) only. Private targets are refused when sent (the network guard). */
export function checkWebhookUrl (raw: string, field: string): void {
  let url: URL
  try { url = new URL(raw) } catch { throw badRequest(`${field} is not a valid URL.`) }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest(`${field} must be http(s).`)
}

export class AccountWebhooks {
  constructor (private readonly deps: { db: Db, clock: Clock, box: SecretBox }) {}

  /** Sets (or replaces) the default; the answer is the only time the secret is shown. */
  async set (accountId: string, input: { url: string, events?: WebhookEvent[] }): Promise<AccountWebhookView & { secret: string }> {
    checkWebhookUrl(input.url, 'url')
    // The events are stored as named (the default written out): a setting keeps what it asked for when events are added.
    const events = [...new Set(input.events ?? DEFAULT_WEBHOOK_EVENTS)]
    const secret = newSigningSecret()
    const now = this.deps.clock()
    const data = { url: input.url, events: JSON.stringify(events), secret: this.deps.box.seal(secret), createdAt: now }
    await this.deps.db.accountWebhook.upsert({ where: { accountId }, create: { accountId, ...data }, update: data })
    return { url: input.url, events, secret, created_at: now.toISOString() }
  }

  async get (accountId: string): Promise<AccountWebhookView | null> {
    const row = await this.deps.db.accountWebhook.findUnique({ where: { accountId } })
    return row ? { url: row.url, events: JSON.parse(row.events) as WebhookEvent[], created_at: row.createdAt.toISOString() } : null
  }

  /** False when there was none. */
  async remove (accountId: string): Promise<boolean> {
    return (await this.deps.db.accountWebhook.deleteMany({ where: { accountId } })).count > 0
  }

  /** The default as a delivery target, with the events it asks for. */
  async target (accountId: string): Promise<(WebhookTarget & { events: WebhookEvent[] }) | null> {
    const row = await this.deps.db.accountWebhook.findUnique({ where: { accountId } })
    return row ? { url: row.url, secret: this.deps.box.open(row.secret), events: JSON.parse(row.events) as WebhookEvent[] } : null
  }
}
