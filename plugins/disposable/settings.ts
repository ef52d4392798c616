// The operator's settings for the disposable check (tools.config.json, the
// `settings` of the `disposable` entry): one TypeBox schema with the defaults.
// The kernel fills the defaults in and validates at boot, so a setting of the
// wrong type stops the boot naming it; runs read it as ctx.settings.
import { Type } from '../../core/tools/contract.ts'

/** A domain or host name as an operator writes it: one word, no blanks. */
const names = (description: string) => Type.Array(Type.String({ pattern: '^\\S+$' }), { default: [], description })

export const DisposableSettingsSchema = Type.Object({
  allow: names('Domains never reported disposable (unless denied), with their subdomains.'),
  deny: names('Domains always reported disposable, with their subdomains. Wins over everything.'),
  disposable_mx_hosts: names('Extra MX host names (exact) of disposable providers.'),
  dns_servers: names('DNS servers ("ip" or "ip:port") for MX lookups; empty means the system\'s resolvers.'),
  dns_timeout_ms: Type.Integer({ minimum: 1, maximum: 120_000, default: 5000, description: 'Timeout of one MX query.' }),
  dns_tries: Type.Integer({ minimum: 1, maximum: 10, default: 2, description: 'Tries per MX query.' }),
}, { additionalProperties: false })

