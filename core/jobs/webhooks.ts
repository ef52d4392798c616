// Job webhooks: a JSON POST of the final status record, signed with the
// caller's secret (`X-Signature: sha256=<hex hmac of the body>`), retried with
// exponential backoff, through the guarded client (no private targets unless allowed).
// The body is scrubbed of credentials; logs name the target's origin only,
// because a webhook URL's path or query is often its own token.
import { createHmac } from 'node:crypto'
import type { Logger } from 'pino'
import { originOf, urlsAsOrigins, type SecretScrubber } from '../secrets/secret-scrubber.ts'
import type { NetFactory } from './net-factory.ts'
import type { JobStatusRecord } from './job-view.ts'

export interface WebhookSpec { url: string, events?: Array<'done' | 'error'>, secret?: string }

const signWebhookBody = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`

export class WebhookSender {
  private readonly pending = new Set<Promise<void>>()
  private readonly controller = new AbortController()

  constructor (private readonly net: NetFactory, private readonly logger: Logger, private readonly secrets: SecretScrubber, private readonly options: { attempts: number, baseDelayMs: number }) {}

  deliver (job: { id: string, webhook: string | null }, record: JobStatusRecord): void {
    if (!job.webhook) return
    const spec = JSON.parse(job.webhook) as WebhookSpec
    const events = spec.events ?? ['done', 'error']
    // A cancelled job is not done: it goes to those who asked for endings in error.
    if (!events.includes(record.status === 'done' ? 'done' : 'error')) return
    const attempt = this.send(spec, record).finally(() => this.pending.delete(attempt))
    this.pending.add(attempt)
  }

  private async send (spec: WebhookSpec, record: JobStatusRecord): Promise<void> {
    const body = JSON.stringify({ event: `job.${record.status}`, job: this.secrets.scrubValue(record) })
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'extraction-jobs-webhook/1.0' }
    if (spec.secret) headers['x-signature'] = signWebhookBody(spec.secret, body)
    const http = this.net.http(this.controller.signal)
    try {
      await this.attempts(http, spec, record, body, headers)
    } finally {
      await http.close().catch(() => {})
    }
  }

  private async attempts (http: ReturnType<NetFactory['http']>, spec: WebhookSpec, record: JobStatusRecord, body: string, headers: Record<string, string>): Promise<void> {
    for (let i = 0; i < this.options.attempts; i++) {
      if (this.controller.signal.aborted) return
      try {
        const res = await http.fetch(spec.url, { method: 'POST', headers, body, timeoutMs: 10_000, maxRedirects: 0 })
        await res.body?.cancel()
        if (res.status >= 200 && res.status < 300) return
        this.logger.warn({ jobId: record.job_id, webhook: originOf(spec.url), status: res.status, attempt: i + 1 }, 'webhook answered with an error')
      } catch (err) {
        // The client's messages name the full URL; the target is logged as its origin only.
        const reason = this.secrets.scrub(urlsAsOrigins(String((err as Error)?.message ?? err)))
        this.logger.warn({ jobId: record.job_id, webhook: originOf(spec.url), attempt: i + 1, err: reason }, 'webhook delivery failed')
      }
      if (i < this.options.attempts - 1) await sleep(this.options.baseDelayMs * 2 ** i, this.controller.signal)
    }
  }

  async close (): Promise<void> {
    this.controller.abort()
    await Promise.allSettled([...this.pending])
  }
}

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>(resolve => {
  // Aborted already (a close during the attempt): no 'abort' event will come, and
  // close() would wait the whole back-off for this delivery.
  if (signal.aborted) return resolve()
  const t = setTimeout(resolve, ms)
  signal.addEventListener('abort', () => { clearTimeout(t); resolve() }, { once: true })
})
