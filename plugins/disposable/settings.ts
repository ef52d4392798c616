// The operator's settings for the disposable check (tools.config.json, the
// `settings` of the `disposable` entry), with defaults. A setting of the wrong
// type fails the job with a message naming it rather than being ignored.
import { ToolConfigError } from '../../core/tools/contract.ts'

export interface DisposableSettings {
  /** Domains never reported disposable (unless denied), with their subdomains. */
  allow: string[]
  /** Domains always reported disposable, with their subdomains. Wins over everything. */
  deny: string[]
  /** Extra MX host names (exact) of disposable providers. */
  disposable_mx_hosts: string[]
  /** DNS servers ("ip" or "ip:port") for MX lookups; empty means the system's resolvers. */
  dns_servers: string[]
  dns_timeout_ms: number
  dns_tries: number
}

export const DEFAULT_DISPOSABLE_SETTINGS: Readonly<DisposableSettings> = Object.freeze({
  allow: [],
  deny: [],
  disposable_mx_hosts: [],
  dns_servers: [],
  dns_timeout_ms: 5000,
  dns_tries: 2,
})

function fail (message: string): never {
  throw new ToolConfigError(`tools.config.json, disposable settings: ${message}`)
}

function strings (raw: Readonly<Record<string, unknown>>, key: keyof DisposableSettings): string[] {
  const value = raw[key]
  if (value === undefined || value === null) return [...(DEFAULT_DISPOSABLE_SETTINGS[key] as string[])]
  if (!Array.isArray(value) || !value.every(v => typeof v === 'string')) fail(`"${key}" must be an array of strings`)
  return (value as string[]).map(v => v.trim()).filter(Boolean)
}

function integer (raw: Readonly<Record<string, unknown>>, key: 'dns_timeout_ms' | 'dns_tries', min: number, max: number): number {
  const value = raw[key]
  if (value === undefined || value === null) return DEFAULT_DISPOSABLE_SETTINGS[key]
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(`"${key}" must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`)
  return value as number
}

export function readDisposableSettings (raw: Readonly<Record<string, unknown>>): DisposableSettings {
  return {
    allow: strings(raw, 'allow'),
    deny: strings(raw, 'deny'),
    disposable_mx_hosts: strings(raw, 'disposable_mx_hosts'),
    dns_servers: strings(raw, 'dns_servers'),
    dns_timeout_ms: integer(raw, 'dns_timeout_ms', 1, 120_000),
    dns_tries: integer(raw, 'dns_tries', 1, 10),
  }
}
