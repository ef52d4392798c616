// The public pages over inject: what `/`, `/blog` and `/blog/<slug>` show,
// that data is escaped and blog content sanitised, the security headers on
// every HTML answer, HTML 404s for browsers and {detail} for the API, the
// stylesheet's compression and caching. The browser's view: public-pages.test.ts.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import * as cheerio from 'cheerio'
import { build, tempDir, ADMIN_KEY } from '../helpers/build.ts'
import { PAGE_CSP } from '../../core/security-headers.ts'
import { oneLine } from '../../core/features/web/pages/home-page.ts'
import { chooseCoding } from '../../core/features/web/pages/static-assets.ts'

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

/** A clock the test moves, so posts get distinct, ordered creation times. */
function steppedClock () {
  let now = Date.parse('2026-03-01T09:00:00Z')
  return { clock: () => new Date(now), step: (ms = 60_000) => { now += ms } }
}

async function publish (app: Awaited<ReturnType<typeof build>>, body: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: '/api/blog/post', headers: { 'x-api-key': ADMIN_KEY }, payload: body })
  if (res.statusCode !== 201) throw new Error(`publish failed: ${res.statusCode} ${res.body}`)
  return res.json().post as { slug: string, published_at: string }
}

function assertPageHeaders (t: Test, res: { headers: Record<string, unknown> }, what: string) {
  t.match(res.headers['content-type'], /^text\/html; charset=utf-8/, `${what}: HTML`)
  t.equal(res.headers['content-security-policy'], PAGE_CSP, `${what}: the strict CSP`)
  t.equal(res.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`)
  t.equal(res.headers['referrer-policy'], 'no-referrer', `${what}: no referrer`)
  t.equal(res.headers['x-frame-options'], 'DENY', `${what}: not framed`)
}

/** No script at all, no inline style: what the CSP would refuse is not there to refuse. */
function assertNoInlineCode (t: Test, body: string, what: string) {
  const $ = cheerio.load(body)
  t.equal($('script').length, 0, `${what}: no script element`)
  t.equal($('style').length, 0, `${what}: no style element`)
  t.equal($('[style]').length, 0, `${what}: no style attribute`)
  const handlers = $('*').toArray().flatMap(el => Object.keys((el as { attribs?: Record<string, string> }).attribs ?? {}).filter(a => a.startsWith('on')))
  t.same(handlers, [], `${what}: no event handler attribute`)
}

t.test('the CSP is exactly the one the pages and the dashboard agreed on', async t => {
  t.equal(PAGE_CSP, "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
})

t.test('/: what the service does, every enabled tool, the links a visitor needs', async t => {
  const app = await build(t)
  const res = await app.inject({ url: '/', headers: BROWSER })
  t.equal(res.statusCode, 200)
  assertPageHeaders(t, res, '/')
  assertNoInlineCode(t, res.body, '/')
  const $ = cheerio.load(res.body)
  t.equal($('html').attr('lang'), 'en')
  t.ok($('meta[name=description]').attr('content'), 'a description')
  t.equal($('link[rel=canonical]').attr('href'), 'http://localhost/')
  for (const href of ['/docs', '/mcp/docs.md', '/blog', '/app#signup', '/app#login']) t.ok($(`a[href="${href}"]`).length > 0, `links to ${href}`)
  const listed = $('.tools li code').toArray().map(el => $(el).text())
  const enabled = app.services.registry.enabled().map(tool => tool.declaration.key)
  t.same(listed, enabled, 'every enabled tool, in the registry order')
  const first = app.services.registry.enabled()[0]!.declaration
  t.equal($('.tools li h3').first().text(), first.title)
  t.same($('.tools li h3 a').toArray().map(el => $(el).attr('href')), enabled.map(key => `/app#playground?tool=${encodeURIComponent(key)}`), 'each tool card opens the playground with that tool chosen')
  const howItWorks = $('h2:contains("How it works") + ol').text()
  for (const part of ['playground', 'POST /api/tool-run', '/mcp', 'agent']) t.match(howItWorks, part, `How it works covers ${part}`)
  t.ok($('.tools li p').first().text().length <= first.key.length + 1 + 140, 'a one-line description')
  const stylesheet = $('link[rel=stylesheet]').attr('href')!
  t.match(stylesheet, /^\/assets\/site\.css\?v=[\w-]{12}$/, 'one same-origin, versioned stylesheet')
  t.equal($('link[rel=icon]').attr('href'), 'data:,', 'an empty icon: browsers do not ask for /favicon.ico, a 404')
})

