import t from 'tap'
import { readFileSync } from 'node:fs'
import {
  findEmails, classifyEmail, normaliseEmail, decodeCloudflareEmail, mailtoAddresses, deobfuscateEmails,
} from '../../plugins/lib/scanners.ts'
import { readCapture } from './captures.ts'

const PAGE_URL = 'https://acme-widgets.com/contact'
const emailsIn = (html: string) => findEmails(html, PAGE_URL).map(found => found.email)

t.test('hand-written contact page: every form found once, false positives left out', async t => {
  const html = readFileSync(new URL('./fixtures/contact-page.html', import.meta.url), 'utf8')
  t.same(findEmails(html, PAGE_URL), [
    { email: 'Sales@acme-widgets.com', source: 'mailto' },
    { email: 'support@acme-widgets.com', source: 'mailto' },
    { email: 'jane.doe@acme-widgets.com', source: 'cfemail' },
    { email: 'press@acme-widgets.com', source: 'cfemail' },
    { email: 'billing@acme-widgets.com', source: 'text' },
    { email: 'careers@acme-widgets.com', source: 'text' },
    { email: 'office@acme-widgets.com', source: 'text' },
    { email: 'info@acme-widgets.com', source: 'text' },
    { email: 'owner@acme-widgets.com', source: 'text' },
    { email: 'jsonld@acme-widgets.com', source: 'text' },
    { email: 'privacy@acme-widgets.com', source: 'obfuscated' },
    { email: 'j.smith@acme-widgets.com', source: 'obfuscated' },
    { email: 'events@acme-widgets.com', source: 'obfuscated' },
    { email: 'mark@acme-widgets.com', source: 'obfuscated' },
  ])
})

t.test('written-out forms', async t => {
  const cases: Array<[string, string]> = [
    ['name [at] domain [dot] com', 'name@domain.com'],
    ['name[at]domain[dot]com', 'name@domain.com'],
    ['name (at) domain (dot) com', 'name@domain.com'],
    ['name(at)domain.com', 'name@domain.com'],
    ['name{at}domain{dot}co{dot}uk', 'name@domain.co.uk'],
    ['name &lt;at&gt; domain &lt;dot&gt; org', 'name@domain.org'], // written as text, hence escaped
    ['name [@] domain [.] net', 'name@domain.net'],
    ['info[at]deutscheweine(dot)de', 'info@deutscheweine.de'],
    ['kontakt (AT) weingut-mueller (PUNKT) de', 'kontakt@weingut-mueller.de'],
    ['first [dot] last [at] example [dot] org', 'first.last@example.org'],
    ['write to john at example dot com today', 'john@example.com'],
    ['JOHN AT EXAMPLE DOT COM', 'JOHN@example.com'],
  ]
  for (const [text, expected] of cases) {
    t.same(emailsIn(`<p>${text}</p>`), [expected], text)
    t.equal(findEmails(`<p>${text}</p>`, PAGE_URL)[0]?.source, 'obfuscated', `${text} is marked obfuscated`)
  }
})

t.test('prose with " at " and " dot " is not an address', async t => {
  const prose = [
    'Meet us at the office dot',
    'meet us at office dot com',
    'Look at this dot com bubble',
    'Tickets at eventbrite.com and lunch at noon.',
    'Shop at target.com',
    'The show starts at 8 dot 30',
    'We arrived at home dot late',
    'Available at amazon dot com',
  ]
  for (const text of prose) t.same(emailsIn(`<p>${text}</p>`), [], text)
  t.same(deobfuscateEmails('Meet us at the office dot'), [])
})

t.test('HTML entity forms are decoded', async t => {
  const cases: Array<[string, string]> = [
    ['info&#64;acme.com', 'info@acme.com'],
    ['info&#x40;acme.com', 'info@acme.com'],
    ['info&#X40;acme&#x2E;com', 'info@acme.com'],
    ['info&commat;acme&period;com', 'info@acme.com'],
    ['&#105;&#110;&#102;&#111;&#64;&#97;&#99;&#109;&#101;&#46;&#99;&#111;&#109;', 'info@acme.com'],
    ['<a href="mailto:&#105;nfo&#64;acme.com">mail</a>', 'info@acme.com'],
  ]
  for (const [html, expected] of cases) t.same(emailsIn(`<p>${html}</p>`), [expected], html)
})

