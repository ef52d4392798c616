// microblog jobs through the kernel against a local X API v2 stand-in: recent
// search paged by next_token, a timeline looked up by username and paged by
// pagination_token, posts by link, lists sharing the per-run cap, and every
// way the API refuses (no token, 401, 403, 400, 429 with its reset time);
// then the same job through tool-run and the agent endpoint.
import t from 'tap'
import { connect } from '../../agent/_agent.ts'
import { waitForEnd } from '../../helpers/jobs.ts'
import { jobHarness, PLUGINS, type ToolEntry } from '../products/_harness.ts'
import { startXStandin, X_TOKEN } from './_x-standin.ts'

const microblogTool = (api: string, settings: Record<string, unknown> = {}): ToolEntry => ({
  key: 'microblog', plugin: `${PLUGINS}/microblog`, enabled: true, upstream: { api }, credentials: { bearer: 'X_BEARER_TOKEN' }, settings,
})

t.test('recent search pages with next_token to max_results; author and counts on every row', async t => {
  const x = await startXStandin(t, { total: 25 })
  const h = await jobHarness(t, [microblogTool(x.base, { page_size: 10 })], { X_BEARER_TOKEN: X_TOKEN })
  const { status, rows } = await h.run('microblog', { query: 'space', max_results: 23 })
  t.match(status, { status: 'done', records: 23 })
  t.equal(rows.length, 23)
  t.equal(new Set(rows.map(r => r.id)).size, 23, 'no post twice across pages')
  t.match(rows[0], {
    mode: 'search', input: 'space', text: 'post 1 #space @XDevelopers https://t.co/x1', author_username: 'XDevelopers', author_name: 'Developers', author_verified: true, author_followers: 570000,
    like_count: 10, repost_count: 1, reply_count: 2, quote_count: 1, bookmark_count: 3, impression_count: 100, hashtags: ['space'], mentions: ['XDevelopers'], links: ['https://example.com/1'],
  })
  t.ok(rows.every(r => r.author_username && typeof r.like_count === 'number' && typeof r.repost_count === 'number'), 'every row has its author and counts')
  const searches = x.requests.filter(r => r.url.pathname === '/2/tweets/search/recent')
  t.equal(searches.length, 3)
  const q = searches[0]!.url.searchParams
  t.equal(q.get('query'), 'space')
  t.equal(q.get('expansions'), 'author_id')
  t.match(q.get('tweet.fields'), /public_metrics/)
  t.match(q.get('user.fields'), /username/)
  t.equal(q.get('max_results'), '10')
  t.equal(q.get('sort_order'), 'recency')
  t.equal(searches[1]!.url.searchParams.get('next_token'), 'tok-10')
  t.equal(searches[2]!.url.searchParams.get('next_token'), 'tok-20')
  t.equal(searches[2]!.url.searchParams.get('max_results'), '10', 'never under the API floor of 10')
})

t.test('a timeline: username looked up to an id, then paged with pagination_token to the last page', async t => {
  const x = await startXStandin(t, { total: 12 })
  const h = await jobHarness(t, [microblogTool(x.base, { page_size: 10 })], { X_BEARER_TOKEN: X_TOKEN })
  const { status, rows } = await h.run('microblog', { username: 'https://x.com/NASA', exclude_replies: true, max_results: 100 })
  t.match(status, { status: 'done', records: 12 })
  t.ok(rows.every(r => r.mode === 'timeline' && r.author_username === 'NASA' && r.input === 'https://x.com/NASA'))
  t.equal(x.requests[0]!.url.pathname, '/2/users/by/username/NASA')
  const pages = x.requests.filter(r => r.url.pathname === '/2/users/11348282/tweets')
  t.equal(pages.length, 2)
  t.equal(pages[0]!.url.searchParams.get('exclude'), 'replies')
  t.equal(pages[1]!.url.searchParams.get('pagination_token'), 'tok-10')
})

t.test('a list of usernames shares the cap; an unknown user is a warning, not a failure', async t => {
  const x = await startXStandin(t, { total: 30 })
  const h = await jobHarness(t, [microblogTool(x.base)], { X_BEARER_TOKEN: X_TOKEN })
  const { status, rows } = await h.run('microblog', { username: ['@nasa', 'no_such_user_1', 'XDevelopers'], max_results: 20 })
  t.match(status, { status: 'done', records: 20 })
  t.match(status.warning, /no_such_user_1.*Could not find user/)
  t.same([...new Set(rows.map(r => r.input))], ['@nasa', 'XDevelopers'], 'both found users got rows')
})

