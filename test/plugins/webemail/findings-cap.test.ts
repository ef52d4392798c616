// A page of tens of thousands of address-like strings must not become a
// megabyte row: the site's findings keep MAX_CONTACTS_PER_SITE of each kind and
// count the rest (run.ts turns the count into a warning).
import t from 'tap'
import { MAX_CONTACTS_PER_SITE, SiteFindingsBuilder } from '../../../plugins/webemail/findings.ts'

t.test('emails, phones and socials stop at the cap, in discovery order, the rest counted', async t => {
  const builder = new SiteFindingsBuilder('https://acme.test', 'acme.test', { includePhones: true, includeSocials: true })
  const many = MAX_CONTACTS_PER_SITE + 40
  const emails = Array.from({ length: many }, (_, i) => ({ email: `user${i}@acme.test`, source: 'text' as const, type: 'personal' as const }))
  const phones = Array.from({ length: many }, (_, i) => `+1512555${String(i).padStart(4, '0')}`)
  builder.addScanned({ emails, phones, socials: [{ platform: 'x', url: 'https://x.com/acme', host: 'x.com' }] }, 'https://acme.test/')
  // The same addresses again are duplicates, not more left out.
  builder.addScanned({ emails: emails.slice(0, 10), phones: [], socials: [] }, 'https://acme.test/contact')
  const row = builder.build()
  t.equal(row.emails.length, MAX_CONTACTS_PER_SITE)
  t.equal(row.emails[0], 'user0@acme.test', 'the first found are kept')
  t.equal(row.results.length, MAX_CONTACTS_PER_SITE)
  t.equal(row.phones.length, MAX_CONTACTS_PER_SITE)
  t.equal(row.socials.length, 1)
  t.equal(builder.leftOut, 80, '40 addresses and 40 numbers left out')
})

t.test('under the cap nothing is left out', async t => {
  const builder = new SiteFindingsBuilder('https://acme.test', 'acme.test', { includePhones: false, includeSocials: false })
  builder.addScanned({ emails: [{ email: 'info@acme.test', source: 'mailto', type: 'role' }], phones: ['+15125550101'], socials: [] }, 'https://acme.test/')
  t.equal(builder.leftOut, 0)
  t.same(builder.build().phones, [], 'phones not asked for are not kept')
})

t.test('the page scan returns at most maxEach of each kind and says how many it dropped', async t => {
  const { pageContacts } = await import('../../../plugins/lib/contacts.ts')
  const html = Array.from({ length: 30 }, (_, i) => `<p>user${i}@acme.test</p>`).join('')
  const all = pageContacts(html, 'https://acme.test/')
  t.equal(all.emails.length, 30)
  t.equal(all.leftOut, 0)
  const capped = pageContacts(html, 'https://acme.test/', { maxEach: 10 })
  t.same(capped.emails.map(e => e.email), all.emails.slice(0, 10).map(e => e.email))
  t.equal(capped.leftOut, 20)
  const builder = new SiteFindingsBuilder('https://acme.test', 'acme.test', { includePhones: false, includeSocials: false })
  t.equal(builder.scanOptions.maxEach, MAX_CONTACTS_PER_SITE, 'webemail asks the worker for no more than it keeps')
  builder.addScanned(capped, 'https://acme.test/')
  t.equal(builder.leftOut, 20, 'what the worker dropped counts')
})
