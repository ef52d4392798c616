// The page scraper (urls mode) and search + scrape, over a local site that
// serves HTML, a redirect, a PDF, an image, a 404 and a page without a
// Content-Type; plus a URL nobody listens on and one that is not http(s).
import t from 'tap'
import { createServer } from 'node:net'
import { extractPage } from '../../../plugins/lib/page.ts'
import { createEngineHealth } from '../../../plugins/websearch/engine-health.ts'
import { createWebsearchRun } from '../../../plugins/websearch/run.ts'
import { normaliseTargetUrl } from '../../../plugins/websearch/page-scraper.ts'
import { fakeContext, send, startServer, type RecordedRequest } from './fake-context.ts'
import type { ServerResponse } from 'node:http'

const run = createWebsearchRun({ extractPage })

const ARTICLE = `<!DOCTYPE html><html lang="en-GB"><head><title>Acme Widgets | About us</title>
<meta name="description" content="Acme makes widgets in Leeds since 1952.">
<link rel="canonical" href="/about"></head>
<body><header><nav><a href="/">Home</a></nav></header>
<main><article><h1>About Acme Widgets</h1>
<p>Acme Widgets has made precision widgets in Leeds since 1952. Our workshop employs forty machinists and ships to thirty countries every week.</p>
<h2>Our history</h2><p>The company started in a railway arch with one lathe. Today it runs three production lines and a test laboratory for every widget we make.</p>
<h3>Awards</h3><p>We won the regional manufacturing award three times, most recently for our low-waste milling process that saves energy.</p>
</article></main><footer>© Acme</footer></body></html>`

function site (req: RecordedRequest, res: ServerResponse): void {
  switch (req.path) {
    case '/about': return send(res, 200, ARTICLE)
    case '/old-about': return send(res, 301, '', 'text/html', { location: '/about' })
    case '/brochure.pdf': return send(res, 200, '%PDF-1.7\n1 0 obj<<>>endobj\n', 'application/pdf')
    case '/logo.png': return send(res, 200, '\x89PNG\r\n', 'image/png')
    case '/untyped': { res.writeHead(200); res.end('<html><head><title>No type</title></head><body><p>Served without a content type.</p></body></html>'); return }
    default: return send(res, 404, '<html><head><title>Not found</title></head><body>Not found</body></html>')
  }
}

/** A port that was open a moment ago and is closed now: connecting to it fails at once. */
async function closedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>(resolve => server.close(() => resolve()))
  return port
}

t.test('urls mode: one row per URL in order, HTML extracted, everything else described, nothing crashes', async t => {
  const server = await startServer(t, site)
  const dead = await closedPort()
  const urls = [
    `${server.base}/about`,
    `${server.base}/old-about`,
    `${server.base}/brochure.pdf`,
    `${server.base}/logo.png`,
    `${server.base}/missing`,
    `${server.base}/untyped`,
    `http://127.0.0.1:${dead}/`,
    'ftp://files.example.com/x',
  ]
  const ctx = fakeContext({ urls }, { settings: { concurrency: 3 } })
  await run(ctx)
  t.equal(ctx.rows.length, urls.length)
  t.same(ctx.rows.map(r => r.url), urls, 'input order kept despite concurrency')
  t.same(ctx.rows.map(r => r.position), urls.map((_, i) => i + 1))

  const [about, redirected, pdf, png, missing, untyped, unreachable, ftp] = ctx.rows
  t.match(about, {
    status: 200, final_url: `${server.base}/about`, content_type: 'text/html; charset=utf-8', error: null,
    title: 'Acme Widgets | About us', meta_description: 'Acme makes widgets in Leeds since 1952.', canonical: `${server.base}/about`, language: 'en-GB',
    headings: { h1: ['About Acme Widgets'], h2: ['Our history'], h3: ['Awards'] }, text: /precision widgets in Leeds/, domain: '127.0.0.1',
  })
  t.ok(about!.word_count! > 40)
  t.match(redirected, { status: 200, final_url: `${server.base}/about`, title: 'Acme Widgets | About us' })
  t.match(pdf, { status: 200, content_type: 'application/pdf', text: null, error: 'not an HTML page (application/pdf)' })
  t.match(png, { status: 200, content_type: 'image/png', text: null, error: /not an HTML page/ })
  t.match(missing, { status: 404, text: null, error: 'HTTP 404' })
  t.match(untyped, { status: 200, content_type: null, title: 'No type', error: null }, 'markup without a Content-Type is sniffed')
  t.match(unreachable, { status: null, final_url: null, text: null, error: /^fetch failed/ })
  t.match(ftp, { status: null, error: 'not an http(s) URL' })
  t.same(ctx.warnings, [])
})

