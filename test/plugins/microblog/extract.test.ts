// The X API v2 parsers on real captured answers (read at test time from
// ../shared/fixtures/captures/social): search with includes.users, a user's
// timeline with next_token, a tweets lookup, a username lookup, and errors.
import t from 'tap'
import { readCapture } from '../../extract/captures.ts'
import { nextToken, partialErrors, postIdOf, tweetRows, userIdOf, usernameOf, xOutcome } from '../../../plugins/microblog/extract.ts'

const capture = (t: Parameters<typeof readCapture>[0], name: string): unknown => {
  const raw = readCapture(t, `social/${name}`)
  return raw === null ? null : JSON.parse(raw)
}

t.test('a search page with includes.users: the author and the engagement counts on every row', async t => {
  const body = capture(t, 'x_api_v2_search_includes_users_small_2021.json')
  if (body === null) return
  const rows = tweetRows(body, 'search', '#IchBinHanna')
  t.equal(rows.length, 15)
  const first = rows[0]!
  t.match(first, {
    mode: 'search', input: '#IchBinHanna', id: '1403438596695134209', lang: 'de', created_at: '2021-06-11T19:46:50.000Z',
    author_id: '14451880', author_username: 'SoDoMedia', author_name: 'So Do Media', author_verified: false, author_followers: 501,
    like_count: 0, repost_count: 0, reply_count: 2, quote_count: 0, impression_count: null, hashtags: ['IchbinHanna'],
  })
  t.equal(first.url, 'https://x.com/SoDoMedia/status/1403438596695134209')
  t.match(first.author_profile_image_url, /^https:\/\/pbs\.twimg\.com\/profile_images\//)
  t.ok(rows.every(r => r.author_username !== null), 'every post found its author in includes.users')
  t.ok(rows.every(r => typeof r.like_count === 'number' && typeof r.repost_count === 'number' && typeof r.reply_count === 'number' && typeof r.quote_count === 'number'), 'counts on every row')
  const reply = rows[1]!
  t.same(reply.referenced_tweets, [{ type: 'replied_to', id: '1403196903794294784' }])
  t.same(reply.mentions, ['frkirsche'])
  t.equal(reply.in_reply_to_user_id, '1238776140094996481')
  t.equal(nextToken(body), null, 'the last page has no next_token')
})

t.test('recent search with default fields: ids, texts and next_token; no author without the expansion', async t => {
  const body = capture(t, 'x_api_v2_search_recent_tweets.json')
  if (body === null) return
  const rows = tweetRows(body, 'search', 'tweepy')
  t.equal(rows.length, 10)
  t.equal(rows[0]!.id, '1578516068309794817')
  t.equal(rows[0]!.text, '2022-10-07 22:42:12.637103 tweepy')
  t.equal(rows[0]!.url, 'https://x.com/i/web/status/1578516068309794817')
  t.equal(rows[0]!.like_count, null)
  t.equal(nextToken(body), 'b26v89c19zqg8o3fpzbn1e0ffhxjiofzw6po136rvbnul')
})

t.test('a user timeline page and a tweets lookup', async t => {
  const timeline = capture(t, 'x_api_v2_get_users_tweets.json')
  const lookup = capture(t, 'x_api_v2_get_tweets.json')
  if (timeline === null || lookup === null) return
  t.same(tweetRows(timeline, 'timeline', 'Twitter').map(r => r.id), ['1577730467436138524', '1565318587736285184'])
  t.equal(nextToken(timeline), '7140dibdnow9c7btw4232poeq0wapgnwgwqwvuwn3peex')
  const posts = tweetRows(lookup, 'post', 'x')
  t.same(posts.map(r => r.id), ['1293593516040269825', '1293595870563381249'])
  t.match(posts[0]!.text, /^It’s finally here! 🥁 Say hello to the new #TwitterAPI/)
})

t.test('username lookups: found, and not found as a partial error', async t => {
  const found = capture(t, 'x_api_v2_users_by_username_2021.json')
  const notFound = capture(t, 'x_api_v2_users_by_usernames_not_found_2021.json')
  if (found === null || notFound === null) return
  t.equal(userIdOf(found), '783214')
  t.same(partialErrors(notFound), ['Could not find user with usernames: [adljfhjsd].'])
  t.equal(userIdOf({ errors: [{ title: 'Not Found Error', detail: 'Could not find user with username: [nobody].' }] }), null)
})

t.test('error bodies: 401, 400, 403 and a 429 with its reset time', async t => {
  const unauthorized = capture(t, 'x_api_v2_401_unauthorized.json')
  const invalid = capture(t, 'x_api_v2_400_invalid_request.json')
  if (unauthorized === null || invalid === null) return
  t.match(xOutcome(401, unauthorized, null), { kind: 'token', reason: /rejected the bearer token.*Unauthorized/ })
  t.match(xOutcome(400, invalid, null), { kind: 'input', reason: /Invalid Request: Invalid 'start_time'/ })
  t.match(xOutcome(403, { title: 'Forbidden', detail: 'Forbidden', reason: 'client-not-enrolled', type: 'https://api.twitter.com/2/problems/client-forbidden' }, null), { kind: 'forbidden', reason: /HTTP 403.*client-not-enrolled/ })
  const limited = xOutcome(429, { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 }, '1767225600')
  t.match(limited, { kind: 'rate-limited', reason: /until 2026-01-01T00:00:00\.000Z \(x-rate-limit-reset\)/ })
  t.match(xOutcome(429, null, null), { kind: 'rate-limited' })
  t.match(xOutcome(503, null, null), { kind: 'failed', reason: /HTTP 503/ })
  t.match(xOutcome(200, { data: [] }, null), { kind: 'ok' })
})

t.test('usernames and post links as people paste them', async t => {
  t.equal(usernameOf('@nasa'), 'nasa')
  t.equal(usernameOf('https://x.com/NASA'), 'NASA')
  t.equal(usernameOf('twitter.com/XDevelopers/status/1'), 'XDevelopers')
  t.equal(usernameOf('https://example.com/nasa'), null)
  t.equal(usernameOf('not a handle'), null)
  t.equal(postIdOf('1293593516040269825'), '1293593516040269825')
  t.equal(postIdOf('https://x.com/XDevelopers/status/1293593516040269825?s=20'), '1293593516040269825')
  t.equal(postIdOf('https://twitter.com/i/web/status/1293593516040269825'), '1293593516040269825')
  t.equal(postIdOf('mobile.twitter.com/a/statuses/42/photo/1'), '42')
  t.equal(postIdOf('https://x.com/XDevelopers'), null)
  t.equal(postIdOf('https://evil.example/x/status/1'), null)
})
