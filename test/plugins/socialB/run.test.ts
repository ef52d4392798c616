// socialB jobs through the kernel against a local Instagram web API stand-in:
// username -> id, followers and following paged by next_max_id with the
// session cookie and app-id header, pacing, lists, and each refusal (login
// redirect, login_required, checkpoint, 429) ending the job blocked and
// refunded after one request; then the same job through the agent endpoint.
import t from 'tap'
import { connect } from '../../agent/_agent.ts'
import { waitForEnd } from '../../helpers/jobs.ts'
import { jobHarness, PLUGINS, type ToolEntry } from '../products/_harness.ts'
import { IG_SESSION, startInstagramStandin } from './_instagram-standin.ts'

const socialBTool = (web: string, settings: Record<string, unknown> = {}): ToolEntry => ({
  key: 'socialB', plugin: `${PLUGINS}/socialB`, enabled: true, upstream: { web }, credentials: { session: 'INSTAGRAM_SESSION_ID' }, settings: { page_delay_ms: 0, ...settings },
})

t.test('followers: the username resolved to its id, then pages by next_max_id to max_results', async t => {
  const ig = await startInstagramStandin(t, { total: 30 })
  const h = await jobHarness(t, [socialBTool(ig.base, { page_size: 10 })], { INSTAGRAM_SESSION_ID: IG_SESSION })
  const { status, rows } = await h.run('socialB', { username: '@NASA', max_results: 25 })
  t.match(status, { status: 'done', records: 25 })
  t.same(rows[0], { of_username: 'nasa', relation: 'followers', username: 'followers_528817151_1', full_name: 'Person 1', id: '52881715110001', verified: false, private: false, profile_pic_url: 'https://scontent.cdninstagram.com/v/t51.2885-19/1.jpg' })
  t.equal(new Set(rows.map(r => r.id)).size, 25)
  const [lookup, ...pages] = ig.requests
  t.equal(lookup!.url.pathname, '/api/v1/users/web_profile_info/')
  t.equal(lookup!.url.searchParams.get('username'), 'nasa')
  t.equal(lookup!.headers.cookie, `sessionid=${encodeURIComponent(IG_SESSION)}`)
  t.equal(lookup!.headers['x-ig-app-id'], '936619743392459')
  t.same(pages.map(p => p.url.pathname), Array(3).fill('/api/v1/friendships/528817151/followers/'))
  t.same(pages.map(p => [p.url.searchParams.get('count'), p.url.searchParams.get('max_id')]), [['10', null], ['10', '10'], ['5', '20']], 'the last page asks only for what is left')
})

t.test('following ends on the page without next_max_id; pacing waits between pages', async t => {
  const ig = await startInstagramStandin(t, { total: 7 })
  const h = await jobHarness(t, [socialBTool(ig.base, { page_size: 3, page_delay_ms: 40 })], { INSTAGRAM_SESSION_ID: IG_SESSION })
  const started = Date.now()
  const { status, rows } = await h.run('socialB', { username: 'https://www.instagram.com/nasa/', relation: 'following', max_results: 100 })
  t.match(status, { status: 'done', records: 7 })
  t.ok(rows.every(r => r.relation === 'following' && r.username.startsWith('following_')))
  t.equal(ig.requests.filter(r => r.url.pathname.endsWith('/following/')).length, 3)
  t.ok(Date.now() - started >= 3 * 40, 'three pauses of page_delay_ms')
})

t.test('a list shares the cap; an unknown and a private account are warnings', async t => {
  const ig = await startInstagramStandin(t, { total: 50 })
  const h = await jobHarness(t, [socialBTool(ig.base)], { INSTAGRAM_SESSION_ID: IG_SESSION })
  const { status, rows } = await h.run('socialB', { username: ['nasa', 'nobody_here', 'secret_garden', 'natgeo'], max_results: 20 })
  t.match(status, { status: 'done', records: 20 })
  t.match(status.warning, /nobody_here: no such Instagram account/)
  t.match(status.warning, /secret_garden is private/)
  t.same([...new Set(rows.map(r => r.of_username))], ['nasa', 'natgeo'])
})

