// Address syntax, case by case, from the RFCs' own examples and rules.
import t from 'tap'
import { checkEmailSyntax } from '../../../plugins/email/syntax.ts'

interface Case {
  address: string
  valid: boolean
  /** Expected reason for an invalid address. */
  reason?: string
  /** Expected ascii_domain for a valid one (when worth pinning). */
  ascii?: string
  normalized?: string
}

const cases: { source: string, cases: Case[] }[] = [
  {
    // RFC 3696 section 3: the examples it gives of valid unusual local parts.
    source: 'RFC 3696 section 3 (valid examples)',
    cases: [
      { address: '"Abc@def"@example.com', valid: true },
      { address: '"Fred Bloggs"@example.com', valid: true },
      { address: 'customer/department=shipping@example.com', valid: true },
      { address: '$A12345@example.com', valid: true },
      { address: '!def!xyz%abc@example.com', valid: true },
      { address: '_somename@example.com', valid: true },
    ],
  },
  {
    // RFC 3696 section 3 also lists Abc\@def@example.com, Fred\ Bloggs@example.com
    // and Joe.\\Blow@example.com as valid; erratum 246 corrects this: RFC 5322
    // allows a backslash quote only inside a quoted string.
    source: 'RFC 3696 section 3 with erratum 246',
    cases: [
      { address: 'Abc\\@def@example.com', valid: false, reason: 'local_invalid_character' },
      { address: 'Fred\\ Bloggs@example.com', valid: false, reason: 'local_invalid_character' },
      { address: 'Joe.\\\\Blow@example.com', valid: false, reason: 'local_invalid_character' },
      { address: '"Abc\\@def"@example.com', valid: true },
      { address: '"Fred\\ Bloggs"@example.com', valid: true },
      { address: '"Joe.\\\\Blow"@example.com', valid: true },
    ],
  },
  {
    // RFC 3696 section 3: a period may not start or end the local part, nor
    // appear twice in a row (outside a quoted string).
    source: 'RFC 3696 section 3 (periods)',
    cases: [
      { address: '.abc@example.com', valid: false, reason: 'local_dot_position' },
      { address: 'abc.@example.com', valid: false, reason: 'local_dot_position' },
      { address: 'abc..def@example.com', valid: false, reason: 'local_consecutive_dots' },
      { address: '"abc..def"@example.com', valid: true },
    ],
  },
  {
    // RFC 3696 section 3 and RFC 5321 section 4.5.3.1: local part at most 64
    // octets; the whole address at most 254 (RFC 3696 erratum 1690).
    source: 'RFC 5321 section 4.5.3.1 limits',
    cases: [
      { address: `${'a'.repeat(64)}@example.com`, valid: true },
      { address: `${'a'.repeat(65)}@example.com`, valid: false, reason: 'local_too_long' },
      // 64 + 1 + 189 = 254 octets.
      { address: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`, valid: true },
      { address: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`, valid: false, reason: 'too_long' },
      // RFC 6531 section 3.3: limits count octets, so 33 two-octet characters are too many.
      { address: `${'é'.repeat(33)}@example.com`, valid: false, reason: 'local_too_long' },
    ],
  },
  {
    // RFC 3696 section 2 / RFC 1035 section 2.3.4: labels of letters, digits
    // and inner hyphens, at most 63 characters; the TLD is never all-numeric.
    source: 'RFC 3696 section 2 (domain names)',
    cases: [
      { address: 'user@-example.com', valid: false, reason: 'domain_hyphen_position' },
      { address: 'user@example-.com', valid: false, reason: 'domain_hyphen_position' },
      { address: `user@${'a'.repeat(63)}.com`, valid: true },
      { address: `user@${'a'.repeat(64)}.com`, valid: false, reason: 'domain_label_too_long' },
      { address: 'user@example.123', valid: false, reason: 'domain_numeric_tld' },
      { address: 'user@exa_mple.com', valid: false, reason: 'domain_invalid_character' },
      { address: 'user@localhost', valid: false, reason: 'domain_single_label' },
      { address: 'user@EXAMPLE.COM', valid: true, ascii: 'example.com', normalized: 'user@example.com' },
    ],
  },
  {
    // RFC 5321 section 4.1.2 (Mailbox = Local-part "@" ( Domain / address-literal )).
    source: 'RFC 5321 section 4.1.2 (Mailbox)',
    cases: [
      { address: 'plainaddress', valid: false, reason: 'no_at_sign' },
      { address: '@example.com', valid: false, reason: 'local_empty' },
      { address: 'user@', valid: false, reason: 'domain_empty' },
      { address: 'user@example.com.', valid: false, reason: 'domain_label_empty' },
      { address: 'user@example..com', valid: false, reason: 'domain_label_empty' },
      { address: 'a@b@example.com', valid: false, reason: 'local_invalid_character' },
      { address: '  jane@example.com  ', valid: true, normalized: 'jane@example.com' },
      { address: '', valid: false, reason: 'empty' },
    ],
  },
  {
    // RFC 5321 section 4.1.3: address literals, IPv4 and IPv6 forms.
    source: 'RFC 5321 section 4.1.3 (address literals)',
    cases: [
      { address: 'user@[192.0.2.1]', valid: true, ascii: '[192.0.2.1]' },
      { address: 'user@[IPv6:2001:db8::1]', valid: true, ascii: '[IPv6:2001:db8::1]' },
      { address: 'user@[300.0.2.1]', valid: false, reason: 'address_literal_invalid' },
      { address: 'user@[IPv6:2001:db8::zz]', valid: false, reason: 'address_literal_invalid' },
      { address: 'user@[x-tag:content]', valid: false, reason: 'address_literal_unsupported' },
      { address: 'user@192.0.2.1', valid: false, reason: 'domain_numeric_tld' },
    ],
  },
  {
    // RFC 5322 section 3.2.3 (atext and specials) and 3.2.4 (quoted strings);
    // appendix A examples.
    source: 'RFC 5322 sections 3.2.3, 3.2.4 and appendix A',
    cases: [
      { address: 'john.q.public@example.com', valid: true },
      { address: 'mary@x.test', valid: true },
      { address: "{x}|~'+*@example.com", valid: true },
      { address: 'a"b(c)d,e:f;g<h>i[j\\k]l@example.com', valid: false, reason: 'local_invalid_character' },
      { address: 'just"not"right@example.com', valid: false, reason: 'local_invalid_character' },
      { address: '"much.more unusual"@example.com', valid: true },
      { address: '"very.(),:;<>[]\\".VERY.\\"very@\\\\ \\"very\\".unusual"@strange.example.com', valid: true },
      // Obsolete local part (RFC 5322 section 4.4): not accepted by RFC 5321.
      { address: '"john".doe@example.com', valid: false, reason: 'quoted_local_invalid' },
      { address: '"unterminated@example.com', valid: false, reason: 'quoted_local_invalid' },
      // Appendix A.5 comments: RFC 5321's Mailbox has no comments.
      { address: 'pete(his account)@silly.test(his host)', valid: false, reason: 'local_invalid_character' },
      // Appendix A.1.1: a display name with angle brackets is not an addr-spec.
      { address: 'John Doe <jdoe@machine.example>', valid: false, reason: 'local_invalid_character' },
    ],
  },
  {
    // RFC 6531 (SMTPUTF8) and RFC 6532: UTF-8 local parts; IDN domains are
    // converted to A-labels (RFC 5890) for DNS and RCPT TO. The domains are
    // IANA's IDN test names.
    source: 'RFC 6531 / RFC 6532 (internationalised addresses)',
    cases: [
      { address: 'user@bücher.example', valid: true, ascii: 'xn--bcher-kva.example', normalized: 'user@xn--bcher-kva.example' },
      { address: '测试@例子.测试', valid: true, ascii: 'xn--fsqu00a.xn--0zwm56d' },
      { address: 'δοκιμή@παράδειγμα.δοκιμή', valid: true, ascii: 'xn--hxajbheg2az3al.xn--jxalpdlp' },
      { address: 'user@xn--bcher-kva.example', valid: true, ascii: 'xn--bcher-kva.example' },
      { address: 'user@xn--a.example', valid: false, reason: 'idn_invalid' },
    ],
  },
]

