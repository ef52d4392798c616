// The lead finder's pure matching: whose ads are whose, own domains, verdicts.
import t from 'tap'
import { siteDomain } from '../../../plugins/lib/domains.ts'
import { googleVerdict, metaAdsOf, namesMatch, ownDomain } from '../../../plugins/adleads/match.ts'

t.test('names, domains and own sites', async t => {
  t.ok(namesMatch('Bright Smile Dental', 'Bright Smile Dental PLLC'.replace(' PLLC', ' LLC')))
  t.ok(namesMatch("Joe's Pizza", 'JOES PIZZA'))
  t.notOk(namesMatch('Austin Family Dentistry', 'Family Dentistry Supplies'))
  t.equal(siteDomain('https://www.Example.com/contact'), 'example.com')
  t.equal(siteDomain('example.org'), 'example.org')
  t.equal(siteDomain('mailto:x@y.z'), null)
  t.equal(siteDomain('example.com:8080/x'), 'example.com')
  t.equal(ownDomain('https://www.facebook.com/somepage'), null)
  t.equal(ownDomain('https://shop.example.com'), 'shop.example.com')
})

t.test('Meta ads of a business: by page name or by a link to its domain', async t => {
  const rows = [
    { page_id: '1', page_name: 'Bright Smile Dental', link_captions: [] },
    { page_id: '2', page_name: 'Someone Else', link_captions: ['BRIGHTSMILE.TEST'] },
    { page_id: '3', page_name: 'Someone Else', link_captions: ['notbrightsmile.test'] },
    { page_id: '4', page_name: 'Smile Toothpaste', link_captions: ['toothpaste.test'] },
  ]
  t.same(metaAdsOf(rows, 'Bright Smile Dental', 'brightsmile.test'), { count: 2, page_ids: ['1', '2'], page_name: 'Bright Smile Dental' })
  t.same(metaAdsOf(rows, 'Bright Smile Dental', null), { count: 1, page_ids: ['1'], page_name: 'Bright Smile Dental' })
  t.same(metaAdsOf([], 'X', null), { count: 0, page_ids: [], page_name: null })
})

t.test('Google verdict: running advertiser preferred, none found means not running', async t => {
  t.same(googleVerdict([{ found: false, ad_count: 0 }]), { running: false, count: 0, advertiser_id: null, advertiser_name: null, last_shown: null })
  t.match(googleVerdict([{ found: true, running_now: false, ad_count: 3, advertiser_id: 'A' }, { found: true, running_now: true, ad_count: 7, advertiser_id: 'B', last_shown: '2026-01-01' }]), { running: true, count: 7, advertiser_id: 'B', last_shown: '2026-01-01' })
})
