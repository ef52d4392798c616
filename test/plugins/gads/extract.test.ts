// Parsers and request builders for the Transparency Center RPC, on answers
// modelled on public scrapers' shapes (see fixtures.ts).
import t from 'tap'
import {
  creativesRequest, looksBlocked, namesMatch, parseCreatives, parseRpcBody, parseSuggestions, regionCode, suggestionsRequest,
} from '../../../plugins/gads/extract.ts'
import { creative, suggestionAdvertiser, suggestionDomain } from './fixtures.ts'
import { siteDomain } from '../../../plugins/lib/domains.ts'

t.test('SearchSuggestions answers: advertisers with count ranges, domain suggestions', async t => {
  const s = parseSuggestions({ 1: [
    suggestionAdvertiser('Acme Coffee Roasters LLC', 'AR111', 'US', 20, 30),
    suggestionAdvertiser('Acme Tools GmbH', 'AR222', 'DE', '4000', '5000'),
    suggestionAdvertiser('No Count', 'AR333', null),
    { 1: { 1: 'Missing id' } },
    suggestionDomain('acmecoffee.test'),
  ] })
  t.same(s.advertisers, [
    { advertiser_id: 'AR111', name: 'Acme Coffee Roasters LLC', region: 'US', ad_count_range: { lower: 20, upper: 30 } },
    { advertiser_id: 'AR222', name: 'Acme Tools GmbH', region: 'DE', ad_count_range: { lower: 4000, upper: 5000 } },
    { advertiser_id: 'AR333', name: 'No Count', region: null, ad_count_range: null },
  ])
  t.same(s.domains, ['acmecoffee.test'])
  t.same(parseSuggestions({}), { advertisers: [], domains: [] }, 'an empty answer is {}')
})

t.test('SearchCreatives answers: ids, format, first/last shown, preview, page token', async t => {
  const now = Date.UTC(2026, 0, 10)
  const body = { 1: [creative('AR111', 'CR1', 'Acme', { format: 3, firstDaysAgo: 9, lastDaysAgo: 0 }), { 1: 'AR111', 2: 'CR2', 3: { 3: { 2: '<img src="https://tpc.googlesyndication.com/x.png" height="160">' } }, 4: 1, 7: { 1: String(now / 1000) } }], 2: 'next-token' }
  const { creatives, nextPageToken } = parseCreatives(body)
  t.equal(nextPageToken, 'next-token')
  t.match(creatives[0], { advertiser_id: 'AR111', creative_id: 'CR1', advertiser_name: 'Acme', format: 'video' })
  t.match(creatives[0]!.preview_url, /creativeId=CR1/)
  t.match(creatives[1], { creative_id: 'CR2', format: 'text', preview_url: 'https://tpc.googlesyndication.com/x.png', last_shown: '2026-01-10', first_shown: null })
  t.same(parseCreatives({}), { creatives: [], nextPageToken: null })
})

t.test('request payloads, the )]}\' prefix, block pages, regions, names and domains', async t => {
  t.same(JSON.parse(suggestionsRequest('Acme', null)), { 1: 'Acme', 2: 10, 3: 10 })
  t.same(JSON.parse(suggestionsRequest('Acme', 2840)), { 1: 'Acme', 2: 10, 3: 10, 4: [2840] })
  t.same(JSON.parse(creativesRequest({ domain: 'acme.com' }, 40, [], null)), { 2: 40, 3: { 12: { 1: 'acme.com', 2: true } }, 7: { 1: 1 } })
  t.same(JSON.parse(creativesRequest({ advertiserId: 'AR1' }, 40, [2826], 'tok')), { 2: 40, 3: { 12: { 1: '', 2: true }, 13: { 1: ['AR1'] }, 8: [2826] }, 7: { 1: 1 }, 4: 'tok' })
  t.same(parseRpcBody(")]}'\n{\"1\":[]}"), { 1: [] })
  t.equal(parseRpcBody('<html>'), null)
  t.ok(looksBlocked('<html>Our systems have detected unusual traffic from your computer network.</html>', 'https://adstransparency.google.com/x'))
  t.ok(looksBlocked('', 'https://www.google.com/sorry/index?continue=x'))
  t.notOk(looksBlocked('{"1":[]}', 'https://adstransparency.google.com/anji/_/rpc/SearchService/SearchCreatives'))
  t.equal(regionCode('us'), 2840)
  t.equal(regionCode('GB'), 2826)
  t.equal(regionCode('DE'), 2276)
  t.equal(regionCode('XX'), null)
  t.ok(namesMatch("Joe's Pizza", 'JOES PIZZA LLC'))
  t.ok(namesMatch('Acme Coffee', 'Acme Coffee Roasters Inc.'))
  t.notOk(namesMatch('Acme Coffee', 'Acme Tools GmbH'))
  t.ok(namesMatch('bluebottle', 'Blue Bottle'), 'joined words')
  t.equal(siteDomain('https://www.Acme.com/about'), 'acme.com')
  t.equal(siteDomain('acme.co.uk'), 'acme.co.uk')
  t.equal(siteDomain('not a domain'), null)
  t.equal(siteDomain('mailto:someone@acme.com'), null)
  t.equal(siteDomain('acme.com:8080'), 'acme.com')
})