t.test('posts by link and id, 100 ids a lookup; a missing post is a warning', async t => {
  const x = await startXStandin(t)
  const h = await jobHarness(t, [microblogTool(x.base)], { X_BEARER_TOKEN: X_TOKEN })
  const { status, rows } = await h.run('microblog', { url: ['https://x.com/NASA/status/1002', '1003', 'https://twitter.com/i/web/status/404', 'https://example.com/nope'] })
  t.match(status, { status: 'done', records: 2 })
  t.same(rows.map(r => [r.id, r.input, r.mode]), [['1002', 'https://x.com/NASA/status/1002', 'post'], ['1003', '1003', 'post']])
  t.match(status.warning, /example\.com\/nope.*not an X post link/)
  t.match(status.warning, /Could not find tweet with ids: \[404\]/)
  const lookups = x.requests.filter(r => r.url.pathname === '/2/tweets')
  t.equal(lookups.length, 1)
  t.equal(lookups[0]!.url.searchParams.get('ids'), '1002,1003,404')
})

t.test('without X_BEARER_TOKEN the job fails fast naming the variable, refunded, no request sent', async t => {
  const x = await startXStandin(t)
  const h = await jobHarness(t, [microblogTool(x.base)], { X_BEARER_TOKEN: undefined })
  const { status } = await h.run('microblog', { query: 'space' })
  t.match(status, { status: 'error', refunded: true, blocked: false })
  t.match(status.error, /X_BEARER_TOKEN/)
  t.equal(x.requests.length, 0)
  t.equal((await h.usage()).calls_today, 0)
})

t.test('429 ends the job blocked and refunded, with the reset time from x-rate-limit-reset; one request, no retry', async t => {
  const x = await startXStandin(t, { rateLimited: true })
  const h = await jobHarness(t, [microblogTool(x.base)], { X_BEARER_TOKEN: X_TOKEN })
  const { status } = await h.run('microblog', { query: 'space' })
  t.match(status, { status: 'error', blocked: true, refunded: true })
  t.match(status.error, /rate limit.*until 2026-01-01T00:00:00\.000Z/)
  t.equal(x.requests.length, 1)
  t.equal((await h.usage()).calls_today, 0)
})

t.test('401 (rejected token) is an upstream error naming the variable; 403 (access level) is blocked; 400 is the caller\'s', async t => {
  const x = await startXStandin(t)
  const wrong = await jobHarness(t, [microblogTool(x.base)], { X_BEARER_TOKEN: 'wrong-bearer-token-value' })
  const a = await wrong.run('microblog', { query: 'space' })
  t.match(a.status, { status: 'error', blocked: false, refunded: true })
  t.match(a.status.error, /rejected the bearer token.*X_BEARER_TOKEN/)
  t.notOk(a.status.error.includes('wrong-bearer-token-value'))

  const forbidden = await startXStandin(t, { forbidden: true })
  const h403 = await jobHarness(t, [microblogTool(forbidden.base)], { X_BEARER_TOKEN: X_TOKEN })
  const b = await h403.run('microblog', { username: 'nasa' })
  t.match(b.status, { status: 'error', blocked: true, refunded: true })
  t.match(b.status.error, /HTTP 403.*client-not-enrolled/)

  const h400 = await jobHarness(t, [microblogTool(x.base)], { X_BEARER_TOKEN: X_TOKEN })
  const c = await h400.run('microblog', { query: '(((' })
  t.match(c.status, { status: 'error', blocked: false, refunded: false })
  t.match(c.status.error, /invalid.*Ambiguous use/)
})

t.test('none, or two of query/username/url, is a 400 before any charge', async t => {
  const h = await jobHarness(t, [microblogTool('http://127.0.0.1:1')], { X_BEARER_TOKEN: X_TOKEN })
  const none = await h.run('microblog', { max_results: 5 })
  t.equal(none.started, 400)
  t.match(none.status.detail, /query.*username.*url/)
  const two = await h.run('microblog', { query: 'a', username: 'b' })
  t.equal(two.started, 400)
  t.equal((await h.usage()).calls_today, 0)
})

t.test('the same job through tool-run and the agent endpoint gives the same rows', async t => {
  const x = await startXStandin(t, { total: 15 })
  const h = await jobHarness(t, [microblogTool(x.base)], { X_BEARER_TOKEN: X_TOKEN })
  const fromToolRun = (await h.run('microblog', { query: 'space', max_results: 12 })).rows
  t.equal(fromToolRun.length, 12)
  await h.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = h.app.server.address() as { port: number }
  const client = await connect(t, `http://127.0.0.1:${port}`, h.user.apiKey)
  const listed = (await client.listTools()).tools.find(x => x.name === 'microblog_scrape')
  t.ok(listed, 'microblog_scrape is listed')
  t.ok((listed!.inputSchema.properties as Record<string, unknown>).limit, 'the agent sees limit (REST max_results)')
  const called = await client.callTool({ name: 'microblog_scrape', arguments: { query: 'space', limit: 12, wait_seconds: 20 } }) as { structuredContent?: any, isError?: boolean }
  t.notOk(called.isError)
  let content = called.structuredContent
  if (content.status === 'running') {
    await waitForEnd(h.app, h.user.apiKey, content.job_id, 20_000)
    content = { ...content, results: (await h.app.inject({ url: `/api/tool-run/${content.job_id}/results`, headers: { 'x-api-key': h.user.apiKey } })).json().results }
  }
  t.same(content.results, fromToolRun)
})
