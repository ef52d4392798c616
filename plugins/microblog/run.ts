// Fetches X API v2 pages through the guarded client and pushes rows: recent
// search (GET /2/tweets/search/recent, paged by `next_token`), a user's
// timeline (GET /2/users/by/username/:name -> id -> GET /2/users/:id/tweets,
// paged by `pagination_token`), posts by id (GET /2/tweets?ids=, 100 a request).
// Parsing is in extract.ts; the first refusal ends the job (no retry loop).
import { eachItem, InputError, listItems, MissingCredentialError, ToolBlockedError, UpstreamError, type RunInput, type Static, type ToolContext } from '../../core/tools/contract.ts'
import type { microblogInput, microblogRow } from './schema.ts'
import type { MicroblogSettings } from './settings.ts'
import { POSTS_LIST, QUERIES_LIST, USERNAMES_LIST } from './list.ts'
import { nextToken, partialErrors, postIdOf, tweetRows, userIdOf, usernameOf, xOutcome, type MicroblogMode, type MicroblogRow } from './extract.ts'

type Ctx = ToolContext<RunInput<typeof microblogInput>, Static<typeof microblogRow>, MicroblogSettings>

// What every tweet request asks for: the author expanded beside each post, and every public count.
export const TWEET_FIELDS = 'created_at,lang,public_metrics,conversation_id,in_reply_to_user_id,referenced_tweets,entities,possibly_sensitive,author_id'
export const USER_FIELDS = 'username,name,verified,profile_image_url,public_metrics'
const IDS_PER_LOOKUP = 100

