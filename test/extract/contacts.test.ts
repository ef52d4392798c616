// pageContacts parses a page once for all its scanners; it must answer exactly what
// the scanners answer each on its own parse (real captured pages, plain text, edge cases).
import t from 'tap'
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pageContacts } from '../../plugins/lib/contacts.ts'
import { classifyEmail, extractLinks, findEmails, findPhones, findSocialLinks } from '../../plugins/lib/scanners.ts'
import type { ContactScanOptions } from '../../plugins/lib/contacts.ts'
import { CAPTURES_DIR, capturesPresent, readCapture, skipWithoutCaptures } from './captures.ts'

function scannedOneByOne (html: string, url: string, options: ContactScanOptions) {
  return {
    emails: findEmails(html, url).map(found => ({ ...found, type: classifyEmail(found.email) })),
    phones: options.phones ? findPhones(html, { defaultCountry: options.defaultCountry }) : [],
    socials: options.socials ? findSocialLinks(html, url) : [],
    links: extractLinks(html, url),
    leftOut: 0,
  }
}

const ALL: ContactScanOptions = { phones: true, socials: true, defaultCountry: 'US' }

t.test('the same answer as each scanner on its own parse, for every captured HTML page', async t => {
  if (!capturesPresent()) return skipWithoutCaptures(t, 'captured HTML pages')
  const pages: string[] = []
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.html?$/.test(name)) pages.push(relative(CAPTURES_DIR, path))
    }
  }
  walk(CAPTURES_DIR)
  t.ok(pages.length >= 5, `${pages.length} captured pages`)
  for (const path of pages) {
    const html = readCapture(t, path)
    if (html === null) continue
    t.same(pageContacts(html, 'https://www.example.com/contact', ALL), scannedOneByOne(html, 'https://www.example.com/contact', ALL), path)
  }
})

t.test('pages and text made to touch each scanner', async t => {
  const cases: Array<[string, string]> = [
    ['plain text, no HTML', 'Call +1 202 456 1111 or write to sales@acme.example.com'],
    ['tel links, mailto, obfuscated and entity addresses, socials, <base href>', `<html><head><base href="https://cdn.example.com/dir/"></head><body>
      <p>Phone: <a href="tel:+12124561111">desk</a>, or (415) 555-0123</p>
      <p><a href="mailto:Info@Example.com?subject=hi">mail</a> staff [at] example [dot] com press&#64;example&#46;com</p>
      <span data-cfemail="543d3a323b14312c35392438317a373b39"></span>
      <a href="https://twitter.com/acme">tw</a> <a href="/about#team">about</a> <a href="javascript:void(0)">x</a>
      <script type="application/ld+json">{"sameAs": ["https://www.linkedin.com/company/acme/"], "email": "ld@example.com"}</script>
    </body></html>`],
    ['a table whose cells must not run together', '<table><tr><td>Tel: 030 1234567</td><td>Fax: +49 30 12345678</td></tr></table><div>a@b.de</div><div>Next</div>'],
    ['hidden text', '<div hidden>hidden@example.com</div><div style="display:none">+1 202 456 1111</div><p>shown@example.com</p>'],
  ]
  for (const [name, html] of cases) {
    for (const options of [ALL, { phones: false, socials: false }, { phones: true, socials: true, defaultCountry: 'DE' }]) {
      t.same(pageContacts(html, 'https://www.example.com/page', options), scannedOneByOne(html, 'https://www.example.com/page', options), `${name} ${JSON.stringify(options)}`)
    }
  }
})

t.test('maxEach still caps each kind and counts what it left out', async t => {
  const html = `<p>${Array.from({ length: 5 }, (_, i) => `user${i}@example.com`).join(' ')}</p>`
  const found = pageContacts(html, 'https://example.com/', { maxEach: 2 })
  t.same(found.emails.map(e => e.email), ['user0@example.com', 'user1@example.com'])
  t.equal(found.leftOut, 3)
})
