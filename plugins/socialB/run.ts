// Instagram followers/following through the web API with a logged-in session:
// username -> id (GET /api/v1/users/web_profile_info/?username=), then
// GET /api/v1/friendships/<id>/{followers|following}/?count=&max_id= paged by
// `next_max_id`, with a pause between pages. The first refusal (checkpoint,
// login wall, rate limit) ends the job blocked: retrying only deepens the flag
// Instagram puts on the session.
import { eachItem, listItems, MissingCredentialError, ToolBlockedError, UpstreamError, type RunInput, type Static, type ToolContext } from '../../core/tools/contract.ts'
import type { socialBInput, socialBRow } from './schema.ts'
import type { SocialBSettings } from './settings.ts'
import { ACCOUNTS_LIST } from './list.ts'
import { accountRows, instagramOutcome, instagramUsernameOf, nextMaxId, profileOf, type AccountRow } from './extract.ts'

type Ctx = ToolContext<RunInput<typeof socialBInput>, Static<typeof socialBRow>, SocialBSettings>

/** Waits `ms`, or rejects with the job's abort reason as soon as the job stops. */
function pause (ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => { clearTimeout(timer); reject(signal.reason) }
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve() }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

export async function runSocialB (ctx: Ctx): Promise<void> {
  const variable = ctx.upstream.credentialNames.session ?? 'INSTAGRAM_SESSION_ID'
  // Checked before any request: no session, no call, and the error names the variable.
  const session = ctx.upstream.credential('session')
  if (!session) throw new MissingCredentialError(variable, 'The Instagram followers tool (socialB)')
  const base = (ctx.upstream.urls.web ?? 'https://www.instagram.com').replace(/\/+$/, '')
  const { relation } = ctx.input
  const settings = ctx.settings
  let requests = 0

  async function get (path: string, params: Record<string, string>, referer: string): Promise<{ status: number, body: unknown }> {
    const url = new URL(`${base}${path}`)
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
    requests++
    const res = await ctx.http.text(url, {
      timeoutMs: settings.timeout_ms,
      // A redirect is Instagram's answer (to the login page or a challenge), never a hop to follow with the session cookie.
      redirect: 'manual',
      headers: {
        cookie: `sessionid=${encodeURIComponent(session!)}`,
        'x-ig-app-id': settings.app_id,
        'x-requested-with': 'XMLHttpRequest',
        accept: 'application/json',
        referer,
      },
    })
    let body: unknown = null
    try { body = JSON.parse(res.body) } catch {}
    const outcome = instagramOutcome(res.status, body, res.headers.get('location'))
    if (outcome.kind === 'blocked') throw new ToolBlockedError(outcome.reason)
    if (outcome.kind === 'failed') throw new UpstreamError(outcome.reason, res.status)
    if (outcome.kind === 'not-found') return { status: 404, body: null }
    return { status: res.status, body }
  }

  const wanted = Math.min(ctx.input.max_results, ctx.remaining())
  let pushed = 0
  const givens = listItems(ctx, ACCOUNTS_LIST)
  let firstPage = true

  await eachItem(ctx, ACCOUNTS_LIST, givens, async (given, i, push) => {
    const username = instagramUsernameOf(given)
    if (!username) { ctx.warn(`"${given}" is not an Instagram username or profile link.`); return [] }
    const referer = `${base}/${username}/`
    if (!firstPage) await pause(settings.page_delay_ms, ctx.signal)
    firstPage = false
    ctx.stage(`Looking up @${username}`)
    const info = await get('/api/v1/users/web_profile_info/', { username }, referer)
    const profile = profileOf(info.body)
    if (!profile) { ctx.warn(`@${username}: no such Instagram account.`); return [] }
    if (profile.is_private === true && profile.followed_by_viewer === false) {
      ctx.warn(`@${username} is private and the session's account does not follow it: its ${relation} cannot be read.`)
      return []
    }
    // Each account of a list gets its share of what is left.
    const budget = Math.ceil((wanted - pushed) / (givens.length - i))
    let got = 0
    let maxId: string | null = null
    let pages = 0
    const seen = new Set<string>()
    // The pages are pushed as they come (a long list shows its first accounts early): the item returns none.
    while (got < budget && ctx.remaining() > 0) {
      await pause(settings.page_delay_ms, ctx.signal)
      ctx.stage(`@${username} ${relation}: page ${pages + 1}, ${pushed} accounts so far`)
      const page = await get(`/api/v1/friendships/${encodeURIComponent(profile.id)}/${relation}/`, {
        count: String(Math.min(settings.page_size, budget - got)),
        ...(maxId ? { max_id: maxId } : {}),
        ...(relation === 'followers' ? { search_surface: 'follow_list_page' } : {}),
      }, referer)
      pages++
      const rows: AccountRow[] = accountRows(page.body, profile.username, relation).filter(r => !seen.has(r.id) && seen.add(r.id))
      if (rows.length) {
        const kept = await push(rows.slice(0, budget - got))
        got += kept
        pushed += kept
      }
      maxId = nextMaxId(page.body)
      if (!maxId || rows.length === 0) break
    }
    if (got === 0) ctx.warn(`@${username} shows no ${relation}.`)
    return []
  })
  ctx.summary({ requests })
}
