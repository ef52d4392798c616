// The operator's settings for e-mail verification (tools.config.json, the
// `settings` of the `email` entry), with the defaults listed in README.md.
// A setting of the wrong type is an operator error: it fails the job with a
// message that names the setting instead of being silently ignored.
import { hostname } from 'node:os'
import { ToolConfigError } from '../../core/tools/contract.ts'

export interface EmailSettings {
  /** DNS servers ("ip" or "ip:port"); empty means the system's resolvers. */
  dns_servers: string[]
  dns_timeout_ms: number
  dns_tries: number
  smtp_port: number
  helo_name: string
  /** Reverse-path for MAIL FROM; '' sends the null sender <>. */
  mail_from: string
  connect_timeout_ms: number
  command_timeout_ms: number
  greylist_retry_ms: number
  greylist_retries: number
  per_domain_concurrency: number
  max_parallel_sessions: number
  rcpts_per_session: number
  max_mx_hosts: number
  starttls: boolean
  catch_all_check: boolean
}

export function defaultEmailSettings (): EmailSettings {
  return {
    dns_servers: [],
    dns_timeout_ms: 5000,
    dns_tries: 2,
    smtp_port: 25,
    // Servers compare the HELO name with our reverse DNS; operators should set
    // a name that resolves to the probing host. The OS host name is the best
    // guess available without configuration.
    helo_name: hostname() || 'localhost',
    mail_from: '',
    connect_timeout_ms: 10_000,
    command_timeout_ms: 15_000,
    // Greylisting servers usually ask for a wait of one to five minutes.
    greylist_retry_ms: 60_000,
    greylist_retries: 1,
    per_domain_concurrency: 2,
    max_parallel_sessions: 10,
    rcpts_per_session: 10,
    max_mx_hosts: 2,
    starttls: true,
    catch_all_check: true,
  }
}

export class SettingsError extends ToolConfigError {
  constructor (message: string) { super(`tools.config.json, email settings: ${message}`); this.name = 'SettingsError' }
}

function integer (raw: Record<string, unknown>, key: string, fallback: number, min: number, max: number): number {
  const value = raw[key]
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new SettingsError(`"${key}" must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`)
  }
  return value
}

function text (raw: Record<string, unknown>, key: string, fallback: string): string {
  const value = raw[key]
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'string') throw new SettingsError(`"${key}" must be a string, got ${JSON.stringify(value)}`)
  return value.trim()
}

function flag (raw: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const value = raw[key]
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'boolean') throw new SettingsError(`"${key}" must be true or false, got ${JSON.stringify(value)}`)
  return value
}

function strings (raw: Record<string, unknown>, key: string, fallback: string[]): string[] {
  const value = raw[key]
  if (value === undefined || value === null) return fallback
  if (!Array.isArray(value) || !value.every(v => typeof v === 'string')) throw new SettingsError(`"${key}" must be an array of strings`)
  return value.map(v => v.trim()).filter(Boolean)
}

export function readEmailSettings (raw: Readonly<Record<string, unknown>>): EmailSettings {
  const d = defaultEmailSettings()
  const settings: EmailSettings = {
    dns_servers: strings(raw, 'dns_servers', d.dns_servers),
    dns_timeout_ms: integer(raw, 'dns_timeout_ms', d.dns_timeout_ms, 1, 120_000),
    dns_tries: integer(raw, 'dns_tries', d.dns_tries, 1, 10),
    smtp_port: integer(raw, 'smtp_port', d.smtp_port, 1, 65_535),
    helo_name: text(raw, 'helo_name', d.helo_name),
    mail_from: text(raw, 'mail_from', d.mail_from),
    connect_timeout_ms: integer(raw, 'connect_timeout_ms', d.connect_timeout_ms, 1, 300_000),
    command_timeout_ms: integer(raw, 'command_timeout_ms', d.command_timeout_ms, 1, 600_000),
    greylist_retry_ms: integer(raw, 'greylist_retry_ms', d.greylist_retry_ms, 0, 900_000),
    greylist_retries: integer(raw, 'greylist_retries', d.greylist_retries, 0, 5),
    per_domain_concurrency: integer(raw, 'per_domain_concurrency', d.per_domain_concurrency, 1, 50),
    max_parallel_sessions: integer(raw, 'max_parallel_sessions', d.max_parallel_sessions, 1, 200),
    rcpts_per_session: integer(raw, 'rcpts_per_session', d.rcpts_per_session, 1, 100),
    max_mx_hosts: integer(raw, 'max_mx_hosts', d.max_mx_hosts, 1, 10),
    starttls: flag(raw, 'starttls', d.starttls),
    catch_all_check: flag(raw, 'catch_all_check', d.catch_all_check),
  }
  if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(settings.helo_name)) throw new SettingsError(`"helo_name" must be a host name or an address literal, got ${JSON.stringify(settings.helo_name)}`)
  if (/[\s<>\r\n]/.test(settings.mail_from)) throw new SettingsError(`"mail_from" must be a bare address (or "" for the null sender), got ${JSON.stringify(settings.mail_from)}`)
  return settings
}
