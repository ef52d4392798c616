import t from 'tap'
import { readFileSync } from 'node:fs'
import { findSocialLinks, normaliseSocialUrl } from '../../plugins/lib/scanners.ts'
import { readCapture } from './captures.ts'

const PAGE_URL = 'https://acme-widgets.com/about'

t.test('profiles by known host, normalised and de-duplicated', async t => {
  const html = `
    <a href="https://www.facebook.com/AcmeWidgets/">Facebook</a>
    <a href="https://facebook.com/AcmeWidgets?fbclid=abc#top">Facebook again</a>
    <a href="https://www.instagram.com/acmewidgets/?igshid=xyz">Instagram</a>
    <a href="https://twitter.com/acmewidgets">Twitter</a>
    <a href="https://x.com/acmewidgets">X</a>
    <a href="https://uk.linkedin.com/company/acme-widgets">LinkedIn</a>
    <a href="https://m.youtube.com/@acmewidgets?utm_source=site">YouTube</a>
    <a href="https://www.tiktok.com/@acmewidgets">TikTok</a>
    <a href="https://www.pinterest.co.uk/acmewidgets/">Pinterest</a>
    <a href="https://github.com/acme-widgets">GitHub</a>
    <a href="https://www.threads.net/@acmewidgets">Threads</a>
    <a href="https://bsky.app/profile/acme.bsky.social">Bluesky</a>
    <a href="https://wa.me/442079460018?text=Hello">WhatsApp</a>
    <link rel="me" href="https://t.me/acmewidgets">
    <a href="/blog">Blog</a>`
  t.same(findSocialLinks(html, PAGE_URL), [
    { platform: 'facebook', url: 'https://facebook.com/AcmeWidgets', host: 'facebook.com' },
    { platform: 'instagram', url: 'https://instagram.com/acmewidgets', host: 'instagram.com' },
    { platform: 'x', url: 'https://twitter.com/acmewidgets', host: 'twitter.com' },
    { platform: 'x', url: 'https://x.com/acmewidgets', host: 'x.com' },
    { platform: 'linkedin', url: 'https://uk.linkedin.com/company/acme-widgets', host: 'uk.linkedin.com' },
    { platform: 'youtube', url: 'https://youtube.com/@acmewidgets', host: 'youtube.com' },
    { platform: 'tiktok', url: 'https://tiktok.com/@acmewidgets', host: 'tiktok.com' },
    { platform: 'pinterest', url: 'https://pinterest.co.uk/acmewidgets', host: 'pinterest.co.uk' },
    { platform: 'github', url: 'https://github.com/acme-widgets', host: 'github.com' },
    { platform: 'threads', url: 'https://threads.net/@acmewidgets', host: 'threads.net' },
    { platform: 'bluesky', url: 'https://bsky.app/profile/acme.bsky.social', host: 'bsky.app' },
    { platform: 'whatsapp', url: 'https://wa.me/442079460018', host: 'wa.me' },
    { platform: 'telegram', url: 'https://t.me/acmewidgets', host: 't.me' },
  ])
})

t.test('share and intent links are ignored', async t => {
  const shares = [
    'https://www.facebook.com/sharer/sharer.php?u=https%3A%2F%2Facme-widgets.com',
    'https://www.facebook.com/sharer.php?u=https://acme-widgets.com',
    'https://www.facebook.com/dialog/share?app_id=1&href=https://acme-widgets.com',
    'https://twitter.com/intent/tweet?text=Look&url=https://acme-widgets.com',
    'https://x.com/intent/post?url=https://acme-widgets.com',
    'https://twitter.com/share?url=https://acme-widgets.com',
    'https://www.linkedin.com/shareArticle?mini=true&url=https://acme-widgets.com',
    'https://www.linkedin.com/sharing/share-offsite/?url=https://acme-widgets.com',
    'https://pinterest.com/pin/create/button/?url=https://acme-widgets.com',
    'https://www.reddit.com/submit?url=https://acme-widgets.com',
    'https://wa.me/?text=https://acme-widgets.com',
    'https://api.whatsapp.com/send?text=https://acme-widgets.com',
    'https://t.me/share/url?url=https://acme-widgets.com',
    'https://www.facebook.com/',
    'https://twitter.com/hashtag/widgets?src=hash',
    'https://www.youtube.com/t/terms',
  ]
  for (const href of shares) t.equal(normaliseSocialUrl(href, PAGE_URL), null, href)
  const html = shares.map(href => `<a href="${href}">share</a>`).join('') + '<a href="https://www.facebook.com/AcmeWidgets">page</a>'
  t.same(findSocialLinks(html, PAGE_URL).map(link => link.url), ['https://facebook.com/AcmeWidgets'])
})

t.test('intent/follow names the account', async t => {
  t.same(normaliseSocialUrl('https://twitter.com/intent/follow?screen_name=acmewidgets', PAGE_URL),
    { platform: 'x', url: 'https://twitter.com/acmewidgets', host: 'twitter.com' })
})

t.test('relative, non-http and unrelated links are skipped', async t => {
  const html = '<a href="/facebook">internal</a><a href="javascript:void(0)">js</a><a href="mailto:a@b.com">mail</a><a href="https://notfacebook.com/acme">lookalike</a><a href="https://facebook.com.evil.example/acme">lookalike</a>'
  t.same(findSocialLinks(html, PAGE_URL), [])
})

t.test('schema.org sameAs in JSON-LD', async t => {
  const html = readFileSync(new URL('./fixtures/contact-page.html', import.meta.url), 'utf8')
  t.same(findSocialLinks(html, PAGE_URL), [{ platform: 'linkedin', url: 'https://linkedin.com/company/acme-widgets', host: 'linkedin.com' }])
  t.same(findSocialLinks('<script type="application/ld+json">{not json</script>', PAGE_URL), [], 'malformed JSON-LD is skipped')
})

t.test('capture: deutscheweine.de footer profiles', async t => {
  const html = readCapture(t, 'emails/obfuscated_at_dot_deutscheweine.html')
  if (html === null) return
  const links = findSocialLinks(html, 'https://www.deutscheweine.de/')
  t.match(links, [
    { platform: 'instagram', url: 'https://instagram.com/wines_of_germany' },
    { platform: 'x', url: 'https://twitter.com/weininstitut' },
    { platform: 'facebook', url: 'https://facebook.com/deutsches.weininstitut' },
    { platform: 'youtube', url: 'https://youtube.com/user/deutscheweine' },
  ])
  t.equal(new Set(links.map(link => link.url)).size, links.length, 'no duplicate URLs')
})

t.test('capture: barbadostoday.bb share buttons left out', async t => {
  const html = readCapture(t, 'emails/cfemail_barbadostoday_article.html')
  if (html === null) return
  const links = findSocialLinks(html, 'https://barbadostoday.bb/')
  t.ok(links.some(link => link.url === 'https://facebook.com/barbadostoday'))
  t.notOk(links.some(link => /share|intent/i.test(link.url)), JSON.stringify(links.map(link => link.url)))
})
