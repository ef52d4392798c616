import t from 'tap'
import { findPhones, telHrefToE164 } from '../../plugins/lib/scanners.ts'
import { readCapture } from './captures.ts'

t.test('US numbers, with extensions, in text', async t => {
  t.same(findPhones('Call (212) 555-0123 or 415.555.0199 ext. 204', { defaultCountry: 'US' }), ['+12125550123', '+14155550199'])
  t.same(findPhones('Main line 650-253-0000 x123; toll free 1 (800) 275-2273', { defaultCountry: 'US' }), ['+16502530000', '+18002752273'])
  t.same(findPhones('+1 202 456 1111'), ['+12024561111'], 'international form needs no default country')
})

t.test('UK numbers', async t => {
  t.same(findPhones('Ring 020 7946 0958 or +44 20 7946 0018', { defaultCountry: 'GB' }), ['+442079460958', '+442079460018'])
  t.same(findPhones('Mobile: 07911 123456', { defaultCountry: 'uk' }), ['+447911123456'], '"UK" is accepted for GB, any case')
})

t.test('German numbers', async t => {
  t.same(findPhones('Tel: 030 1234567, Fax: +49 (0)30 12345-678', { defaultCountry: 'DE' }), ['+49301234567', '+493012345678'])
  t.same(findPhones('Telefon: +49 6135 9323-0 Fax: +49 6135 9323-110'), ['+49613593230', '+4961359323110'])
})

t.test('tel: links come first and are decoded', async t => {
  const html = '<p>Office: 020 7946 0958</p><footer><a href="tel:+1-650-253-0000;ext=12">Call us</a> <a href="tel:%2B4930901820">Berlin</a> <a href="callto:+442079460018">Skype</a></footer>'
  t.same(findPhones(html, { defaultCountry: 'GB' }), ['+16502530000', '+4930901820', '+442079460018', '+442079460958'])
  t.equal(telHrefToE164('tel:0301234567', 'DE'), '+49301234567')
  t.equal(telHrefToE164('tel:0301234567'), null, 'national form without a country cannot be placed')
  t.equal(telHrefToE164('tel:12345'), null)
  t.equal(telHrefToE164('https://acme.com'), null)
})

t.test('dates, ZIP codes and digit runs are not numbers', async t => {
  const noise = [
    'Date 2023-01-15, ZIP 90210, order 123456789012345678, 12/25/2024',
    'Posted 15.01.2024 in 10115 Berlin',
    'Invoice 4111111111111111',
    'ISBN 978-3-16-148410-0',
    'Opening hours 09:00 - 17:30',
    'Version 1.2.3.4',
  ]
  for (const text of noise) t.same(findPhones(text, { defaultCountry: 'US' }), [], text)
  t.same(findPhones('Posted 15.01.2024 in 10115 Berlin', { defaultCountry: 'DE' }), [], 'German date and postcode')
})

t.test('adjacent table cells do not merge into one number', async t => {
  const html = '<table><tr><td>Tel 030 1234567</td><td>Fax 030 7654321</td></tr></table>'
  t.same(findPhones(html, { defaultCountry: 'DE' }), ['+49301234567', '+49307654321'])
})

t.test('de-duplicates across tel: links and text, ignores unknown countries', async t => {
  const html = '<p><a href="tel:+12125550123">(212) 555-0123</a> or (212) 555-0123</p>'
  t.same(findPhones(html, { defaultCountry: 'US' }), ['+12125550123'])
  t.same(findPhones('(212) 555-0123', { defaultCountry: 'ZZ' }), [], 'unknown country: only +numbers')
})

t.test('capture: deutscheweine.de contact block', async t => {
  const html = readCapture(t, 'emails/obfuscated_at_dot_deutscheweine.html')
  if (html === null) return
  const phones = findPhones(html, { defaultCountry: 'DE' })
  t.ok(phones.includes('+49613593230'), `Telefon +49 6135 9323-0 in ${JSON.stringify(phones)}`)
  t.ok(phones.includes('+4961359323110'), 'Fax +49 6135 9323-110')
  t.ok(phones.every(phone => /^\+[1-9]\d{6,14}$/.test(phone)), 'all E.164')
})