t.test('urls mode stops at the per-run ceiling and says so', async t => {
  const server = await startServer(t, site)
  const ctx = fakeContext({ urls: [1, 2, 3, 4].map(i => `${server.base}/about?n=${i}`) }, { cap: 2 })
  await run(ctx)
  t.equal(ctx.rows.length, 2)
  t.match(ctx.warnings, [/Only the first 2 of 4 URLs/])
  t.equal(server.requests.length, 2, 'pages past the ceiling are not fetched')
})

t.test('urls mode where nothing is readable warns', async t => {
  const server = await startServer(t, site)
  const ctx = fakeContext({ urls: [`${server.base}/brochure.pdf`] })
  await run(ctx)
  t.equal(ctx.rows.length, 1)
  t.match(ctx.warnings, [/None of the pages could be read as HTML/])
})

t.test('long page text is cut at max_text_chars and flagged', async t => {
  const server = await startServer(t, site)
  const ctx = fakeContext({ urls: [`${server.base}/about`] }, { settings: { max_text_chars: 50 } })
  await run(ctx)
  t.equal(ctx.rows[0]!.text!.length, 50)
  t.equal(ctx.rows[0]!.text_truncated, true)
})

t.test('search + scrape: every result row carries its page', async t => {
  const pages = await startServer(t, site)
  const engine = await startServer(t, (req, res) => send(res, 200, `<html><body class="body--html"><div id="links" class="results">
    <div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
      <h2 class="result__title"><a class="result__a" href="${pages.base}/about">About Acme</a></h2><a class="result__snippet">Acme makes widgets.</a></div></div>
    <div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
      <h2 class="result__title"><a class="result__a" href="${pages.base}/brochure.pdf">Acme brochure (PDF)</a></h2><a class="result__snippet">Download.</a></div></div>
  </div></body></html>`))
  const ctx = fakeContext({ query: 'acme widgets leeds', scrape_results: true, max_results: 5 }, { urls: { duckduckgo_html: engine.base }, state: createEngineHealth() })
  await run(ctx)
  t.equal(ctx.rows.length, 2)
  t.match(ctx.rows[0], { position: 1, title: 'About Acme', url: `${pages.base}/about`, snippet: 'Acme makes widgets.', engine: 'duckduckgo_html', page_title: 'Acme Widgets | About us', meta_description: 'Acme makes widgets in Leeds since 1952.', status: 200, text: /precision widgets/ })
  t.match(ctx.rows[1], { position: 2, title: 'Acme brochure (PDF)', content_type: 'application/pdf', text: null, error: /not an HTML page/ })
})

t.test('bare hosts get https://, other schemes are refused', async t => {
  t.equal(normaliseTargetUrl('example.com/about'), 'https://example.com/about')
  t.equal(normaliseTargetUrl(' http://example.com '), 'http://example.com/')
  t.equal(normaliseTargetUrl('javascript:alert(1)'), null)
  t.equal(normaliseTargetUrl('file:///etc/passwd'), null)
  t.equal(normaliseTargetUrl(''), null)
})
