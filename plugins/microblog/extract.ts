// Pure parsing of X API v2 answers: tweet pages (data + includes.users) ->
// rows with the author and the engagement counts, error bodies -> outcomes,
// `meta.next_token` -> the next page, post links -> ids. No I/O here: run.ts
// fetches, pages and pushes; the tests feed these the real captures.

import { linkOnHost } from '../lib/domains.ts'
import { booleanOf, isRecord, textOf, type Json } from '../lib/json.ts'

const isObject = isRecord

/** How a row was found: a recent search, a user's timeline, or a lookup of posts by link or id. */
export type MicroblogMode = 'search' | 'timeline' | 'post'

export interface MicroblogRow {
  mode: MicroblogMode
  input: string
  id: string
  url: string
  text: string
  created_at: string | null
  lang: string | null
  conversation_id: string | null
  in_reply_to_user_id: string | null
  referenced_tweets: Array<{ type: string, id: string }>
  hashtags: string[]
  mentions: string[]
  links: string[]
  possibly_sensitive: boolean | null
  author_id: string | null
  author_username: string | null
  author_name: string | null
  author_verified: boolean | null
  author_followers: number | null
  author_profile_image_url: string | null
  like_count: number | null
  repost_count: number | null
  reply_count: number | null
  quote_count: number | null
  bookmark_count: number | null
  impression_count: number | null
}

const str = textOf
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.trunc(v) : null)
const bool = booleanOf
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : [])

/** The `includes.users` of a page by id, so each tweet finds its author. */
function usersById (body: Json): Map<string, Json> {
  const includes = isObject(body.includes) ? body.includes : {}
  const byId = new Map<string, Json>()
  for (const user of list(includes.users)) {
    const id = str(user.id)
    if (id) byId.set(id, user)
  }
  return byId
}

/** The tweets of an answer, each joined to its author (expansions=author_id). */
export function tweetRows (body: unknown, mode: MicroblogMode, input: string): MicroblogRow[] {
  if (!isObject(body)) return []
  // /2/tweets/search/recent and /2/users/:id/tweets answer a list; a single-tweet lookup an object.
  const tweets = Array.isArray(body.data) ? list(body.data) : isObject(body.data) ? [body.data] : []
  const authors = usersById(body)
  const rows: MicroblogRow[] = []
  for (const tweet of tweets) {
    const id = str(tweet.id)
    if (!id) continue
    const authorId = str(tweet.author_id)
    const author = authorId ? authors.get(authorId) : undefined
    const username = author ? str(author.username) : null
    const metrics = isObject(tweet.public_metrics) ? tweet.public_metrics : {}
    const userMetrics = author && isObject(author.public_metrics) ? author.public_metrics : {}
    const entities = isObject(tweet.entities) ? tweet.entities : {}
    rows.push({
      mode,
      input,
      id,
      // x.com/i/web/status/<id> works without the author; with it, the canonical form.
      url: username ? `https://x.com/${username}/status/${id}` : `https://x.com/i/web/status/${id}`,
      text: typeof tweet.text === 'string' ? tweet.text : '',
      created_at: str(tweet.created_at),
      lang: str(tweet.lang),
      conversation_id: str(tweet.conversation_id),
      in_reply_to_user_id: str(tweet.in_reply_to_user_id),
      referenced_tweets: list(tweet.referenced_tweets).flatMap(r => {
        const type = str(r.type)
        const refId = str(r.id)
        return type && refId ? [{ type, id: refId }] : []
      }),
      hashtags: [...new Set(list(entities.hashtags).map(h => str(h.tag)).filter((s): s is string => s !== null))],
      mentions: [...new Set(list(entities.mentions).map(m => str(m.username)).filter((s): s is string => s !== null))],
      links: [...new Set(list(entities.urls).map(u => str(u.expanded_url) ?? str(u.url)).filter((s): s is string => s !== null))],
      possibly_sensitive: bool(tweet.possibly_sensitive),
      author_id: authorId,
      author_username: username,
      author_name: author ? str(author.name) : null,
      author_verified: author ? bool(author.verified) : null,
      author_followers: count(userMetrics.followers_count),
      author_profile_image_url: author ? str(author.profile_image_url) : null,
      like_count: count(metrics.like_count),
      repost_count: count(metrics.retweet_count),
      reply_count: count(metrics.reply_count),
      quote_count: count(metrics.quote_count),
      bookmark_count: count(metrics.bookmark_count),
      // Only the author's own app context sees impressions on some plans: absent stays null.
      impression_count: count(metrics.impression_count),
    })
  }
  return rows
}

