// A Facebook page's video list from its logged-out HTML (fb_covers page_videos):
// the real m.facebook.com page capture (Nintendo's posts, 2021) lists its video
// post; a login or checkpoint page lists nothing and says which wall it was;
// which links name a page and what is fetched for them.
import t from 'tap'
import { readCapture } from '../../extract/captures.ts'
import { facebookPageListUrl, facebookPageVideosFromHtml } from '../../../plugins/lib/media/index.ts'

t.test('the captured logged-out page: its video post, by link, each video once', async t => {
  const html = readCapture(t, 'social/facebook_m_page_posts_logged_out_2021.html')
  if (html === null) return
  const listed = facebookPageVideosFromHtml(html, { pageUrl: 'https://m.facebook.com/Nintendo/posts/' })
  // The post links /Nintendo/videos/nintendo-monthly-rewind-may-2021/286348296528911/ and its player's data-store says videoID 286348296528911.
  t.same(listed, { videos: ['https://m.facebook.com/Nintendo/videos/286348296528911/'], wall: null })
  t.notOk(listed.videos.some(v => v.includes('?ref=')), 'the page\'s Videos tab link is not a video')
  // Links are read against the URL that answered (after redirects), scheme and port included.
  t.same(facebookPageVideosFromHtml(html, { pageUrl: 'http://m.facebook.com:8080/Nintendo/posts/' }).videos, ['http://m.facebook.com:8080/Nintendo/videos/286348296528911/'])
})

t.test('the other link forms; a player without a link is linked by its id', async t => {
  const html = '<a href="/watch/?v=1234567890&amp;ref=x">a</a><a href="https://www.facebook.com/reel/2234567890/?s=1">b</a>' +
    '<a href="/video.php?v=3234567890">c</a><a href="https://evil.example/Page/videos/4234567890/">d</a>' +
    '<div data-store="&#123;&quot;videoID&quot;:&quot;5234567890&quot;&#125;"></div><div data-store="{&quot;videoID&quot;:&quot;1234567890&quot;}"></div>'
  t.same(facebookPageVideosFromHtml(html, { pageUrl: 'https://m.facebook.com/Page' }).videos, [
    'https://m.facebook.com/watch/?v=1234567890',
    'https://m.facebook.com/reel/2234567890/',
    'https://m.facebook.com/watch/?v=3234567890',
    'https://m.facebook.com/watch/?v=5234567890',
  ], 'other hosts are not Facebook videos; an id seen twice is listed once')
})

t.test('a login or checkpoint page lists nothing and names the wall', async t => {
  const login = '<html><head><title>Log into Facebook</title></head><body><form id="login_form" action="/login/device-based/regular/login/?refsrc=x" method="post"></form></body></html>'
  t.same(facebookPageVideosFromHtml(login, { pageUrl: 'https://m.facebook.com/login/?next=%2FNASA' }), { videos: [], wall: 'login' })
  t.same(facebookPageVideosFromHtml('<form action="/checkpoint/block/?next=x"></form>', { pageUrl: 'https://m.facebook.com/NASA' }), { videos: [], wall: 'checkpoint' })
  t.same(facebookPageVideosFromHtml('<html><title>NASA</title><body>No posts</body></html>', { pageUrl: 'https://m.facebook.com/NASA' }), { videos: [], wall: null }, 'an empty page is no wall')
})

t.test('which links name a page, and the page that is read for them', async t => {
  const cases: Array<[string, string | null]> = [
    ['https://www.facebook.com/NASA', 'https://m.facebook.com/NASA'],
    ['https://www.facebook.com/NASA/videos?ref=page_internal#x', 'https://m.facebook.com/NASA/videos'],
    ['https://facebook.com/profile.php?id=100064&sk=videos', 'https://m.facebook.com/profile.php?id=100064'],
    ['http://www.facebook.com:8080/TestPage/videos', 'http://m.facebook.com:8080/TestPage/videos'],
    ['https://www.facebook.com/watch/?v=10153231379946729', null],
    ['https://www.facebook.com/NASA/videos/10153231379946729/', null],
    ['https://www.facebook.com/reel/123456789', null],
    ['https://fb.watch/abcDEF/', null],
    ['https://www.facebook.com/profile.php?id=x', null],
    ['https://evil.example/facebook.com/NASA', null],
    ['not a link', null],
  ]
  for (const [link, page] of cases) t.equal(facebookPageListUrl(link), page, link)
})