t.test('/ leaves out the tools this server does not enable', async t => {
  const dir = tempDir(t)
  const toolsConfig = JSON.parse(readFileSync('tools.config.json', 'utf8')) as { tools: Array<{ key: string, enabled: boolean }> }
  for (const entry of toolsConfig.tools) if (entry.key === 'disposable' || entry.key === 'yt_thumbs') entry.enabled = false
  const path = join(dir, 'tools.json')
  writeFileSync(path, JSON.stringify(toolsConfig))
  const app = await build(t, { env: { TOOLS_CONFIG: path } })
  const $ = cheerio.load((await app.inject({ url: '/' })).body)
  const listed = $('.tools li code').toArray().map(el => $(el).text())
  t.notOk(listed.includes('disposable'), 'disposable is not listed')
  t.notOk(listed.includes('yt_thumbs'), 'yt_thumbs is not listed')
  t.ok(listed.includes('webemail'), 'an enabled tool is')
  t.notMatch($('.tools').text(), /Detect disposable e-mail addresses/, 'nor is its title')
})

t.test('one-line descriptions: the first sentence, without its field list, cut at a word', async t => {
  t.equal(oneLine('Reads YouTube metadata and stats. Use it for anything.'), 'Reads YouTube metadata and stats.')
  t.equal(oneLine('Searches map listings and returns one row per business: name, phone. More.'), 'Searches map listings and returns one row per business.')
  const long = oneLine(`${'word '.repeat(60)}end.`)
  t.ok(long.length <= 140 && long.endsWith('…'), long)
  t.equal(oneLine('Searches by keyword (`query`) or by page id.'), 'Searches by keyword (query) or by page id.')
  t.equal(oneLine('Looks acme.com up (e.g. its ads). Then more.'), 'Looks acme.com up (e.g. its ads).')
})

t.test('/blog: featured posts first, then newest; ten a page; pages past the end are 404', async t => {
  const { clock, step } = steppedClock()
  const app = await build(t, { clock })
  const featured = await publish(app, { title: 'Pinned guide', content: '<p>Pinned.</p>', is_featured: true })
  step()
  const slugs: string[] = []
  for (let i = 1; i <= 11; i++) {
    slugs.push((await publish(app, { title: `Post number ${i}`, content: `<p>Body ${i}</p>`, excerpt: `Excerpt <em>${i}</em>` })).slug)
    step()
  }
  await publish(app, { title: 'Hidden draft', content: 'Not yet.', status: 'draft' })

  const first = await app.inject({ url: '/blog', headers: BROWSER })
  t.equal(first.statusCode, 200)
  assertPageHeaders(t, first, '/blog')
  assertNoInlineCode(t, first.body, '/blog')
  const $ = cheerio.load(first.body)
  const hrefs = $('.posts h2 a').toArray().map(el => $(el).attr('href'))
  t.same(hrefs, [`/blog/${featured.slug}`, ...slugs.slice().reverse().slice(0, 9).map(s => `/blog/${s}`)], 'the featured post, then the newest nine')
  t.equal($('.posts li').first().find('.badge').text(), 'Featured')
  t.equal($('.posts li').eq(1).find('.badge').length, 0, 'only the featured post is marked')
  t.equal($('.posts li').eq(1).find('em').text(), '11', 'the sanitised excerpt keeps its inline markup')
  t.match($('.posts li time').first().attr('datetime'), featured.published_at)
  t.notMatch(first.body, /Hidden draft/, 'drafts are not listed')
  t.equal($('a[rel=next]').attr('href'), '/blog?page=2')
  t.equal($('link[rel=canonical]').attr('href'), 'http://localhost/blog')

  const second = cheerio.load((await app.inject({ url: '/blog?page=2', headers: BROWSER })).body)
  t.same(second('.posts h2 a').toArray().map(el => second(el).attr('href')), slugs.slice(0, 2).reverse().map(s => `/blog/${s}`), 'page 2: the oldest two')
  t.equal(second('a[rel=prev]').attr('href'), '/blog')
  t.equal(second('a[rel=next]').length, 0)

  const past = await app.inject({ url: '/blog?page=3', headers: BROWSER })
  t.equal(past.statusCode, 404)
  assertPageHeaders(t, past, 'a page past the end')
  t.match(past.body, /The blog has no page 3/)
  const pastApi = await app.inject({ url: '/blog?page=3' })
  t.equal(pastApi.statusCode, 404)
  t.same(pastApi.json(), { detail: 'The blog has no page 3.' }, 'a client that does not ask for HTML gets {detail}')

  const bad = await app.inject({ url: '/blog?page=0', headers: BROWSER })
  t.equal(bad.statusCode, 400)
  t.match(bad.headers['content-type'], /^text\/html/)
  t.equal((await app.inject({ url: '/blog?page=abc' })).statusCode, 400)
})

