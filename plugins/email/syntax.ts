// Practical RFC 5321/5322 address syntax, with the RFC 6531/6532 extensions
// (UTF-8 local parts, IDN domains). Pure: a string in, a verdict out.
//
// "Practical" means: the forms an SMTP server can be handed in RCPT TO. So
// dot-atom and quoted-string local parts are accepted, while RFC 5322 comments,
// folding white space and obsolete forms ("a".b@x) are not, because RFC 5321's
// Mailbox grammar (section 4.1.2) has no place for them.
import { domainToASCII, domainToUnicode } from 'node:url'
import { isIPv4, isIPv6 } from 'node:net'

export interface SyntaxResult {
  valid: boolean
  /** 'ok', or a short code saying what is wrong (see SyntaxReason). */
  reason: SyntaxReason
  /** `local@ascii_domain`: the form RCPT TO is given. Null when invalid. */
  normalized: string | null
  local: string | null
  /** The domain in Unicode, lower-cased (an address literal as written). */
  domain: string | null
  /** The domain as ASCII (punycode A-labels), or the address literal. */
  ascii_domain: string | null
  /** The domain is an address literal such as [192.0.2.1] or [IPv6:2001:db8::1]. */
  address_literal: boolean
  /** The IP inside an address literal, or null. */
  literal_ip: string | null
}

type SyntaxReason =
  | 'ok'
  | 'empty'
  | 'too_long'
  | 'no_at_sign'
  | 'local_empty'
  | 'local_too_long'
  | 'local_dot_position'
  | 'local_consecutive_dots'
  | 'local_invalid_character'
  | 'quoted_local_invalid'
  | 'domain_empty'
  | 'domain_too_long'
  | 'domain_label_empty'
  | 'domain_label_too_long'
  | 'domain_invalid_character'
  | 'domain_hyphen_position'
  | 'domain_single_label'
  | 'domain_numeric_tld'
  | 'idn_invalid'
  | 'address_literal_invalid'
  | 'address_literal_unsupported'

// RFC 5321 section 4.5.3.1.1 (local part), 4.5.3.1.3 (path 256 octets, so 254
// for the address without angle brackets: RFC 3696 erratum 1690) and RFC 1035
// (255 octets on the wire = 253 characters in text form).
const MAX_LOCAL_OCTETS = 64
const MAX_ADDRESS_OCTETS = 254
const MAX_DOMAIN_CHARS = 253
const MAX_LABEL_CHARS = 63
// Refuse to look at absurdly long input before doing any work on it.
const MAX_INPUT_CHARS = 1024

// RFC 5322 section 3.2.3 atext, plus RFC 6532 section 3.2 UTF8-non-ascii.
const ATEXT_RE = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\u{10FFFF}-]+$/u
const LDH_LABEL_RE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/

function invalid (reason: SyntaxReason, local: string | null = null, domain: string | null = null): SyntaxResult {
  return { valid: false, reason, normalized: null, local, domain, ascii_domain: null, address_literal: false, literal_ip: null }
}

const octets = (s: string) => Buffer.byteLength(s, 'utf8')

/**
 * Reads a quoted-string local part starting at index 0 (which is '"').
 * Returns the index just past the closing quote, or -1 when malformed.
 * qtext (RFC 5322 3.2.4) is printable ASCII except '"' and '\'; a space is
 * allowed; quoted-pair is '\' followed by a printable character or space;
 * RFC 6532 adds UTF-8 to both.
 */
function scanQuotedString (s: string): number {
  let i = 1
  while (i < s.length) {
    const c = s.charCodeAt(i)
    if (c === 0x22) return i + 1
    if (c === 0x5c) {
      const next = s.charCodeAt(i + 1)
      if (Number.isNaN(next) || next < 0x20 || next === 0x7f) return -1
      i += 2
      continue
    }
    if (c < 0x20 || c === 0x7f) return -1
    i++
  }
  return -1
}

function checkDotAtomLocal (local: string): SyntaxReason {
  if (local.startsWith('.') || local.endsWith('.')) return 'local_dot_position'
  if (local.includes('..')) return 'local_consecutive_dots'
  for (const atom of local.split('.')) {
    if (!ATEXT_RE.test(atom)) return 'local_invalid_character'
  }
  return 'ok'
}

interface DomainVerdict { reason: SyntaxReason, domain: string, ascii: string, literal: boolean, ip: string | null }

function checkAddressLiteral (raw: string): DomainVerdict {
  // RFC 5321 section 4.1.3: [IPv4], [IPv6:...], or a General-address-literal
  // with a registered tag. No other tag is registered, so those are refused.
  const inner = raw.slice(1, -1)
  const v6 = /^IPv6:(.*)$/i.exec(inner)
  if (v6) {
    if (!isIPv6(v6[1])) return { reason: 'address_literal_invalid', domain: raw, ascii: raw, literal: true, ip: null }
    const literal = `[IPv6:${v6[1].toLowerCase()}]`
    return { reason: 'ok', domain: literal, ascii: literal, literal: true, ip: v6[1].toLowerCase() }
  }
  if (isIPv4(inner)) return { reason: 'ok', domain: raw, ascii: raw, literal: true, ip: inner }
  if (/^[A-Za-z0-9-]*[A-Za-z0-9]:/.test(inner)) return { reason: 'address_literal_unsupported', domain: raw, ascii: raw, literal: true, ip: null }
  return { reason: 'address_literal_invalid', domain: raw, ascii: raw, literal: true, ip: null }
}