export async function runMicroblog (ctx: Ctx): Promise<void> {
  const variable = ctx.upstream.credentialNames.bearer ?? 'X_BEARER_TOKEN'
  // Checked before any request: no token, no call, and the error names the variable.
  const token = ctx.upstream.credential('bearer')
  if (!token) throw new MissingCredentialError(variable, 'The X posts tool (microblog)')
  const base = (ctx.upstream.urls.api ?? 'https://api.x.com').replace(/\/+$/, '')
  const input = ctx.input
  const settings = ctx.settings
  let requests = 0

  async function get (path: string, params: Record<string, string>): Promise<unknown> {
    const url = new URL(`${base}${path}`)
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
    requests++
    const res = await ctx.http.text(url, { timeoutMs: settings.timeout_ms, maxRedirects: 0, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } })
    let body: unknown = null
    try { body = JSON.parse(res.body) } catch {}
    const outcome = xOutcome(res.status, body, res.headers.get('x-rate-limit-reset'))
    switch (outcome.kind) {
      case 'ok': return body
      case 'rate-limited': throw new ToolBlockedError(outcome.reason)
      case 'forbidden': throw new ToolBlockedError(outcome.reason)
      case 'token': throw new UpstreamError(`${outcome.reason}. Check ${variable}.`, res.status)
      case 'input': throw new InputError(outcome.reason)
      case 'failed': throw new UpstreamError(outcome.reason, res.status)
    }
  }

  const wanted = Math.min(input.max_results, ctx.remaining())
  let pushed = 0
  const push = async (rows: MicroblogRow[], budget: number): Promise<number> => {
    const kept = rows.length ? await ctx.push(rows.slice(0, Math.max(0, budget))) : 0
    pushed += kept
    return kept
  }

  /** Pages one search or timeline until its budget, the per-run cap or the last page. */
  async function paged (mode: MicroblogMode, item: string, path: string, params: Record<string, string>, tokenParam: string, budget: number): Promise<number> {
    let got = 0
    let cursor: string | null = null
    let pages = 0
    while (got < budget && ctx.remaining() > 0) {
      if (ctx.signal.aborted) throw ctx.signal.reason
      // The API's floor is 10 per search page (5 on timelines); asking for more than is left costs nothing extra.
      const pageSize = Math.max(10, Math.min(settings.page_size, budget - got))
      ctx.stage(`${mode === 'search' ? 'Searching' : 'Reading the timeline of'} ${item}: page ${pages + 1}, ${pushed} posts so far`)
      const body = await get(path, { ...params, max_results: String(pageSize), 'tweet.fields': TWEET_FIELDS, expansions: 'author_id', 'user.fields': USER_FIELDS, ...(cursor ? { [tokenParam]: cursor } : {}) })
      pages++
      const rows = tweetRows(body, mode, item)
      got += await push(rows, budget - got)
      cursor = nextToken(body)
      if (!cursor || rows.length === 0) break
    }
    return got
  }

  // The kernel has refused a call giving none or several of the three lists (the schema's oneOf).
  const queries = input.query !== undefined ? listItems(ctx, QUERIES_LIST) : []
  const usernames = input.username !== undefined ? listItems(ctx, USERNAMES_LIST) : []
  const urls = input.url !== undefined ? listItems(ctx, POSTS_LIST) : []

  if (input.query !== undefined) {
    await eachItem(ctx, QUERIES_LIST, queries, async (query, i) => {
      // Each item of a list gets its share of what is left, so the first query cannot take the whole cap.
      const budget = Math.ceil((wanted - pushed) / (queries.length - i))
      const got = await paged('search', query, '/2/tweets/search/recent', { query, sort_order: input.sort_order }, 'next_token', budget)
      if (got === 0) ctx.warn(`No recent posts (last 7 days) match "${query}".`)
      return []
    })
  } else if (input.username !== undefined) {
    const exclude = [input.exclude_replies ? 'replies' : null, input.exclude_reposts ? 'retweets' : null].filter(Boolean).join(',')
    await eachItem(ctx, USERNAMES_LIST, usernames, async (given, i) => {
      const username = usernameOf(given)
      if (!username) { ctx.warn(`"${given}" is not an X username or profile link.`); return [] }
      ctx.stage(`Looking up @${username}`)
      const lookup = await get(`/2/users/by/username/${encodeURIComponent(username)}`, {})
      const userId = userIdOf(lookup)
      if (!userId) { ctx.warn(`@${username}: ${partialErrors(lookup)[0] ?? 'not found'}.`); return [] }
      const budget = Math.ceil((wanted - pushed) / (usernames.length - i))
      const got = await paged('timeline', given, `/2/users/${encodeURIComponent(userId)}/tweets`, exclude ? { exclude } : {}, 'pagination_token', budget)
      if (got === 0) ctx.warn(`@${username} has no posts to show${exclude ? ` (without ${exclude})` : ''}.`)
      return []
    })
  } else if (input.url !== undefined) {
    const idOf = new Map<string, string>()
    for (const given of urls) {
      const id = postIdOf(given)
      if (id) { if (!idOf.has(id)) idOf.set(id, given) } else ctx.warn(`"${given}" is not an X post link or id.`)
    }
    const ids = [...idOf.keys()]
    for (let i = 0; i < ids.length && ctx.remaining() > 0; i += IDS_PER_LOOKUP) {
      if (ctx.signal.aborted) throw ctx.signal.reason
      const chunk = ids.slice(i, i + IDS_PER_LOOKUP)
      ctx.stage(`Looking up ${chunk.length} posts, ${pushed} so far`)
      const body = await get('/2/tweets', { ids: chunk.join(','), 'tweet.fields': TWEET_FIELDS, expansions: 'author_id', 'user.fields': USER_FIELDS })
      // Each row names the link it came from; the lookup answers by id.
      const rows = tweetRows(body, 'post', '').map(row => ({ ...row, input: idOf.get(row.id) ?? row.id }))
      await push(rows, wanted - pushed)
      for (const error of partialErrors(body)) ctx.warn(error)
    }
  } else {
    throw new InputError('Give query (a search), username (a timeline) or url (posts by link or id).')
  }

  ctx.summary({ requests })
  if (pushed === 0 && queries.length + usernames.length + urls.length > 0) ctx.warn('The X API returned no posts for this call.')
}
