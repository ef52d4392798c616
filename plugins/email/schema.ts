// The input and row schemas of the `email` tool: the one definition that
// validates REST input, feeds the agent schema, and types the code.
import { Defaulted, Nullable, NullableFields, Type, type ListInput, type Static } from '../../core/tools/contract.ts'

const MAX_ADDRESSES = 1000

/**
 * `emails` and the one address of `email` are one list. An address whose
 * check fails is its own row (status unknown, the failed check under
 * `checks`), made by the verifier, which schedules the addresses by domain
 * (per-domain sessions, greylisting retries) rather than one after the other,
 * so the run reads the list with listItems and runs it without eachItem.
 */
export const ADDRESSES_LIST = { param: ['emails', 'email'], noun: 'addresses', max: MAX_ADDRESSES, onItemError: 'row-error' } as const satisfies ListInput<unknown>

export const EmailInput = Type.Object({
  emails: Type.Optional(Type.Array(Type.String({ maxLength: 1024 }), {
    minItems: 1,
    maxItems: MAX_ADDRESSES,
    description: 'Addresses to verify, e.g. ["jane@acme.com", "info@acme.com"].',
  })),
  email: Type.Optional(Type.String({ maxLength: 1024, description: 'One address to verify (same as emails: [email]).' })),
  smtp_check: Defaulted(Type.Boolean({
    description: 'Ask the mail server (RCPT TO, never sending a message). false: syntax and DNS only, which is faster but leaves most results unknown.',
  }), true),
}, {
  // emails or email: the kernel refuses a call with neither (400, uncharged).
  anyOf: [{ required: ['emails'] }, { required: ['email'] }],
})
export type EmailInput = Static<typeof EmailInput>

export const EmailStatus = Type.Union([
  Type.Literal('deliverable'),
  Type.Literal('undeliverable'),
  Type.Literal('risky'),
  Type.Literal('unknown'),
])
export type EmailStatus = Static<typeof EmailStatus>

const SyntaxCheck = Type.Object({
  valid: Type.Boolean(),
  reason: Type.String(),
  ...NullableFields(Type.String(), 'normalized', 'local', 'domain', 'ascii_domain'),
  address_literal: Type.Boolean(),
})

export const DnsCheck = Type.Object({
  /** address_literal: the address names an IP ([192.0.2.1]); no DNS was needed. */
  outcome: Type.Union([
    Type.Literal('mx'), Type.Literal('implicit_mx'), Type.Literal('null_mx'), Type.Literal('nxdomain'),
    Type.Literal('no_mail_host'), Type.Literal('dns_error'), Type.Literal('address_literal'),
  ]),
  mx_records: Type.Array(Type.Object({ host: Type.String(), priority: Type.Integer() })),
  error: Nullable(Type.String()),
})
export type DnsCheck = Static<typeof DnsCheck>

export const MxAttempt = Type.Object({
  host: Type.String(),
  address: Nullable(Type.String()),
  /** connected | refused: … | no_address | dns_error: … | timeout: … | connect: … */
  outcome: Type.String(),
})
export type MxAttempt = Static<typeof MxAttempt>

export const MxCheck = Type.Object({
  /** The host the SMTP session ran on, or null. */
  ...NullableFields(Type.String(), 'host', 'address'),
  attempts: Type.Array(MxAttempt),
})
export type MxCheck = Static<typeof MxCheck>

export const SmtpCheck = Type.Object({
  connected: Type.Boolean(),
  ...NullableFields(Type.String(), 'banner', 'greeting'),
  tls: Type.Boolean(),
  tls_authorized: Nullable(Type.Boolean()),
  tls_error: Nullable(Type.String()),
  /** Which command gave the answer: mail_from or rcpt_to (null when the session failed first). */
  stage: Nullable(Type.String()),
  code: Nullable(Type.Integer()),
  ...NullableFields(Type.String(), 'enhanced_code', 'message'),
  attempts: Type.Integer(),
  error: Nullable(Type.String()),
})
export type SmtpCheck = Static<typeof SmtpCheck>

export const CatchAllCheck = Type.Object({
  /** The random address probed on the same domain. */
  probe: Type.String(),
  /** true: the server accepted it, so it accepts anything; null: no clear answer. */
  accepted: Nullable(Type.Boolean()),
  code: Nullable(Type.Integer()),
  message: Nullable(Type.String()),
})
export type CatchAllCheck = Static<typeof CatchAllCheck>

export const EmailRow = Type.Object({
  email: Type.String(),
  status: EmailStatus,
  reason: Type.String(),
  syntax_valid: Type.Boolean(),
  domain: Nullable(Type.String()),
  mx_found: Type.Boolean(),
  mx_host: Nullable(Type.String()),
  null_mx: Type.Boolean(),
  smtp_connected: Type.Boolean(),
  smtp_code: Nullable(Type.Integer()),
  smtp_message: Nullable(Type.String()),
  catch_all: Nullable(Type.Boolean()),
  role: Type.Boolean(),
  disposable: Type.Boolean(),
  greylisted: Type.Boolean(),
  checks: Type.Object({
    syntax: SyntaxCheck,
    dns: Nullable(DnsCheck),
    mx: Nullable(MxCheck),
    smtp: Nullable(SmtpCheck),
    catch_all: Nullable(CatchAllCheck),
    role: Type.Object({ role: Type.Boolean() }),
    disposable: Type.Object({ disposable: Type.Boolean(), matched: Nullable(Type.String()) }),
  }),
})
export type EmailRow = Static<typeof EmailRow>
