// XSS payloads are removed before anything is stored; ordinary article markup stays.
import t from 'tap'
import { build } from '../helpers/build.ts'
import { plainText, sanitizeArticle, sanitizeInline } from '../../core/features/blog/sanitize.ts'
import { published } from './_blog.ts'

const DANGER = /<script|<style|<iframe|<svg|<object|<embed|onerror|onclick|onload|onmouseover|javascript:|vbscript:|data:text/i

// [payload, what must survive (or '' for nothing)]
const PAYLOADS: Array<[string, string]> = [
  ['<p>ok</p><script>alert(1)</script>', '<p>ok</p>'],
  ['<SCRIPT SRC=https://evil.example/x.js></SCRIPT><p>ok</p>', '<p>ok</p>'],
  ['<img src="https://cdn.example.com/a.png" onerror="alert(1)">', '<img src="https://cdn.example.com/a.png" />'],
  ['<img src=x onerror=alert(1)//>', '<img src="x" />'],
  ['<p onclick="steal()">click</p>', '<p>click</p>'],
  ['<a href="javascript:alert(1)">x</a>', '<a>x</a>'],
  ['<a href="JaVaScRiPt:alert(1)">x</a>', '<a>x</a>'],
  ['<a href=" javascript:alert(1)">x</a>', '<a>x</a>'],
  ['<a href="java&#x09;script:alert(1)">x</a>', '<a>x</a>'],
  ['<a href="&#106;avascript:alert(1)">x</a>', '<a>x</a>'],
  ['<a href="vbscript:msgbox(1)">x</a>', '<a>x</a>'],
  ['<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>', '<a>x</a>'],
  ['<svg onload=alert(1)><circle r="1"/></svg>', ''],
  ['<svg><script>alert(1)</script></svg>', ''],
  ['<iframe src="https://evil.example"></iframe><p>after</p>', '<p>after</p>'],
  ['<style>body{display:none}</style><p>styled</p>', '<p>styled</p>'],
  ['<p style="background:url(javascript:alert(1))">s</p>', '<p>s</p>'],
  ['<object data="x.swf"></object><embed src="x.swf">', ''],
  ['<form action="https://evil.example"><input name="q"><button>go</button></form>', 'go'],
  ['<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">', ''],
  ['<body onload="alert(1)"><p>b</p></body>', '<p>b</p>'],
  ['<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', ''],
]

t.test('sanitizeArticle removes every payload', async t => {
  for (const [payload, expected] of PAYLOADS) {
    const out = sanitizeArticle(payload)
    t.notMatch(out, DANGER, payload)
    if (expected !== '' || out === '') t.equal(out.replace(/<table><\/table>/, ''), expected, payload)
  }
})

t.test('ordinary article markup is kept', async t => {
  const html = [
    '<h2>Heading</h2><h3>Sub</h3><p>Text with <strong>bold</strong>, <em>em</em>, <code>code</code> and <a href="https://example.com/x" title="t">a link</a>.</p>',
    '<ul><li>one</li></ul><ol start="3"><li>three</li></ol>',
    '<blockquote cite="https://example.com">quote</blockquote>',
    '<pre><code class="language-ts">const x = 1</code></pre>',
    '<table><thead><tr><th scope="col">h</th></tr></thead><tbody><tr><td colspan="2">c</td></tr></tbody></table>',
    '<figure><img src="https://cdn.example.com/a.png" alt="a" width="10" height="10" /><figcaption>cap</figcaption></figure>',
    '<p><a href="mailto:sales@example.com">mail</a> <a href="/relative/path">rel</a></p><hr />',
  ].join('')
  t.equal(sanitizeArticle(html), html)
})

t.test('small details: raster data images stay, new-tab links get rel, stray classes go', async t => {
  const png = '<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot" />'
  t.equal(sanitizeArticle(png), png)
  t.equal(sanitizeArticle('<a href="https://e.com" target="_blank">e</a>'), '<a href="https://e.com" target="_blank" rel="noopener noreferrer">e</a>')
  t.equal(sanitizeArticle('<code class="language-js evil">x</code><p class="x" id="y">p</p>'), '<code class="language-js">x</code><p>p</p>')
})

t.test('excerpts keep inline markup only; plain text fields keep no markup', async t => {
  t.equal(sanitizeInline('<p>Intro <b>bold</b> <a href="javascript:x()">l</a><img src=x onerror=alert(1)></p>'), 'Intro <b>bold</b> <a>l</a>')
  t.equal(plainText('<b>Tom &amp; Jerry</b>'), 'Tom & Jerry')
  t.equal(plainText('&lt;script&gt;alert(1)&lt;/script&gt;Title'), 'Title', 'escaped tags do not come back')
  t.equal(plainText('5 < 10 and 10 > 5'), '5 < 10 and 10 > 5')
  t.equal(plainText('  many\n\n  spaces  '), 'many spaces')
})

t.test('through the API: content, excerpt, title, meta and keywords are cleaned when stored', async t => {
  const app = await build(t)
  const post = await published(app, {
    title: '<script>alert(1)</script>Safe <b>Title</b><img src=x onerror=alert(1)>',
    // The real paragraph first: an unclosed <style> in the last payload swallows what follows it.
    content: '<p>real content</p>' + PAYLOADS.map(p => p[0]).join('\n'),
    excerpt: '<p onmouseover="x()">Ex</p><script>alert(1)</script><a href="JaVaScRiPt:alert(1)">cerpt</a>',
    meta_description: '<svg onload=alert(1)>meta</svg>',
    seo_keywords: ['<img src=x onerror=alert(1)>kw', 'ok'],
    category: '<i onclick="x()">Cat</i>',
  })
  t.equal(post.title, 'Safe Title')
  t.notMatch(String(post.content), DANGER)
  t.match(String(post.content), /<p>real content<\/p>/)
  t.notMatch(String(post.excerpt), DANGER)
  t.equal(post.excerpt, 'Ex<a>cerpt</a>')
  t.equal(post.meta_description, 'meta')
  t.same(post.seo_keywords, ['kw', 'ok'])
  t.equal(post.category, 'Cat')
  const read = await app.inject({ method: 'GET', url: `/api/blog/${post.slug}` })
  t.notMatch(read.body, DANGER, 'nothing dangerous is served back')
})
