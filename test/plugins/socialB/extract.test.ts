// The Instagram web API parsers: web_profile_info on the real capture (read at
// test time from ../shared/fixtures/captures/social), friendships pages and
// the refusals Instagram answers a session with, in their real shapes.
import t from 'tap'
import { readCapture } from '../../extract/captures.ts'
import { accountRows, instagramOutcome, instagramUsernameOf, nextMaxId, profileOf } from '../../../plugins/socialB/extract.ts'

t.test('web_profile_info (real, logged in): the account id and its counts', async t => {
  const raw = readCapture(t, 'social/instagram_web_profile_info_trimmed_2024.json')
  if (raw === null) return
  const body = JSON.parse(raw)
  t.same(profileOf(body), { id: '528817151', username: 'nasa', is_private: false, followed_by_viewer: true, followers: 97956738, following: 77 })
  t.match(instagramOutcome(200, body, null), { kind: 'ok' })
  t.equal(profileOf({ data: { user: null }, status: 'ok' }), null)
})

t.test('a friendships page: rows, string and numeric pks, next_max_id', async t => {
  const page = {
    users: [
      { pk: '17841400001', pk_id: '17841400001', id: '17841400001', username: 'jane.doe', full_name: 'Jane Doe', is_private: false, is_verified: true, profile_pic_id: '1_1', profile_pic_url: 'https://scontent.cdninstagram.com/a.jpg', has_anonymous_profile_picture: false, latest_reel_media: 0 },
      { pk: 5012345678, username: 'old_shape', full_name: '', is_private: true, is_verified: false, profile_pic_url: 'https://scontent.cdninstagram.com/b.jpg' },
      { username: 'no_id' },
    ],
    big_list: true, page_size: 25, next_max_id: 'QVFE...', has_more: true, should_limit_list_of_followers: false, status: 'ok',
  }
  const rows = accountRows(page, 'nasa', 'followers')
  t.same(rows, [
    { of_username: 'nasa', relation: 'followers', username: 'jane.doe', full_name: 'Jane Doe', id: '17841400001', verified: true, private: false, profile_pic_url: 'https://scontent.cdninstagram.com/a.jpg' },
    { of_username: 'nasa', relation: 'followers', username: 'old_shape', full_name: null, id: '5012345678', verified: false, private: true, profile_pic_url: 'https://scontent.cdninstagram.com/b.jpg' },
  ])
  t.equal(nextMaxId(page), 'QVFE...')
  t.equal(nextMaxId({ users: [], big_list: false, page_size: 25, status: 'ok' }), null, 'the last page has no next_max_id')
})

t.test('checkpoint, login wall and rate limit are refusals (blocked), never failures to retry', async t => {
  t.match(instagramOutcome(400, { message: 'checkpoint_required', checkpoint_url: 'https://www.instagram.com/challenge/?next=/api/v1/friendships/1/followers/', lock: false, flow_render_type: 0, status: 'fail' }, null), { kind: 'blocked', reason: /checkpoint/ })
  t.match(instagramOutcome(400, { message: 'challenge_required', challenge: { url: 'https://i.instagram.com/challenge/', api_path: '/challenge/' }, status: 'fail' }, null), { kind: 'blocked', reason: /checkpoint/ })
  t.match(instagramOutcome(401, { message: 'login_required', error_title: 'You\'ve been logged out.', logout_reason: 2, status: 'fail' }, null), { kind: 'blocked', reason: /login_required/ })
  t.match(instagramOutcome(302, null, 'https://www.instagram.com/accounts/login/?next=%2Fapi%2Fv1%2Ffriendships%2F1%2Ffollowers%2F'), { kind: 'blocked', reason: /login page/ })
  t.match(instagramOutcome(429, { message: 'Please wait a few minutes before you try again.', require_login: true, status: 'fail' }, null), { kind: 'blocked', reason: /rate-limiting.*Please wait a few minutes/ })
  t.match(instagramOutcome(400, { message: 'feedback_required', spam: true, status: 'fail' }, null), { kind: 'blocked' })
  t.match(instagramOutcome(200, null, null), { kind: 'blocked', reason: /instead of JSON/ })
  t.match(instagramOutcome(404, null, null), { kind: 'not-found' })
  t.match(instagramOutcome(500, null, null), { kind: 'failed' })
})

t.test('account names as people paste them', async t => {
  t.equal(instagramUsernameOf('@NASA'), 'nasa')
  t.equal(instagramUsernameOf('https://www.instagram.com/natgeo/?hl=en'), 'natgeo')
  t.equal(instagramUsernameOf('instagram.com/jane.doe'), 'jane.doe')
  t.equal(instagramUsernameOf('https://www.instagram.com/p/Cabc123/'), null)
  t.equal(instagramUsernameOf('https://example.com/nasa'), null)
  t.equal(instagramUsernameOf('two words'), null)
})
