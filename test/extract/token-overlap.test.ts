import t from 'tap'
import { stripTags, tokenOverlap, wordTokens } from './token-overlap.ts'

t.test('wordTokens: lower-cased letter and digit runs in any script', async t => {
  t.same(wordTokens('Größe 42, l’été — Ünïcode!'), ['größe', '42', 'l', 'été', 'ünïcode'])
})

t.test('tokenOverlap: multiset intersection over the longer text', async t => {
  t.equal(tokenOverlap('a b c', 'c b a'), 1, 'order does not count')
  t.equal(tokenOverlap('a a b', 'a b b'), 2 / 3, 'repeated tokens count once each')
  t.equal(tokenOverlap('a b', 'a b c d'), 0.5, 'extra words count against')
  t.equal(tokenOverlap('', ''), 1)
  t.equal(tokenOverlap('x', ''), 0)
})

t.test('stripTags: tags become spaces, entities are decoded', async t => {
  t.equal(stripTags('<p>One</p><p>Two&nbsp;&amp;&#32;three</p>').replace(/\s+/g, ' ').trim(), 'One Two & three')
})
