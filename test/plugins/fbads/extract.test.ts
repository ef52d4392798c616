// The ads_archive parser on real 2019 records (v3.x field names, read at test
// time from ../shared/fixtures/captures/ads) and on current-version records.
import t from 'tap'
import { readCapture } from '../../extract/captures.ts'
import { adsArchiveRecords, graphOutcome, graphTime, nextCursor, parseAdRecord, stripAccessToken } from '../../../plugins/fbads/extract.ts'

t.test('2019 Ad Library records (old field names)', async t => {
  const raw = readCapture(t, 'ads/facebook_ad_library_ads_archive_records_2019.json')
  if (raw === null) return
  const records = adsArchiveRecords(JSON.parse(raw))!
  t.equal(records.length, 25)
  const rows = records.map(r => parseAdRecord(r, new Date('2019-05-15T00:00:00Z')))
  const first = rows[0]!
  t.equal(first.ad_id, '408322803338923', 'the id comes from the snapshot URL when the record has none')
  t.equal(first.page_id, '48034275355')
  t.equal(first.page_name, "EPP - European People's Party")
  t.equal(first.creative_bodies.length, 1)
  t.match(first.creative_bodies[0], /^When we bring our full European potential together/)
  t.same(first.link_captions, ['instagram.com'])
  t.equal(first.delivery_start, '2019-05-13T15:30:13.000Z')
  t.equal(first.delivery_stop, '2019-05-16T15:30:04.000Z')
  t.equal(first.active, true, 'stop time after "now"')
  t.same(first.impressions, { lower: 5000, upper: 9999 })
  t.equal(first.currency, 'EUR')
  t.equal(first.funded_by, "EPP - European People's Party", 'funding_entity read as funded_by')
  t.equal(first.snapshot_url, 'https://www.facebook.com/ads/archive/render_ad/?id=408322803338923')
  t.equal(first.ad_library_url, 'https://www.facebook.com/ads/library/?id=408322803338923')
  t.ok(rows.every(r => r.snapshot_url && !/access_token/.test(r.snapshot_url)), 'no row keeps an access_token')
  t.ok(rows.every(r => r.ad_id && /^\d+$/.test(r.ad_id)), 'every record has an id')
  t.ok(rows.some(r => r.spend !== null), 'spend ranges read where present')
  t.ok(rows.some(r => r.link_titles.length > 0), 'ad_creative_link_title read as link_titles')
  t.equal(new Set(rows.map(r => r.ad_id)).size, 25)
})

t.test('current field names, open ranges, inactive ads', async t => {
  const row = parseAdRecord({
    id: '123', page_id: '9', page_name: 'Acme', ad_creative_bodies: ['Buy now', 'Buy now', 'Sale'], ad_creative_link_titles: ['Acme'],
    ad_delivery_start_time: '2024-01-01', ad_delivery_stop_time: '2024-02-01', publisher_platforms: ['facebook', 'instagram'], languages: ['en'],
    estimated_audience_size: { lower_bound: 1000000 }, bylines: 'Acme Inc', ad_snapshot_url: 'https://www.facebook.com/ads/archive/render_ad/?id=123&access_token=SECRET123',
  }, new Date('2025-01-01T00:00:00Z'))
  t.match(row, { ad_id: '123', active: false, creative_bodies: ['Buy now', 'Sale'], platforms: ['facebook', 'instagram'], languages: ['en'], funded_by: 'Acme Inc' })
  t.same(row.audience_size, { lower: 1000000, upper: null })
  t.equal(row.spend, null)
  t.equal(row.snapshot_url, 'https://www.facebook.com/ads/archive/render_ad/?id=123')
  t.equal(parseAdRecord({ id: '5', ad_delivery_start_time: '2024-01-01T00:00:00+0000' }).active, true, 'no stop time: still running')
  t.equal(stripAccessToken('not a url?access_token=abc&id=1'), 'not a url?id=1')
  t.equal(graphTime('2019-05-13T15:30:04+0000'), '2019-05-13T15:30:04.000Z')
})

t.test('paging cursor and Graph error outcomes', async t => {
  t.equal(nextCursor({ data: [], paging: { cursors: { after: 'QVFI' }, next: 'https://graph.facebook.com/v19.0/ads_archive?after=QVFI' } }), 'QVFI')
  t.equal(nextCursor({ data: [], paging: { next: 'https://graph.facebook.com/v19.0/ads_archive?after=XYZ' } }), 'XYZ')
  t.equal(nextCursor({ data: [], paging: { cursors: { after: 'QVFI' } } }), null, 'no next: the last page')
  t.match(graphOutcome(400, { error: { message: 'Application request limit reached', code: 4 } }), { kind: 'blocked' })
  t.match(graphOutcome(400, { error: { message: 'User request limit reached', code: 17 } }), { kind: 'blocked' })
  t.match(graphOutcome(400, { error: { message: 'Calls to this api have exceeded the rate limit.', code: 613 } }), { kind: 'blocked' })
  t.match(graphOutcome(429, null), { kind: 'blocked' })
  t.match(graphOutcome(403, null), { kind: 'blocked' })
  t.match(graphOutcome(400, { error: { message: 'Error validating access token', code: 190, error_subcode: 463 } }), { kind: 'token', reason: /subcode 463/ })
  t.match(graphOutcome(400, { error: { message: 'Invalid parameter', code: 100 } }), { kind: 'failed' })
  t.match(graphOutcome(200, { data: [] }), { kind: 'ok' })
  t.match(graphOutcome(200, { hello: 1 }), { kind: 'failed' })
})