const total = cases.reduce((n, g) => n + g.cases.length, 0)
t.ok(total >= 40, `the table holds ${total} cases`)

for (const group of cases) {
  t.test(group.source, async t => {
    for (const c of group.cases) {
      const result = checkEmailSyntax(c.address)
      t.equal(result.valid, c.valid, `${JSON.stringify(c.address)} is ${c.valid ? 'valid' : 'invalid'} (${result.reason})`)
      if (!c.valid && c.reason) t.equal(result.reason, c.reason, `${JSON.stringify(c.address)}: reason`)
      if (c.valid) {
        t.equal(result.reason, 'ok')
        t.type(result.normalized, 'string')
      }
      if (c.ascii) t.equal(result.ascii_domain, c.ascii, `${JSON.stringify(c.address)}: ascii_domain`)
      if (c.normalized) t.equal(result.normalized, c.normalized, `${JSON.stringify(c.address)}: normalized`)
    }
  })
}

t.test('the parts of a valid address', async t => {
  t.same(checkEmailSyntax('Jane.Doe@Bücher.Example'), {
    valid: true,
    reason: 'ok',
    // RFC 5321 section 2.4: the local part is case-sensitive, so it is kept.
    normalized: 'Jane.Doe@xn--bcher-kva.example',
    local: 'Jane.Doe',
    domain: 'bücher.example',
    ascii_domain: 'xn--bcher-kva.example',
    address_literal: false,
    literal_ip: null,
  })
  t.match(checkEmailSyntax('postmaster@[192.0.2.1]'), { valid: true, address_literal: true, literal_ip: '192.0.2.1' })
})
