// A local stand-in for www.instagram.com's web API on 127.0.0.1: the real
// paths (/api/v1/users/web_profile_info/, /api/v1/friendships/<id>/followers/
// and /following/), `count` + `max_id` paging with `next_max_id`, the session
// cookie and app-id header checks, and the refusals Instagram sends a session
// (a redirect to /accounts/login, login_required, checkpoint_required, and 429
// "Please wait a few minutes"), in their real shapes.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CAPTURES_DIR } from '../../extract/captures.ts'
import { send, sendJson, startServer } from '../products/_harness.ts'

export const IG_SESSION = '1234567890%3AabcDEFghiJKL%3A12%3AAYfake-session'
export const IG_APP_ID = '936619743392459'

interface Teardown { teardown (fn: () => unknown): void }

export interface InstagramStandinOptions {
  /** Followers (and following) each known account has. */
  total?: number
  /** What the friendships endpoint answers instead of a page, from the Nth friendships request on (1-based). */
  refuse?: { from: number, with: 'login-redirect' | 'login-required' | 'checkpoint' | 'rate-limit' }
}

// nasa's profile is the real capture when present (its id 528817151), else the same shape.
function nasaProfile (): Record<string, any> {
  try { return JSON.parse(readFileSync(join(CAPTURES_DIR, 'social/instagram_web_profile_info_trimmed_2024.json'), 'utf8')) } catch {
    return { data: { user: { id: '528817151', username: 'nasa', full_name: 'NASA', is_private: false, followed_by_viewer: true, edge_followed_by: { count: 97956738 }, edge_follow: { count: 77 } } }, status: 'ok' }
  }
}

const PROFILES: Record<string, () => Record<string, any>> = {
  nasa: nasaProfile,
  natgeo: () => ({ data: { user: { id: '787132', username: 'natgeo', full_name: 'National Geographic', is_private: false, followed_by_viewer: false, edge_followed_by: { count: 280000000 }, edge_follow: { count: 150 } } }, status: 'ok' }),
  secret_garden: () => ({ data: { user: { id: '999', username: 'secret_garden', full_name: 'Secret', is_private: true, followed_by_viewer: false, edge_followed_by: { count: 10 }, edge_follow: { count: 10 } } }, status: 'ok' }),
}

const account = (ownerId: string, relation: string, n: number) => ({
  pk: `${ownerId}${relation === 'followers' ? 1 : 2}${String(n).padStart(4, '0')}`,
  pk_id: `${ownerId}${relation === 'followers' ? 1 : 2}${String(n).padStart(4, '0')}`,
  id: `${ownerId}${relation === 'followers' ? 1 : 2}${String(n).padStart(4, '0')}`,
  username: `${relation}_${ownerId}_${n}`, full_name: `Person ${n}`, is_private: n % 3 === 0, is_verified: n % 5 === 0,
  profile_pic_id: `${n}_1`, profile_pic_url: `https://scontent.cdninstagram.com/v/t51.2885-19/${n}.jpg`, has_anonymous_profile_picture: false, latest_reel_media: 0,
})

export async function startInstagramStandin (t: Teardown, options: InstagramStandinOptions = {}) {
  const total = options.total ?? 30
  let friendshipRequests = 0
  return startServer(t, (req, res) => {
    const cookie = String(req.headers.cookie ?? '')
    const loggedIn = cookie.includes(`sessionid=${encodeURIComponent(IG_SESSION)}`)
    const path = req.url.pathname
    if (req.headers['x-ig-app-id'] !== IG_APP_ID) return sendJson(res, 400, { message: 'useragent mismatch', status: 'fail' })
    if (path === '/api/v1/users/web_profile_info/') {
      if (!loggedIn) return send(res, 302, '', 'text/html', { location: 'https://www.instagram.com/accounts/login/?next=%2Fapi%2Fv1%2Fusers%2Fweb_profile_info%2F' })
      const profile = PROFILES[req.url.searchParams.get('username') ?? '']
      return profile ? sendJson(res, 200, profile()) : sendJson(res, 404, { message: 'User not found', status: 'fail' })
    }
    const friendships = /^\/api\/v1\/friendships\/(\d+)\/(followers|following)\/$/.exec(path)
    if (friendships) {
      friendshipRequests++
      if (!loggedIn) return sendJson(res, 401, { message: 'login_required', error_title: 'You\'ve been logged out.', error_body: 'Please log back in.', logout_reason: 2, status: 'fail' })
      const refuse = options.refuse
      if (refuse && friendshipRequests >= refuse.from) {
        switch (refuse.with) {
          case 'login-redirect': return send(res, 302, '', 'text/html', { location: `https://www.instagram.com/accounts/login/?next=${encodeURIComponent(path)}` })
          case 'login-required': return sendJson(res, 401, { message: 'login_required', error_title: 'You\'ve been logged out.', error_body: 'Please log back in.', logout_reason: 2, status: 'fail' })
          case 'checkpoint': return sendJson(res, 400, { message: 'checkpoint_required', checkpoint_url: `https://www.instagram.com/challenge/?next=${encodeURIComponent(path)}`, lock: false, flow_render_type: 0, status: 'fail' })
          case 'rate-limit': return sendJson(res, 429, { message: 'Please wait a few minutes before you try again.', require_login: true, status: 'fail' })
        }
      }
      const [, ownerId, relation] = friendships
      const count = Number(req.url.searchParams.get('count') ?? 12)
      const start = Number(req.url.searchParams.get('max_id') ?? 0)
      const users = Array.from({ length: Math.max(0, Math.min(count, total - start)) }, (_, i) => account(ownerId!, relation!, start + i + 1))
      const end = start + users.length
      return sendJson(res, 200, { users, big_list: end < total, page_size: count, ...(end < total ? { next_max_id: String(end) } : {}), has_more: end < total, should_limit_list_of_followers: false, status: 'ok' })
    }
    sendJson(res, 404, { message: 'Page not found', status: 'fail' })
  })
}