t.test('mailto links: percent-encoding, query and several recipients', async t => {
  t.same(mailtoAddresses('mailto:%69nfo@acme.com?subject=Hello%20there&body=x'), ['info@acme.com'])
  t.same(mailtoAddresses('MAILTO:a@acme.com,%20b@acme.com'), ['a@acme.com', 'b@acme.com'])
  t.same(mailtoAddresses('mailto:bad%ZZ@acme.com'), ['bad%ZZ@acme.com'], 'malformed escapes do not throw')
  t.same(mailtoAddresses('https://acme.com'), [])
  t.same(findEmails('<a href="mailto:%69nfo@Acme.COM?subject=Hi">Write</a>', PAGE_URL), [{ email: 'info@acme.com', source: 'mailto' }])
  t.same(emailsIn('<a href="mailto:">empty</a><a href="mailto:?subject=x">no address</a>'), [])
})

t.test('Cloudflare email protection', async t => {
  t.equal(decodeCloudflareEmail('513a302334343c223c382539113330233330353e22253e3530287f3333'), 'kareemsmith@barbadostoday.bb')
  t.equal(decodeCloudflareEmail('zz'), null)
  t.equal(decodeCloudflareEmail('abc'), null, 'odd length')
  const html = '<a href="https://acme.com/cdn-cgi/l/email-protection#deaeacbbadad9ebfbdb3bbf3a9b7bab9bbaaadf0bdb1b3">[email protected]</a>'
  t.same(findEmails(html, PAGE_URL), [{ email: 'press@acme-widgets.com', source: 'cfemail' }])
  t.same(emailsIn('<a href="/cdn-cgi/l/email-protection">[email protected]</a>'), [], 'no hash, nothing to decode')
})

t.test('false positives are rejected', async t => {
  const noise = [
    '<img src="logo@2x.png" alt="logo@2x.png">',
    '<p>icon@3x.webp sprite@2x.jpg bundle@1.2.3 lodash@4.17.21</p>',
    '<p>user@example for testing, root@localhost</p>',
    '<p>a@b.c is too short a TLD</p>',
    `<p>${'x'.repeat(70)}@acme.com has a local part over 64 characters</p>`,
    '<p>3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c@o12345.ingest.sentry.io</p>',
    '<input type="email" placeholder="you@yourcompany.com">',
    '<script>var x = "hidden@acme.com"</script><style>/* css@acme.com */</style>',
    '<p>@acme.com and info@ and @@</p>',
  ]
  for (const html of noise) t.same(emailsIn(html), [], html)
})

t.test('normaliseEmail: trims punctuation, lower-cases the domain, validates', async t => {
  const cases: Array<[string, string | null]> = [
    ['Info@Example.COM', 'Info@example.com'],
    ['(info@example.com).', 'info@example.com'],
    ['"info@example.com",', 'info@example.com'],
    ['info@example.com;', 'info@example.com'],
    ['info@sub.example.co.uk', 'info@sub.example.co.uk'],
    ['first.last+tag@example.org', 'first.last+tag@example.org'],
    ['info@xn--bcher-kva.example', 'info@xn--bcher-kva.example'],
    ['first..last@example.com', null],
    ['.first@example.com', 'first@example.com'],
    ['info@-example.com', null],
    ['info@example..com', null],
    ['info@example.c0m', null],
    ['logo@2x.png', null],
    ['user@example', null],
    [`${'a'.repeat(60)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`, null],
  ]
  for (const [raw, expected] of cases) t.equal(normaliseEmail(raw), expected, raw)
})