/** `meta.next_token`, or null on the last page. */
export function nextToken (body: unknown): string | null {
  if (!isObject(body) || !isObject(body.meta)) return null
  return str(body.meta.next_token)
}

/** The id of /2/users/by/username/:name, or null when the user was not found (an `errors` answer). */
export function userIdOf (body: unknown): string | null {
  if (!isObject(body) || !isObject(body.data)) return null
  return str(body.data.id)
}

/** The partial errors of a 200 answer (a username not found, a deleted post), as short texts. */
export function partialErrors (body: unknown): string[] {
  if (!isObject(body)) return []
  return list(body.errors).map(e => str(e.detail) ?? str(e.message) ?? str(e.title) ?? 'unknown error')
}

const HANDLE = /^@?([A-Za-z0-9_]{1,15})$/
const PROFILE_HOSTS = new Set(['x.com', 'twitter.com', 'mobile.twitter.com', 'mobile.x.com', 'www.x.com', 'www.twitter.com'])

/** A handle as given (`@name`, `name`, or a profile link) -> the bare username, or null. */
export function usernameOf (value: string): string | null {
  const text = value.trim()
  const handle = HANDLE.exec(text)
  if (handle) return handle[1]!
  const first = linkOnHost(text, host => PROFILE_HOSTS.has(host))?.pathname.split('/').filter(Boolean)[0]
  return first && HANDLE.test(first) ? first : null
}

/** A post link (x.com/<user>/status/<id>, twitter.com/i/web/status/<id>, mobile hosts) or a bare id -> the id, or null. */
export function postIdOf (value: string): string | null {
  const text = value.trim()
  if (/^\d{1,20}$/.test(text)) return text
  const url = linkOnHost(text, host => PROFILE_HOSTS.has(host))
  const match = url && /\/status(?:es)?\/(\d{1,20})(?:\/|$)/.exec(url.pathname)
  return match ? match[1]! : null
}

export type XOutcome =
  | { kind: 'ok' }
  | { kind: 'rate-limited', reason: string }
  | { kind: 'token', reason: string }
  | { kind: 'forbidden', reason: string }
  | { kind: 'input', reason: string }
  | { kind: 'failed', reason: string }

/** The problem text of an X API error body: `detail`, else the first error's message, else the title. */
function problemText (body: unknown): string | null {
  if (!isObject(body)) return null
  const first = list(body.errors)[0]
  const firstText = first ? str(first.message) ?? str(first.detail) : null
  return [str(body.title), firstText ?? str(body.detail), str(body.reason)].filter(Boolean).join(': ') || null
}

/**
 * What an X API answer means. `resetHeader` is the `x-rate-limit-reset` header
 * (epoch seconds): on a 429 it says when the window reopens, in the job's error.
 */
export function xOutcome (status: number, body: unknown, resetHeader: string | null): XOutcome {
  const problem = problemText(body)
  const detail = problem ? ` (${problem})` : ''
  if (status === 429) {
    const reset = resetHeader && /^\d{9,11}$/.test(resetHeader.trim()) ? new Date(Number(resetHeader.trim()) * 1000).toISOString() : null
    return { kind: 'rate-limited', reason: `the X API rate limit is used up${reset ? ` until ${reset} (x-rate-limit-reset)` : ''}; try again after it resets` }
  }
  if (status === 401) return { kind: 'token', reason: `the X API rejected the bearer token (HTTP 401${detail})` }
  // 403: the app's access level does not include this endpoint (client-not-enrolled), or the account is protected or suspended.
  if (status === 403) return { kind: 'forbidden', reason: `the X API refused the request (HTTP 403${detail})` }
  if (status === 400) return { kind: 'input', reason: `the X API refused the request as invalid${detail}` }
  if (status < 200 || status >= 300) return { kind: 'failed', reason: `the X API answered HTTP ${status}${detail}` }
  if (!isObject(body)) return { kind: 'failed', reason: 'the X API answered something that is not a JSON object' }
  return { kind: 'ok' }
}
