// The operator's settings for e-mail verification (tools.config.json, the
// `settings` of the `email` entry): one TypeBox schema whose defaults are the
// documented ones (README.md). The kernel fills the defaults in and validates
// at boot, so a setting of the wrong type or range stops the boot naming it;
// runs read the result as ctx.settings.
import { hostname } from 'node:os'
import { Type, type Static } from '../../core/tools/contract.ts'

const integer = (min: number, max: number, fallback: number, description: string) =>
  Type.Integer({ minimum: min, maximum: max, default: fallback, description })

export const EmailSettingsSchema = Type.Object({
  dns_servers: Type.Array(Type.String({ pattern: '^\\S+$' }), { default: [], description: 'DNS servers ("ip" or "ip:port"); empty means the system\'s resolvers.' }),
  dns_timeout_ms: integer(1, 120_000, 5000, 'Timeout of one DNS query.'),
  dns_tries: integer(1, 10, 2, 'Tries per DNS query.'),
  smtp_port: integer(1, 65_535, 25, 'Port of the SMTP probe.'),
  // Servers compare the HELO name with our reverse DNS; operators should set a
  // name that resolves to the probing host. Empty: the OS host name, the best
  // guess available without configuration (emailSettingsForRun).
  helo_name: Type.String({ pattern: '^(?:[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])?$', default: '', description: 'EHLO name: a host name or an address literal; empty means the OS host name.' }),
  mail_from: Type.String({ pattern: '^[^\\s<>]*$', default: '', description: 'Reverse-path for MAIL FROM: a bare address; empty sends the null sender <>.' }),
  connect_timeout_ms: integer(1, 300_000, 10_000, 'SMTP connect timeout.'),
  command_timeout_ms: integer(1, 600_000, 15_000, 'Timeout of one SMTP command.'),
  // Greylisting servers usually ask for a wait of one to five minutes.
  greylist_retry_ms: integer(0, 900_000, 60_000, 'Wait before retrying a greylisted address.'),
  greylist_retries: integer(0, 5, 1, 'Retries of a greylisted address.'),
  per_domain_concurrency: integer(1, 50, 2, 'SMTP sessions at once per domain.'),
  concurrency: integer(1, 200, 10, 'SMTP sessions at once in one job.'),
  rcpts_per_session: integer(1, 100, 10, 'RCPT TO commands per session.'),
  max_mx_hosts: integer(1, 10, 2, 'MX hosts tried per domain.'),
  starttls: Type.Boolean({ default: true, description: 'Upgrade to TLS when the server offers STARTTLS.' }),
  catch_all_check: Type.Boolean({ default: true, description: 'Probe a random address to detect catch-all servers.' }),
}, { additionalProperties: false })

export type EmailSettings = Static<typeof EmailSettingsSchema>

/** The settings a run uses: an empty helo_name becomes the OS host name. */
export function emailSettingsForRun (settings: Readonly<EmailSettings>): EmailSettings {
  return { ...settings, dns_servers: [...settings.dns_servers], helo_name: settings.helo_name || hostname() || 'localhost' }
}
