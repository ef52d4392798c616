// Slugs derived from titles: ASCII folding, symbols, length, duplicates, reserved names.
import t from 'tap'
import { build } from '../helpers/build.ts'
import { baseSlug, firstFreeSlug, slugify, SLUG_MAX } from '../../core/features/blog/slug.ts'
import { publish, published } from './_blog.ts'

t.test('slugify folds to ASCII through NFKD', async t => {
  const cases: Array<[string, string]> = [
    ['Crème Brûlée & Co.', 'creme-brulee-co'],
    ['Ærøskøbing Straße', 'aeroskobing-strasse'],
    ['Łódź — Kraków', 'lodz-krakow'],
    ['Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３', 'fullwidth-abc-123'],
    ['ﬁnancial ﬂow', 'financial-flow'],
    ["Don't Stop: 10% Off!!!", 'dont-stop-10-off'],
    ['  --Leading & trailing--  ', 'leading-trailing'],
    ['C++ / C# / F#', 'c-c-f'],
    ['Emoji 🚀 rocket', 'emoji-rocket'],
    ['Þórr and Ðóra', 'thorr-and-dora'],
    ['', ''],
    ['東京 データ', ''],
  ]
  for (const [title, slug] of cases) t.equal(slugify(title), slug, title)
})

t.test('long titles are cut at a word boundary, within the maximum', async t => {
  const slug = slugify('word '.repeat(40))
  t.ok(slug.length <= SLUG_MAX)
  t.notOk(slug.endsWith('-'))
  t.match(slug, /^(word-)*word$/)
  t.equal(slugify('x'.repeat(200)).length, SLUG_MAX)
})

t.test('a title with nothing ASCII falls back to "article"', async t => {
  t.equal(baseSlug('東京'), 'article')
  t.equal(baseSlug('!!!'), 'article')
})

t.test('firstFreeSlug adds -2, -3 … and skips reserved names', async t => {
  t.equal(firstFreeSlug('a', []), 'a')
  t.equal(firstFreeSlug('a', ['a']), 'a-2')
  t.equal(firstFreeSlug('a', ['a', 'a-2', 'a-3']), 'a-4')
  t.equal(firstFreeSlug('a', ['a', 'a-3']), 'a-2')
  t.equal(firstFreeSlug('list', []), 'list-2')
  const long = 'x'.repeat(SLUG_MAX)
  const next = firstFreeSlug(long, [long])
  t.equal(next.length, SLUG_MAX)
  t.ok(next.endsWith('-2'))
})

t.test('derived slugs through the API: accents, symbols, duplicates', async t => {
  const app = await build(t)
  t.equal((await published(app, { title: 'Crème Brûlée', content: 'x' })).slug, 'creme-brulee')
  t.equal((await published(app, { title: 'CRÈME brûlée!', content: 'x' })).slug, 'creme-brulee-2')
  t.equal((await published(app, { title: 'Crème — Brûlée?', content: 'x' })).slug, 'creme-brulee-3')
  t.equal((await published(app, { title: '¿Qué pasa?', content: 'x' })).slug, 'que-pasa')
  t.equal((await published(app, { title: '東京', content: 'x' })).slug, 'article')
  t.equal((await published(app, { title: '大阪', content: 'x' })).slug, 'article-2')
  t.equal((await published(app, { title: 'List', content: 'x' })).slug, 'list-2', 'a route name is never derived')
  t.equal((await published(app, { title: 'Generate', content: 'x' })).slug, 'generate-2')
  // An explicit slug takes its name; a later derived one steps around it.
  t.equal((await published(app, { title: 'Other', slug: 'data-tips', content: 'x' })).slug, 'data-tips')
  t.equal((await published(app, { title: 'Data Tips', content: 'x' })).slug, 'data-tips-2')
  // A draft holds its slug too.
  t.equal((await published(app, { title: 'Hidden', content: 'x', status: 'draft' })).slug, 'hidden')
  t.equal((await published(app, { title: 'Hidden', content: 'x' })).slug, 'hidden-2')
  const res = await publish(app, { title: 'x', slug: 'hidden', content: 'x' })
  t.equal(res.statusCode, 409, 'a draft\'s slug is taken')
})

t.test('concurrent posts with the same title all get distinct slugs', async t => {
  const app = await build(t)
  const results = await Promise.all(Array.from({ length: 5 }, () => publish(app, { title: 'Same Title', content: 'x' })))
  t.same(results.map(r => r.statusCode), [201, 201, 201, 201, 201])
  const slugs = results.map(r => r.json().post.slug as string).sort()
  t.same(slugs, ['same-title', 'same-title-2', 'same-title-3', 'same-title-4', 'same-title-5'])
})