t.test('de-duplication is case-insensitive and keeps the first source', async t => {
  const html = '<p>INFO@ACME.COM</p><a href="mailto:info@acme.com">x</a><p>info [at] acme [dot] com</p>'
  t.same(findEmails(html, PAGE_URL), [{ email: 'info@acme.com', source: 'mailto' }])
})

t.test('classifyEmail: role vs personal', async t => {
  const table: Array<[string, 'role' | 'personal']> = [
    ['info@acme.com', 'role'], ['contact@acme.com', 'role'], ['sales@acme.com', 'role'],
    ['support@acme.com', 'role'], ['admin@acme.com', 'role'], ['hello@acme.com', 'role'],
    ['office@acme.com', 'role'], ['team@acme.com', 'role'], ['press@acme.com', 'role'],
    ['jobs@acme.com', 'role'], ['careers@acme.com', 'role'], ['billing@acme.com', 'role'],
    ['privacy@acme.com', 'role'], ['noreply@acme.com', 'role'], ['no-reply@acme.com', 'role'],
    ['do_not_reply@acme.com', 'role'], ['webmaster@acme.com', 'role'], ['marketing@acme.com', 'role'],
    ['enquiries@acme.com', 'role'], ['INFO@acme.com', 'role'], ['sales-uk@acme.com', 'role'],
    ['support2@acme.com', 'role'], ['info+web@acme.com', 'role'], ['kontakt@weingut.de', 'role'],
    ['customer.service@acme.com', 'role'],
    ['jane.doe@acme.com', 'personal'], ['jsmith@acme.com', 'personal'], ['kareemsmith@barbadostoday.bb', 'personal'],
    ['j.smith@acme.com', 'personal'], ['mark@acme.com', 'personal'], ['informatik.lehrer@uni.de', 'personal'],
  ]
  for (const [email, expected] of table) t.equal(classifyEmail(email), expected, email)
})

t.test('pathological input stays fast', async t => {
  const inputs = ['a.'.repeat(50_000), 'x at x at x dot '.repeat(10_000), `${'a'.repeat(100_000)}@`, 'a [at] '.repeat(20_000)]
  for (const input of inputs) {
    // CPU time, not wall time: a backtracking scan costs seconds of CPU whatever the
    // machine's load, while CI's three suites at once stretch wall time tenfold.
    const started = process.cpuUsage()
    findEmails(`<p>${input}</p>`, PAGE_URL)
    const used = process.cpuUsage(started)
    const ms = (used.user + used.system) / 1000
    t.ok(ms < 2000, `${input.slice(0, 20)}… under 2 s of CPU (${Math.round(ms)} ms)`)
  }
})

t.test('capture: Cloudflare-protected address on barbadostoday.bb', async t => {
  const html = readCapture(t, 'emails/cfemail_barbadostoday_article.html')
  if (html === null) return
  const found = findEmails(html, 'https://barbadostoday.bb/2018/03/29/contest/')
  t.match(found, [{ email: 'kareemsmith@barbadostoday.bb', source: 'cfemail' }])
  t.ok(found.every(({ email }) => normaliseEmail(email) === email), 'every result is canonical')
})

t.test('capture: info[at]deutscheweine(dot)de', async t => {
  const html = readCapture(t, 'emails/obfuscated_at_dot_deutscheweine.html')
  if (html === null) return
  const found = findEmails(html, 'https://www.deutscheweine.de/')
  t.ok(found.some(({ email, source }) => email === 'info@deutscheweine.de' && source === 'obfuscated'), JSON.stringify(found))
})

t.test('capture: article pages without published addresses yield nothing spurious', async t => {
  for (const page of ['readability/wikipedia/source.html', 'readability/lemonde-1/source.html']) {
    const html = readCapture(t, page)
    if (html === null) return
    t.same(findEmails(html, 'https://example.org/'), [], page)
  }
  const nytimes = readCapture(t, 'readability/nytimes-1/source.html')
  if (nytimes !== null) t.same(findEmails(nytimes, 'https://www.nytimes.com/'), [{ email: 'accessibility@nytimes.com', source: 'mailto' }])
})
