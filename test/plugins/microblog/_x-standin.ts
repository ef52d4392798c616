// A local stand-in for api.x.com (X API v2) on 127.0.0.1: the real paths,
// bearer check (401 with the captured problem body), username lookup, user
// timelines paged by `pagination_token`, recent search paged by `next_token`,
// tweets lookup by ids with partial errors, and a 429 with x-rate-limit-reset.
import type { ServerResponse } from 'node:http'
import { sendJson, startServer, type RecordedRequest } from '../products/_harness.ts'

export const X_TOKEN = 'AAAAAAAAAAAAAAAAAAAAAtest-bearer-0123456789'
export const RESET_EPOCH = 1767225600 // 2026-01-01T00:00:00Z

interface Teardown { teardown (fn: () => unknown): void }

export interface XStandinOptions {
  /** Posts each search query and each user's timeline holds. */
  total?: number
  /** Answer every request with 429 (and the reset header). */
  rateLimited?: boolean
  /** Answer every request with 403 client-not-enrolled. */
  forbidden?: boolean
}

const USERS: Record<string, { id: string, name: string, followers: number }> = {
  nasa: { id: '11348282', name: 'NASA', followers: 84000000 },
  xdevelopers: { id: '2244994945', name: 'Developers', followers: 570000 },
}

const authorOf = (n: number) => (n % 2 === 0 ? 'nasa' : 'xdevelopers')
const user = (name: string) => ({ id: USERS[name]!.id, name: USERS[name]!.name, username: name === 'nasa' ? 'NASA' : 'XDevelopers', verified: true, profile_image_url: `https://pbs.twimg.com/profile_images/${name}_normal.jpg`, public_metrics: { followers_count: USERS[name]!.followers, following_count: 10, tweet_count: 1000, listed_count: 5 } })

/** Post number n of a stream (`prefix` tells searches and timelines apart), with every public count. */
function tweet (prefix: number, n: number, author: string) {
  const id = String(prefix * 1_000_000 + n)
  return {
    id, text: `post ${n} #space @XDevelopers https://t.co/x${n}`, created_at: `2026-11-${String(1 + (n % 25)).padStart(2, '0')}T10:00:00.000Z`, lang: 'en',
    author_id: USERS[author]!.id, conversation_id: id, edit_history_tweet_ids: [id], possibly_sensitive: false,
    entities: { hashtags: [{ start: 7, end: 13, tag: 'space' }], mentions: [{ start: 14, end: 26, username: 'XDevelopers', id: '2244994945' }], urls: [{ start: 27, end: 50, url: `https://t.co/x${n}`, expanded_url: `https://example.com/${n}` }] },
    public_metrics: { retweet_count: n, reply_count: n * 2, like_count: n * 10, quote_count: 1, bookmark_count: 3, impression_count: n * 100 },
  }
}

export async function startXStandin (t: Teardown, options: XStandinOptions = {}) {
  const total = options.total ?? 25
  const page = (req: RecordedRequest, res: ServerResponse, prefix: number, author: (n: number) => string, tokenParam: string) => {
    const max = Number(req.url.searchParams.get('max_results') ?? 10)
    const cursor = req.url.searchParams.get(tokenParam)
    const start = cursor ? Number(cursor.slice(4)) : 0
    const data = Array.from({ length: Math.max(0, Math.min(max, total - start)) }, (_, i) => tweet(prefix, start + i + 1, author(start + i + 1)))
    const end = start + data.length
    const authors = [...new Set(data.map(d => d.author_id))].map(id => user(Object.keys(USERS).find(k => USERS[k]!.id === id)!))
    const meta: Record<string, unknown> = { result_count: data.length, newest_id: data[0]?.id, oldest_id: data.at(-1)?.id }
    if (end < total) meta.next_token = `tok-${end}`
    sendJson(res, 200, data.length ? { data, includes: { users: authors }, meta } : { meta: { result_count: 0 } })
  }
  return startServer(t, (req, res) => {
    if (req.headers.authorization !== `Bearer ${X_TOKEN}`) return sendJson(res, 401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' })
    const rate = { 'x-rate-limit-limit': '450', 'x-rate-limit-remaining': options.rateLimited ? '0' : '449', 'x-rate-limit-reset': String(RESET_EPOCH) }
    if (options.rateLimited) return sendJson(res, 429, { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 }, rate)
    if (options.forbidden) return sendJson(res, 403, { client_id: '1', detail: 'When authenticating requests to the Twitter API v2 endpoints, you must use keys and tokens from a Twitter developer App that is attached to a Project.', registration_url: 'https://developer.twitter.com/en/docs/projects/overview', title: 'Client Forbidden', required_enrollment: 'Appropriate Level of API Access', reason: 'client-not-enrolled', type: 'https://api.twitter.com/2/problems/client-forbidden' })
    const path = req.url.pathname
    const byName = /^\/2\/users\/by\/username\/([^/]+)$/.exec(path)
    if (byName) {
      const name = decodeURIComponent(byName[1]!).toLowerCase()
      if (!USERS[name]) return sendJson(res, 200, { errors: [{ value: byName[1], detail: `Could not find user with username: [${byName[1]}].`, title: 'Not Found Error', resource_type: 'user', parameter: 'username', resource_id: byName[1], type: 'https://api.twitter.com/2/problems/resource-not-found' }] }, rate)
      return sendJson(res, 200, { data: { id: USERS[name]!.id, name: USERS[name]!.name, username: name } }, rate)
    }
    const timeline = /^\/2\/users\/(\d+)\/tweets$/.exec(path)
    if (timeline) {
      const name = Object.keys(USERS).find(k => USERS[k]!.id === timeline[1])
      if (!name) return sendJson(res, 404, { title: 'Not Found Error', detail: 'no such user' })
      return page(req, res, Number(timeline[1]!.slice(0, 3)), () => name, 'pagination_token')
    }
    if (path === '/2/tweets/search/recent') {
      const query = req.url.searchParams.get('query') ?? ''
      if (query.includes('(((')) return sendJson(res, 400, { errors: [{ parameters: { query: [query] }, message: 'There were errors processing your request: Ambiguous use of (((' }], title: 'Invalid Request', detail: 'One or more parameters to your request was invalid.', type: 'https://api.twitter.com/2/problems/invalid-request' })
      if (query === 'nothing') return sendJson(res, 200, { meta: { result_count: 0 } })
      return page(req, res, 100 + query.length, authorOf, 'next_token')
    }
    if (path === '/2/tweets') {
      const ids = (req.url.searchParams.get('ids') ?? '').split(',')
      const known = ids.filter(id => id !== '404')
      const data = known.map(id => ({ ...tweet(0, Number(id) % 1000, authorOf(Number(id))), id }))
      const errors = ids.filter(id => id === '404').map(id => ({ value: id, detail: `Could not find tweet with ids: [${id}].`, title: 'Not Found Error', resource_type: 'tweet', parameter: 'ids', resource_id: id, type: 'https://api.twitter.com/2/problems/resource-not-found' }))
      return sendJson(res, 200, { ...(data.length ? { data, includes: { users: [...new Set(data.map(d => d.author_id))].map(a => user(Object.keys(USERS).find(k => USERS[k]!.id === a)!)) } } : {}), ...(errors.length ? { errors } : {}) })
    }
    sendJson(res, 404, { title: 'Not Found Error', detail: `no route ${path}` })
  })
}
