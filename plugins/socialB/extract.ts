// Pure parsing of Instagram web API answers: web_profile_info -> the account's
// id, friendships followers/following pages -> rows and `next_max_id`, and the
// refusals Instagram answers a logged-in session with (checkpoint, login wall,
// "Please wait a few minutes") -> outcomes. No I/O here: run.ts fetches.

import { linkOnHost } from '../lib/domains.ts'
import { booleanOf, isRecord, textOf } from '../lib/json.ts'

const isObject = isRecord

export type Relation = 'followers' | 'following'

export interface AccountRow {
  of_username: string
  relation: Relation
  username: string
  full_name: string | null
  id: string
  verified: boolean | null
  private: boolean | null
  profile_pic_url: string | null
}

const str = textOf
const bool = booleanOf

export interface ProfileInfo { id: string, username: string, is_private: boolean | null, followed_by_viewer: boolean | null, followers: number | null, following: number | null }

/** `{data: {user: {...}}, status: 'ok'}` of /api/v1/users/web_profile_info/ -> the account, or null when absent. */
export function profileOf (body: unknown): ProfileInfo | null {
  if (!isObject(body) || !isObject(body.data) || !isObject(body.data.user)) return null
  const user = body.data.user
  const id = str(user.id) ?? str(user.pk)
  const username = str(user.username)
  if (!id || !username) return null
  const edgeCount = (edge: unknown) => (isObject(edge) && typeof edge.count === 'number' ? edge.count : null)
  return {
    id,
    username,
    is_private: bool(user.is_private),
    followed_by_viewer: bool(user.followed_by_viewer),
    followers: edgeCount(user.edge_followed_by) ?? (typeof user.follower_count === 'number' ? user.follower_count : null),
    following: edgeCount(user.edge_follow) ?? (typeof user.following_count === 'number' ? user.following_count : null),
  }
}

/** The `users` of a friendships page as rows. */
export function accountRows (body: unknown, ofUsername: string, relation: Relation): AccountRow[] {
  if (!isObject(body) || !Array.isArray(body.users)) return []
  const rows: AccountRow[] = []
  for (const user of body.users) {
    if (!isObject(user)) continue
    // pk is a number on older answers, a string (with pk_id) on newer ones; ids past 2^53 only survive as strings.
    const id = str(user.pk_id) ?? str(user.id) ?? str(user.pk)
    const username = str(user.username)
    if (!id || !username) continue
    rows.push({
      of_username: ofUsername,
      relation,
      username,
      full_name: str(user.full_name),
      id,
      verified: bool(user.is_verified),
      private: bool(user.is_private),
      profile_pic_url: str(user.profile_pic_url),
    })
  }
  return rows
}

/** `next_max_id` of a friendships page, or null on the last one. */
export function nextMaxId (body: unknown): string | null {
  if (!isObject(body)) return null
  return str(body.next_max_id)
}

/** An account name as given (`@name`, `name`, an instagram.com profile link) -> the bare username, or null. */
export function instagramUsernameOf (value: string): string | null {
  const text = value.trim()
  const handle = /^@?([A-Za-z0-9._]{1,30})$/.exec(text)
  if (handle) return handle[1]!.toLowerCase()
  const first = linkOnHost(text, host => host === 'instagram.com' || host.endsWith('.instagram.com'))?.pathname.split('/').filter(Boolean)[0]
  if (!first || ['p', 'reel', 'reels', 'tv', 'stories', 'explore', 'accounts'].includes(first)) return null
  return /^[A-Za-z0-9._]{1,30}$/.test(first) ? first.toLowerCase() : null
}

export type InstagramOutcome =
  | { kind: 'ok' }
  | { kind: 'blocked', reason: string }
  | { kind: 'not-found', reason: string }
  | { kind: 'failed', reason: string }

// The `message` values Instagram sends when it stops trusting the session: each needs a person (a challenge, a fresh login), not another try.
const CHECKPOINT_MESSAGES = new Set(['checkpoint_required', 'challenge_required'])

/**
 * What an Instagram web API answer means. `location` is the redirect target
 * (requests are sent with manual redirects): a hop to /accounts/login or
 * /challenge is the web's way of saying the session is not logged in.
 */
export function instagramOutcome (status: number, body: unknown, location: string | null): InstagramOutcome {
  const message = isObject(body) ? str(body.message) : null
  const failed = isObject(body) && body.status === 'fail'
  if (location && /\/accounts\/login/.test(location)) return { kind: 'blocked', reason: 'Instagram redirected to its login page: the session (INSTAGRAM_SESSION_ID) is logged out or expired' }
  if (location && /\/challenge/.test(location)) return { kind: 'blocked', reason: 'Instagram redirected to a security checkpoint: the account must confirm the session in the app' }
  if (message && CHECKPOINT_MESSAGES.has(message)) return { kind: 'blocked', reason: `Instagram asks for a security checkpoint (${message}): the account must confirm the session in the app` }
  if (message === 'login_required' || (isObject(body) && body.require_login === true && status !== 429)) return { kind: 'blocked', reason: 'Instagram answered login_required: the session (INSTAGRAM_SESSION_ID) is logged out or expired' }
  if (status === 429 || (message !== null && /please wait a few minutes/i.test(message))) return { kind: 'blocked', reason: `Instagram is rate-limiting this session${message ? ` ("${message}")` : ' (HTTP 429)'}` }
  if (message === 'feedback_required') return { kind: 'blocked', reason: 'Instagram answered feedback_required: the session is restricted for now' }
  if (status === 401 || status === 403) return { kind: 'blocked', reason: `Instagram refused the request (HTTP ${status}${message ? `: ${message}` : ''})` }
  if (status === 404) return { kind: 'not-found', reason: message ?? 'no such account' }
  if (status >= 300 && status < 400) return { kind: 'blocked', reason: `Instagram redirected the request (HTTP ${status})` }
  if (status < 200 || status >= 300 || failed) return { kind: 'failed', reason: `Instagram answered HTTP ${status}${message ? `: ${message}` : ''}` }
  if (!isObject(body)) return { kind: 'blocked', reason: 'Instagram answered a page instead of JSON (a login or consent wall)' }
  return { kind: 'ok' }
}