function checkHostname (raw: string): DomainVerdict {
  const fail = (reason: SyntaxReason): DomainVerdict => ({ reason, domain: raw, ascii: '', literal: false, ip: null })
  if (raw === '') return fail('domain_empty')
  if (/[\s\x00-\x1f\x7f]/.test(raw)) return fail('domain_invalid_character')
  // Empty labels (a leading, trailing or doubled dot): RFC 5321's Domain has none.
  // Checked before conversion because UTS 46 would quietly accept a trailing dot.
  if (raw.split(/[.\u3002\uff0e\uff61]/).some(label => label === '')) return fail('domain_label_empty')
  // RFC 3696 section 2: top-level domain names are never all-numeric. This also
  // catches an IP written without brackets ("user@192.0.2.1"). Checked on the
  // raw name because domainToASCII treats such names as (failed) IPv4 hosts.
  if (/^[0-9]+$/.test(raw.split('.').pop()!)) return fail('domain_numeric_tld')
  const nonAscii = /[^\x00-\x7f]/.test(raw)
  const ascii = domainToASCII(raw)
  if (ascii === '') return fail(nonAscii || /(^|\.)xn--/i.test(raw) ? 'idn_invalid' : 'domain_invalid_character')
  if (ascii.length > MAX_DOMAIN_CHARS) return fail('domain_too_long')
  const labels = ascii.split('.')
  for (const label of labels) {
    if (label === '') return fail('domain_label_empty')
    if (label.length > MAX_LABEL_CHARS) return fail('domain_label_too_long')
    if (label.startsWith('-') || label.endsWith('-')) return fail('domain_hyphen_position')
    if (!LDH_LABEL_RE.test(label)) return fail('domain_invalid_character')
  }
  // A bare TLD ("user@localhost") is syntactically a Domain, but no public
  // mailbox lives there (RFC 3696 section 2): refuse it in practice.
  if (labels.length < 2) return fail('domain_single_label')
  // After conversion too: WHATWG's IPv4 shorthand ("user@0x7f.1") comes out of
  // domainToASCII as a dotted quad.
  if (/^[0-9]+$/.test(labels[labels.length - 1])) return fail('domain_numeric_tld')
  return { reason: 'ok', domain: domainToUnicode(ascii), ascii, literal: false, ip: null }
}

/** Checks one address. Surrounding white space is ignored; nothing else is repaired. */
export function checkEmailSyntax (input: string): SyntaxResult {
  if (typeof input !== 'string') return invalid('empty')
  const address = input.trim()
  if (address === '') return invalid('empty')
  if (address.length > MAX_INPUT_CHARS) return invalid('too_long')

  let local: string
  let rawDomain: string
  if (address.startsWith('"')) {
    const end = scanQuotedString(address)
    if (end === -1) return invalid('quoted_local_invalid')
    if (address[end] !== '@') return invalid(end >= address.length ? 'no_at_sign' : 'quoted_local_invalid')
    local = address.slice(0, end)
    rawDomain = address.slice(end + 1)
    if (local === '""') return invalid('local_empty', local)
  } else {
    const at = address.lastIndexOf('@')
    if (at === -1) return invalid('no_at_sign')
    local = address.slice(0, at)
    rawDomain = address.slice(at + 1)
    if (local === '') return invalid('local_empty', local)
    const localReason = checkDotAtomLocal(local)
    if (localReason !== 'ok') return invalid(localReason, local)
  }
  if (octets(local) > MAX_LOCAL_OCTETS) return invalid('local_too_long', local)

  const verdict = rawDomain.startsWith('[') && rawDomain.endsWith(']')
    ? checkAddressLiteral(rawDomain)
    : checkHostname(rawDomain)
  if (verdict.reason !== 'ok') return invalid(verdict.reason, local, rawDomain || null)

  const normalized = `${local}@${verdict.ascii}`
  if (octets(normalized) > MAX_ADDRESS_OCTETS) return invalid('too_long', local, verdict.domain)
  return {
    valid: true,
    reason: 'ok',
    normalized,
    local,
    domain: verdict.domain,
    ascii_domain: verdict.ascii,
    address_literal: verdict.literal,
    literal_ip: verdict.ip,
  }
}

/** The local part needs SMTPUTF8 (RFC 6531) to be sent: it holds non-ASCII characters. */
export function needsSmtpUtf8 (local: string): boolean {
  return /[^\x00-\x7f]/.test(local)
}
