import t from 'tap'
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { extractPage, extractLinks, countWords } from '../../plugins/lib/scanners.ts'
import { CAPTURES_DIR, capturesPresent, readCapture, skipWithoutCaptures } from './captures.ts'
import { stripTags, tokenOverlap } from './token-overlap.ts'

// Readability's own test harness parses every test page as this URL.
const READABILITY_TEST_URL = 'http://fakehost/test/page.html'
const MIN_OVERLAP = 0.9

t.test('readability test pages: readable text and metadata match the expected output', async t => {
  const root = join(CAPTURES_DIR, 'readability')
  if (!capturesPresent() || !existsSync(root)) {
    skipWithoutCaptures(t, 'readability/*/')
    return
  }
  const pages = readdirSync(root, { withFileTypes: true }).filter(entry => entry.isDirectory()).map(entry => entry.name)
  t.ok(pages.length > 0, 'at least one test page')
  for (const name of pages) {
    t.test(name, async t => {
      const dir = join(root, name)
      const page = extractPage(readFileSync(join(dir, 'source.html'), 'utf8'), READABILITY_TEST_URL)
      const expectedText = stripTags(readFileSync(join(dir, 'expected.html'), 'utf8'))
      const overlap = tokenOverlap(page.text, expectedText)
      t.ok(overlap >= MIN_OVERLAP, `token overlap ${overlap.toFixed(3)} >= ${MIN_OVERLAP}`)
      t.ok(page.word_count > 0 && page.word_count === countWords(page.text), 'word_count counts the text')
      const metadataFile = join(dir, 'expected-metadata.json')
      if (existsSync(metadataFile)) {
        const expected = JSON.parse(readFileSync(metadataFile, 'utf8')) as { title?: string | null, byline?: string | null, lang?: string | null }
        if ('title' in expected) t.equal(page.title, expected.title, 'title')
        if ('byline' in expected) t.equal(page.byline, expected.byline, 'byline')
        if (expected.lang) t.equal(page.language, expected.lang, 'language')
      }
    })
  }
})

t.test('readability capture: wikipedia metadata and headings', async t => {
  const html = readCapture(t, 'readability/wikipedia/source.html')
  if (html === null) return
  const page = extractPage(html, 'https://en.wikipedia.org/wiki/Mozilla')
  t.equal(page.canonical, 'https://en.wikipedia.org/wiki/Mozilla')
  t.same(page.headings.h1, ['Mozilla'])
  t.ok(page.headings.h2.includes('History[edit]'))
  t.match(page.excerpt, /^Mozilla is a free-software community/)
  t.match(page.text, /\n\n/, 'paragraphs are kept apart')
})

const ARTICLE = `<!doctype html>
<html lang="de-DE"><head>
  <title>Riesling im Porträt | Weinblog</title>
  <meta name="description" content="  Alles über   Riesling. ">
  <meta name="author" content="Erika Muster">
  <link rel="canonical" href="/riesling">
  <style>p { color: red }</style>
</head><body>
  <nav><a href="/">Start</a> <a href="/blog">Blog</a></nav>
  <article>
    <h1>Riesling im Porträt</h1>
    <p>Riesling ist eine weiße Rebsorte, die vor allem in Deutschland angebaut wird. Sie gilt als eine der edelsten Weißweinsorten der Welt und bringt sehr langlebige Weine hervor, deren Säure und Frucht über Jahrzehnte reifen können.</p>
    <h2>Herkunft</h2>
    <p>Die Rebsorte stammt vermutlich aus dem Rheingau, wo sie seit dem fünfzehnten Jahrhundert urkundlich erwähnt wird. Heute wächst sie an der Mosel, an der Nahe, in der Pfalz und im Elsass, aber auch in Österreich, Australien und den Vereinigten Staaten.</p>
    <h3>Böden</h3>
    <p>Schiefer, Kalk und Löss prägen den Charakter der Weine sehr unterschiedlich. Auf Schieferböden entstehen mineralische, rassige Weine, auf Löss eher weiche und fruchtige, und auf Kalk elegante Weine mit feiner Struktur und langer Lagerfähigkeit.</p>
  </article>
  <script>document.write("tracking")</script>
</body></html>`

t.test('hand-written article: metadata, headings, readable text', async t => {
  const page = extractPage(ARTICLE, 'https://weinblog.example/2024/riesling?ref=home')
  // Readability keeps the " | Weinblog" suffix when the rest would be four words or fewer.
  t.equal(page.title, 'Riesling im Porträt | Weinblog')
  t.equal(page.meta_description, 'Alles über Riesling.')
  t.equal(page.canonical, 'https://weinblog.example/riesling')
  t.equal(page.language, 'de-DE')
  t.same(page.headings, { h1: ['Riesling im Porträt'], h2: ['Herkunft'], h3: ['Böden'] })
  t.equal(page.byline, 'Erika Muster')
  t.match(page.text, /^Riesling ist eine weiße Rebsorte/m)
  t.match(page.text, /Lagerfähigkeit\.$/)
  t.notMatch(page.text, /tracking|color: red|Start/, 'no script, style or navigation')
  t.equal(page.word_count, countWords(page.text))
})

t.test('fallback to visible body text when Readability finds no article', async t => {
  const html = `<html><head><title>Kontakt</title><script>var secret = 1</script></head>
    <body><nav>Menu Home About</nav><div>Acme GmbH</div><div>Hauptstraße 1<br>10115 Berlin</div>
    <style>.x{}</style><noscript>Enable JS</noscript><footer>© 2024</footer></body></html>`
  const page = extractPage(html, 'https://acme.example/kontakt')
  t.equal(page.title, 'Kontakt')
  t.equal(page.text, 'Acme GmbH\n\nHauptstraße 1\n10115 Berlin\n\n© 2024')
  t.equal(page.word_count, 7)
  t.equal(page.canonical, null)
  t.equal(page.language, null)
  t.equal(page.excerpt, null)
  t.equal(page.byline, null)
})

t.test('degenerate input does not throw', async t => {
  for (const html of ['', 'plain text only', '<html></html>', '<<<>>>']) {
    const page = extractPage(html, 'https://acme.example/')
    t.type(page.text, 'string', JSON.stringify(html))
  }
})

t.test('extractLinks: absolute http(s), fragments stripped, de-duplicated', async t => {
  const html = `<a href="/about#team">About</a><a href="/about">About again</a>
    <a href="https://other.example/x?y=1#z">Other</a><a href="mailto:a@b.com">Mail</a>
    <a href="javascript:void(0)">JS</a><a href="tel:+123">Tel</a><a href="ftp://files.example/">FTP</a>
    <a href="#top">Top</a><a href="sub/page.html">Relative</a><area href="//cdn.example/map">
    <a>no href</a><a href="http://[invalid">bad</a>`
  t.same(extractLinks(html, 'https://acme.example/dir/index.html'), [
    'https://acme.example/about',
    'https://other.example/x?y=1',
    'https://acme.example/dir/index.html',
    'https://acme.example/dir/sub/page.html',
    'https://cdn.example/map',
  ])
})

t.test('extractLinks honours <base href>', async t => {
  const html = '<head><base href="/docs/"></head><a href="intro.html">Intro</a>'
  t.same(extractLinks(html, 'https://acme.example/page'), ['https://acme.example/docs/intro.html'])
})