t.test('/blog with no post says so', async t => {
  const app = await build(t)
  const res = await app.inject({ url: '/blog' })
  t.equal(res.statusCode, 200)
  t.match(res.body, /No posts yet/)
})

t.test('/blog/<slug>: title, description, canonical and Open Graph tags, date, sanitised content, escaped text', async t => {
  const app = await build(t)
  const post = await publish(app, {
    title: 'Fish &amp; "chips" <b>at</b> O\'Brien\'s',
    slug: 'fish-and-chips',
    category: 'Food & \'drink\' > snacks',
    meta_description: 'Where to eat "fish" & chips <today>',
    seo_keywords: ['fish', 'chips'],
    featured_image: 'https://images.example.com/fish.png',
    content: '<h2>Menu</h2><p>Cod <img src="x" onerror="alert(1)"> and <a href="javascript:alert(1)">chips</a>.</p><script>alert(2)</script><p style="color:red">Red?</p>',
  })
  const res = await app.inject({ url: `/blog/${post.slug}`, headers: BROWSER })
  t.equal(res.statusCode, 200)
  assertPageHeaders(t, res, 'a post')
  assertNoInlineCode(t, res.body, 'a post')
  const $ = cheerio.load(res.body)
  t.equal($('h1').text(), 'Fish & "chips" at O\'Brien\'s', 'the title, as text')
  t.match(res.body, /<h1>Fish &amp; &quot;chips&quot; at O&#39;Brien&#39;s<\/h1>/, 'escaped in the markup')
  t.equal($('title').text(), 'Fish & "chips" at O\'Brien\'s · Data-extraction jobs')
  t.equal($('meta[name=description]').attr('content'), 'Where to eat "fish" & chips', 'the meta description (tags were removed when stored)')
  t.equal($('link[rel=canonical]').attr('href'), 'http://localhost/blog/fish-and-chips')
  t.equal($('meta[property="og:type"]').attr('content'), 'article')
  t.equal($('meta[property="og:title"]').attr('content'), 'Fish & "chips" at O\'Brien\'s')
  t.equal($('meta[property="og:url"]').attr('content'), 'http://localhost/blog/fish-and-chips')
  t.equal($('meta[property="og:description"]').attr('content'), 'Where to eat "fish" & chips')
  t.equal($('meta[property="og:image"]').attr('content'), 'https://images.example.com/fish.png')
  t.equal($('meta[property="article:published_time"]').attr('content'), post.published_at)
  t.same($('meta[property="article:tag"]').toArray().map(el => $(el).attr('content')), ['fish', 'chips'])
  t.equal($('article time').attr('datetime'), post.published_at, 'the published date')
  t.match($('article .meta').text(), "Food & 'drink' > snacks", 'the category, as text')
  t.match(res.body, 'Food &amp; &#39;drink&#39; &gt; snacks', 'escaped in the markup')
  t.equal($('img.featured').length, 0, 'an image on another host is not shown (the CSP would refuse it)')
  const content = $('article .content')
  t.equal(content.find('h2').text(), 'Menu', 'article markup is kept')
  t.equal(content.find('[onerror]').length, 0, 'no event handler')
  t.notMatch(res.body, /javascript:/i, 'no script URL')
  t.notMatch(content.html()!, /alert\(2\)/, 'no script')
})

t.test('/blog/<slug>: a stored featured image is shown; PUBLIC_URL makes the canonical URLs', async t => {
  const app = await build(t, { env: { PUBLIC_URL: 'https://jobs.example.org' } })
  const post = await publish(app, { title: 'Own image', content: 'Text.', featured_image: '/api/blog/images/0b6d4f3e-1f0a-4c6e-9d53-2a1c6f1d9e7a.png' })
  const $ = cheerio.load((await app.inject({ url: `/blog/${post.slug}` })).body)
  t.equal($('img.featured').attr('src'), '/api/blog/images/0b6d4f3e-1f0a-4c6e-9d53-2a1c6f1d9e7a.png')
  t.equal($('img.featured').attr('alt'), '', 'decorative: the title says what the post is')
  t.equal($('link[rel=canonical]').attr('href'), `https://jobs.example.org/blog/${post.slug}`)
  t.equal($('meta[property="og:image"]').attr('content'), 'https://jobs.example.org/api/blog/images/0b6d4f3e-1f0a-4c6e-9d53-2a1c6f1d9e7a.png')
  t.equal($('meta[name=description]').attr('content'), 'Own image', 'no description or excerpt: the title')
})

t.test('unknown posts, drafts and odd slugs are 404: a page for browsers, {detail} for the rest', async t => {
  const app = await build(t)
  const draft = await publish(app, { title: 'Draft only', content: 'Secret plan.', status: 'draft' })
  for (const url of ['/blog/no-such-post', `/blog/${draft.slug}`, '/blog/Not%20A%20Slug', '/blog/list']) {
    const page = await app.inject({ url, headers: { ...BROWSER, 'x-api-key': ADMIN_KEY } })
    t.equal(page.statusCode, 404, `${url}: 404 (a draft too, even for the admin key)`)
    assertPageHeaders(t, page, url)
    const $ = cheerio.load(page.body)
    t.equal($('h1').text(), 'Page not found')
    t.equal($('meta[name=robots]').attr('content'), 'noindex')
    t.notMatch(page.body, /Secret plan/)
    const api = await app.inject({ url, headers: { accept: 'application/json' } })
    t.equal(api.statusCode, 404)
    t.match(api.json(), { detail: String })
  }
  const escaped = await app.inject({ url: '/blog/%3Cscript%3Ealert(1)%3C%2Fscript%3E', headers: BROWSER })
  t.equal(escaped.statusCode, 404)
  t.notMatch(escaped.body, /<script>/, 'the slug in the detail is escaped')
  t.match(escaped.body, /&lt;script&gt;/)
})

t.test('an unknown address: an HTML 404 for a browser, {detail} under /api and for API clients', async t => {
  const app = await build(t)
  const page = await app.inject({ url: '/no/such/page', headers: BROWSER })
  t.equal(page.statusCode, 404)
  assertPageHeaders(t, page, 'an unknown page')
  t.match(page.body, /No route GET \/no\/such\/page\./)
  const curl = await app.inject({ url: '/no/such/page', headers: { accept: '*/*' } })
  t.same(curl.json(), { detail: 'No route GET /no/such/page.' })
  for (const url of ['/api/nope', '/mcp/nope', '/api']) {
    const api = await app.inject({ url, headers: BROWSER })
    t.equal(api.statusCode, 404, url)
    t.match(api.headers['content-type'], /^application\/json/, `${url}: JSON even for a browser`)
  }
  const post = await app.inject({ method: 'POST', url: '/no/such/page', headers: BROWSER })
  t.match(post.headers['content-type'], /^application\/json/, 'only GET and HEAD get a page')
  // The JSON blog API is untouched by the pages.
  t.same((await app.inject({ url: '/api/blog/no-such-post', headers: BROWSER })).json(), { detail: "No blog post with the slug 'no-such-post'." })
})

t.test('pages ignore keys: a bad key or the admin key sees the same public page', async t => {
  const app = await build(t)
  for (const key of ['sk-not-a-real-key', ADMIN_KEY]) {
    for (const url of ['/', '/blog']) t.equal((await app.inject({ url, headers: { 'x-api-key': key } })).statusCode, 200, `${url} with ${key.slice(0, 6)}…`)
  }
})

t.test('/docs gets the same headers; Swagger UI\'s scripts and styles are files of this server (the CSP refuses inline code)', async t => {
  const app = await build(t)
  const docs = await app.inject({ url: '/docs' })
  assertPageHeaders(t, docs, '/docs')
  const $ = cheerio.load(docs.body)
  t.equal($('script:not([src])').length, 0, '/docs: no inline script')
  t.equal($('style').length + $('[style]').length, 0, '/docs: no inline style')
  const files = [...$('script[src]').toArray().map(el => $(el).attr('src')!), ...$('link[rel=stylesheet]').toArray().map(el => $(el).attr('href')!)]
  t.ok(files.length >= 5, 'scripts and stylesheets')
  for (const file of files) {
    t.match(file, /^\/docs\/static\//, `${file}: from this server, no CDN`)
    t.equal((await app.inject({ url: file })).statusCode, 200, `${file}: served`)
  }
  const css = await app.inject({ url: '/docs/static/theme/docs.css' })
  t.match(css.headers['content-type'], /^text\/css/)
  t.match(css.body, /\.opblock-get \.opblock-summary-method\{background:#1d5b9e/)
  t.same((await app.inject({ url: '/docs/json' })).json().paths, (await app.inject({ url: '/openapi.json' })).json().paths, 'the reference reads the service\'s own document')
  // JSON answers are not pages: no page headers.
  t.notOk((await app.inject({ url: '/api/health' })).headers['content-security-policy'], 'no CSP on JSON')
})

t.test('the stylesheet: brotli or gzip as accepted, an ETag and 304, immutable when versioned', async t => {
  const app = await build(t)
  const href = cheerio.load((await app.inject({ url: '/' })).body)('link[rel=stylesheet]').attr('href')!
  const original = readFileSync('core/features/web/pages/site.css', 'utf8')

  const plain = await app.inject({ url: href })
  t.equal(plain.statusCode, 200)
  t.equal(plain.body, original, 'no Accept-Encoding: as is')
  t.notOk(plain.headers['content-encoding'])
  t.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable', 'the versioned URL is cached for a year')
  t.equal(plain.headers.vary, 'accept-encoding')
  t.equal(plain.headers['x-content-type-options'], 'nosniff')
  t.match(plain.headers['content-type'], /^text\/css; charset=utf-8/)
  const etag = plain.headers.etag as string
  t.match(etag, /^"[\w-]{12}"$/)

  const br = await app.inject({ url: href, headers: { 'accept-encoding': 'gzip, deflate, br' } })
  t.equal(br.headers['content-encoding'], 'br')
  t.equal(brotliDecompressSync(br.rawPayload).toString('utf8'), original)
  t.ok(br.rawPayload.length < original.length / 2, `compressed: ${br.rawPayload.length} of ${original.length} bytes`)
  const gz = await app.inject({ url: href, headers: { 'accept-encoding': 'gzip' } })
  t.equal(gz.headers['content-encoding'], 'gzip')
  t.equal(gunzipSync(gz.rawPayload).toString('utf8'), original)

  const unversioned = await app.inject({ url: '/assets/site.css' })
  t.equal(unversioned.headers['cache-control'], 'public, no-cache', 'an unversioned or old URL revalidates')
  const old = await app.inject({ url: '/assets/site.css?v=000000000000' })
  t.equal(old.headers['cache-control'], 'public, no-cache')

  const again = await app.inject({ url: '/assets/site.css', headers: { 'if-none-match': etag } })
  t.equal(again.statusCode, 304)
  t.equal(again.body, '')
  t.equal(again.headers.etag, etag)
  t.equal((await app.inject({ url: '/assets/site.css', headers: { 'if-none-match': '"stale"' } })).statusCode, 200)
  const head = await app.inject({ method: 'HEAD', url: href })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')

  const missing = await app.inject({ url: '/assets/nope.js' })
  t.equal(missing.statusCode, 404)
  t.same(missing.json(), { detail: "No asset named 'nope.js'." })
})

t.test('pages are compressed as the client accepts', async t => {
  const app = await build(t)
  const plain = await app.inject({ url: '/' })
  t.notOk(plain.headers['content-encoding'])
  t.equal(plain.headers.vary, 'accept-encoding')
  const br = await app.inject({ url: '/', headers: { 'accept-encoding': 'br, gzip' } })
  t.equal(br.headers['content-encoding'], 'br')
  t.equal(brotliDecompressSync(br.rawPayload).toString('utf8'), plain.body)
  t.equal(br.headers['content-security-policy'], PAGE_CSP, 'the headers stay')
  const gz = await app.inject({ url: '/blog', headers: { 'accept-encoding': 'gzip' } })
  t.equal(gz.headers['content-encoding'], 'gzip')
  t.match(gunzipSync(gz.rawPayload).toString('utf8'), /<h1>Blog<\/h1>/)
  t.comment(`/: ${plain.rawPayload.length} bytes, ${br.rawPayload.length} with brotli`)
})

t.test('Accept-Encoding negotiation', async t => {
  t.equal(chooseCoding(undefined), 'identity')
  t.equal(chooseCoding(''), 'identity')
  t.equal(chooseCoding('gzip, deflate, br, zstd'), 'br')
  t.equal(chooseCoding('gzip'), 'gzip')
  t.equal(chooseCoding('br;q=0, gzip'), 'gzip')
  t.equal(chooseCoding('br;q=0.5, gzip;q=0.9'), 'gzip')
  t.equal(chooseCoding('*'), 'br')
  t.equal(chooseCoding('*;q=0'), 'identity')
  t.equal(chooseCoding('identity'), 'identity')
  t.equal(chooseCoding('gzip;q=abc'), 'identity')
})

t.test('the pages are not in the OpenAPI document', async t => {
  const app = await build(t)
  const paths = Object.keys((await app.inject({ url: '/openapi.json' })).json().paths)
  for (const page of ['/', '/blog', '/blog/{slug}', '/assets/{name}']) t.notOk(paths.includes(page), `${page} is not an API path`)
  t.ok(paths.includes('/api/blog/{slug}'), 'the JSON blog API is')
})