t.test('without INSTAGRAM_SESSION_ID the job fails fast naming the variable, refunded, no request sent', async t => {
  const ig = await startInstagramStandin(t)
  const h = await jobHarness(t, [socialBTool(ig.base)], { INSTAGRAM_SESSION_ID: undefined })
  const { status } = await h.run('socialB', { username: 'nasa' })
  t.match(status, { status: 'error', refunded: true, blocked: false })
  t.match(status.error, /INSTAGRAM_SESSION_ID/)
  t.equal(ig.requests.length, 0)
})

for (const [refusal, pattern] of [['login-redirect', /login page/], ['login-required', /login_required/], ['checkpoint', /checkpoint/], ['rate-limit', /rate-limiting.*Please wait a few minutes/]] as const) {
  t.test(`${refusal} mid-list ends the job blocked and refunded, with no retry`, async t => {
    const ig = await startInstagramStandin(t, { total: 40, refuse: { from: 2, with: refusal } })
    const h = await jobHarness(t, [socialBTool(ig.base, { page_size: 10 })], { INSTAGRAM_SESSION_ID: IG_SESSION })
    const { status } = await h.run('socialB', { username: 'nasa', max_results: 40 })
    t.match(status, { status: 'error', blocked: true, refunded: true })
    t.match(status.error, pattern)
    t.notOk(status.error.includes(IG_SESSION), 'the session never shows')
    t.equal(ig.requests.filter(r => r.url.pathname.startsWith('/api/v1/friendships/')).length, 2, 'the refused page was asked once')
    t.equal((await h.usage()).calls_today, 0)
  })
}

t.test('an expired session: the profile lookup redirects to the login page → blocked', async t => {
  const ig = await startInstagramStandin(t)
  const h = await jobHarness(t, [socialBTool(ig.base)], { INSTAGRAM_SESSION_ID: 'expired-session' })
  const { status } = await h.run('socialB', { username: 'nasa' })
  t.match(status, { status: 'error', blocked: true, refunded: true })
  t.match(status.error, /login page/)
  t.equal(ig.requests.length, 1)
})

t.test('cancelling a paced job stops it during the pause', async t => {
  const ig = await startInstagramStandin(t, { total: 100 })
  const h = await jobHarness(t, [socialBTool(ig.base, { page_size: 5, page_delay_ms: 60_000 })], { INSTAGRAM_SESSION_ID: IG_SESSION })
  const start = await h.app.inject({ method: 'POST', url: '/api/tool-run', headers: { 'x-api-key': h.user.apiKey }, payload: { tool: 'socialB', params: { username: 'nasa' } } })
  const id = start.json().job_id
  const deadline = Date.now() + 10_000
  while (!ig.requests.length && Date.now() < deadline) await new Promise(r => setTimeout(r, 20))
  await h.app.inject({ method: 'DELETE', url: `/api/tool-run/${id}`, headers: { 'x-api-key': h.user.apiKey } })
  const status = await waitForEnd(h.app, h.user.apiKey, id, 5_000)
  t.match(status, { status: 'cancelled', error: 'cancelled', refunded: true })
  t.equal(ig.requests.filter(r => r.url.pathname.startsWith('/api/v1/friendships/')).length, 0, 'no page was asked after the cancel')
})

t.test('the same job through tool-run and the agent endpoint gives the same rows', async t => {
  const ig = await startInstagramStandin(t, { total: 30 })
  const h = await jobHarness(t, [socialBTool(ig.base, { page_size: 10 })], { INSTAGRAM_SESSION_ID: IG_SESSION })
  const fromToolRun = (await h.run('socialB', { username: 'nasa', relation: 'following', max_results: 15 })).rows
  t.equal(fromToolRun.length, 15)
  await h.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = h.app.server.address() as { port: number }
  const client = await connect(t, `http://127.0.0.1:${port}`, h.user.apiKey)
  const called = await client.callTool({ name: 'socialB_scrape', arguments: { username: 'nasa', relation: 'following', limit: 15, wait_seconds: 20 } }) as { structuredContent?: any, isError?: boolean }
  t.notOk(called.isError)
  let content = called.structuredContent
  if (content.status === 'running') {
    await waitForEnd(h.app, h.user.apiKey, content.job_id, 20_000)
    content = { ...content, results: (await h.app.inject({ url: `/api/tool-run/${content.job_id}/results`, headers: { 'x-api-key': h.user.apiKey } })).json().results }
  }
  t.same(content.results, fromToolRun)
})
