// The fb parsers: page references from every input form, the logged-out page
// HTML (the real 2021 m.facebook.com capture and the current www layout), the
// walls, the Graph API answer (the real 2019 capture) and the merge.
import t from 'tap'
import { readCapture } from '../../extract/captures.ts'
import { emptyDetails, mergeDetails, missingFields, pagePath, pageRef, parseCount, readGraphPage, readPageHtml, unshim, wallOfPath } from '../../../plugins/fb/extract.ts'
import { CHECKPOINT_PAGE, CONSENT_PAGE, LOGIN_PAGE, modernPageHtml } from './pages.ts'

t.test('page references: URLs of every host and form, vanity names, ids; other things are refused', async t => {
  const cases: Array<[string, ReturnType<typeof pageRef>]> = [
    ['https://www.facebook.com/Nintendo', { kind: 'username', value: 'Nintendo' }],
    ['https://m.facebook.com/Nintendo/posts/', { kind: 'username', value: 'Nintendo' }],
    ['mbasic.facebook.com/Nintendo?ref=bookmarks', { kind: 'username', value: 'Nintendo' }],
    ['https://web.facebook.com/pizzaburgbd?_rdc=1&_rdr', { kind: 'username', value: 'pizzaburgbd' }],
    ['facebook.com/coca.cola', { kind: 'username', value: 'coca.cola' }],
    ['https://en-gb.facebook.com/Nintendo/', { kind: 'username', value: 'Nintendo' }],
    ['https://www.facebook.com/pages/Meedan/105510962816034?fref=ts', { kind: 'id', value: '105510962816034' }],
    ['https://www.facebook.com/pages/category/Video-Game/Nintendo/posts/', { kind: 'username', value: 'Nintendo' }],
    ['https://www.facebook.com/profile.php?id=100064590111111', { kind: 'id', value: '100064590111111' }],
    ['https://www.facebook.com/people/Some-Name/100028295814975/', { kind: 'id', value: '100028295814975' }],
    ['https://www.facebook.com/pg/Nintendo/about/', { kind: 'username', value: 'Nintendo' }],
    ['https://www.facebook.com/119240841493711', { kind: 'id', value: '119240841493711' }],
    ['119240841493711', { kind: 'id', value: '119240841493711' }],
    ['Nintendo', { kind: 'username', value: 'Nintendo' }],
    ['@cocacola', { kind: 'username', value: 'cocacola' }],
    ['https://example.com/Nintendo', null],
    ['https://www.facebook.com/groups/123456789', null],
    ['https://www.facebook.com/watch/?v=1', null],
    ['https://www.facebook.com/', null],
    ['https://www.facebook.com/profile.php', null],
    ['not a page name', null],
    ['javascript:alert(1)', null],
  ]
  for (const [input, want] of cases) t.same(pageRef(input), want, input)
  t.equal(pagePath({ kind: 'username', value: 'Nintendo' }), '/Nintendo')
  t.equal(pagePath({ kind: 'id', value: '105510962816034' }), '/profile.php?id=105510962816034')
})

t.test('counts and links', async t => {
  t.equal(parseCount('5,411,563'), 5411563)
  t.equal(parseCount('5.4M'), 5400000)
  t.equal(parseCount('1.2K'), 1200)
  t.equal(parseCount('12'), 12)
  t.equal(parseCount('many'), null)
  t.equal(unshim('https://lm.facebook.com/l.php?u=https%3A%2F%2Fwww.nintendo.com%2F&h=AT3'), 'https://www.nintendo.com/')
  t.equal(unshim('https://acme.example/'), 'https://acme.example/')
  t.equal(wallOfPath('/login/'), 'login')
  t.equal(wallOfPath('/login.php'), 'login')
  t.equal(wallOfPath('/checkpoint/block/'), 'checkpoint')
  t.equal(wallOfPath('/privacy/consent/user_cookie_choice/'), 'consent')
  t.equal(wallOfPath('/Nintendo'), null)
})

t.test('the real 2021 m.facebook.com page (logged out): every field the old layout shows', async t => {
  const html = readCapture(t, 'social/facebook_m_page_posts_logged_out_2021.html')
  if (html === null) return
  const { page, wall } = readPageHtml(html, 'https://m.facebook.com/Nintendo/posts/')
  t.equal(wall, null, 'the login buttons of a readable page are not a wall')
  t.ok(page)
  t.match(page, {
    page_id: '119240841493711', // CurrentPage init
    username: 'Nintendo', // JSON-LD @id
    name: 'Nintendo',
    url: 'https://www.facebook.com/Nintendo',
    category: 'Video Game', // /pages/category/Video-Game/ in og:url
    likes: 5411563,
    talking_about: 25177,
    followers: null, // the 2021 layout does not show it
    verified: true, // the "Verified Page" badge beside the name
    website: 'https://www.nintendo.com/', // the launchpad link, unwrapped from l.php
  })
  t.equal(page!.about, 'Welcome to the official Nintendo Facebook page, home of all things Nintendo! For customer support, please visit support.nintendo.com.')
  t.match(page!.profile_image, /^https:\/\/scontent\.fhlz2-1\.fna\.fbcdn\.net\/v\/t1\.18169-1\/p200x200\/13138816_/)
  t.match(page!.cover_image, /^https:\/\/scontent\.fhlz2-1\.fna\.fbcdn\.net\/v\/t1\.6435-9\/fr\/cp0\/e15\/q65\/194757118_4194934717257616_2235442529885196083_n\.jpg\?_nc_cat=104&ccb=1-3&/, 'the CSS-escaped background URL, decoded')
})

t.test('the current www layout: Relay header, intro card and social context', async t => {
  const html = modernPageHtml({ name: 'Acme Roasters', vanity: 'AcmeRoasters', id: '104512345678901', followers: '12K', likes: '11,874' })
  const { page, wall } = readPageHtml(html, 'https://www.facebook.com/AcmeRoasters')
  t.equal(wall, null, 'a cookie banner beside the page does not hide it')
  t.same(page, {
    page_id: '104512345678901',
    username: 'AcmeRoasters',
    name: 'Acme Roasters',
    url: 'https://www.facebook.com/AcmeRoasters',
    category: 'Coffee shop',
    categories: ['Coffee shop', 'Bakery'],
    about: 'Acme Roasters roasts coffee in Portland.',
    website: 'https://acmeroasters.example/',
    websites: ['https://acmeroasters.example/'],
    phone: '+1 503-555-0142',
    email: 'hello@acmeroasters.example',
    address: '12 Roast Street, Portland, OR, 97201',
    followers: 12000,
    likes: 11874,
    talking_about: 310,
    verified: true,
    profile_image: 'https://scontent.example/AcmeRoasters-large.jpg',
    cover_image: 'https://scontent.example/AcmeRoasters-cover.jpg',
  })
})

t.test('walls: the login form, a checkpoint, the cookie-consent interstitial; a blank page is none of them', async t => {
  t.same(readPageHtml(LOGIN_PAGE, 'https://www.facebook.com/login/'), { page: null, wall: 'login' })
  t.same(readPageHtml(LOGIN_PAGE, 'https://www.facebook.com/Nintendo'), { page: null, wall: 'login' }, 'the login form served in place of the page')
  t.same(readPageHtml(CHECKPOINT_PAGE, 'https://www.facebook.com/Nintendo'), { page: null, wall: 'checkpoint' })
  t.same(readPageHtml(CONSENT_PAGE, 'https://www.facebook.com/Nintendo'), { page: null, wall: 'consent' })
  t.same(readPageHtml('<html><head><title>Page not found</title></head><body>This content isn\'t available right now</body></html>', 'https://www.facebook.com/x'), { page: null, wall: null })
})

t.test('the real 2019 Graph API page answer', async t => {
  const raw = readCapture(t, 'social/facebook_graph_page_default_fields_2019.json')
  if (raw === null) return
  const reading = readGraphPage(200, raw)
  t.equal(reading.kind, 'ok')
  if (reading.kind !== 'ok') return
  t.match(reading.page, {
    page_id: '20531316728',
    username: 'facebookapp',
    name: 'Facebook',
    url: 'https://www.facebook.com/facebookapp/',
    category: '网站',
    categories: ['网站', '公司'],
    about: 'The Facebook Page celebrates how our friends inspire us, support us, and help us discover the world when we connect.',
    website: 'http://www.facebook.com',
    likes: 214507731,
    talking_about: 652404,
    verified: true, // verification_status: blue_verified
    followers: null,
    email: null,
  })
  t.match(reading.page.profile_image, /^https:\/\/scontent\.xx\.fbcdn\.net\/v\/t1\.0-1\/p50x50\//)
  t.match(reading.page.cover_image, /^https:\/\/scontent\.xx\.fbcdn\.net\/v\/t1\.0-9\/s720x720\//)
  t.ok(missingFields(reading.page).includes('followers'), 'what the answer lacks is what the HTML is read for')
})

t.test('Graph errors: refused (permission, token, rate limit), missing, failed', async t => {
  const err = (code: number, sub?: number) => JSON.stringify({ error: { message: 'm', type: 'OAuthException', code, error_subcode: sub } })
  t.equal(readGraphPage(400, err(10)).kind, 'refused', 'no Page Public Metadata Access')
  t.equal(readGraphPage(400, err(190)).kind, 'refused', 'a rejected token')
  t.equal(readGraphPage(400, err(4)).kind, 'refused', 'app rate limit')
  t.equal(readGraphPage(400, err(803)).kind, 'missing')
  t.equal(readGraphPage(400, err(100, 33)).kind, 'missing')
  t.equal(readGraphPage(400, err(100)).kind, 'failed', 'e.g. a field this version does not know')
  t.equal(readGraphPage(502, 'Bad Gateway').kind, 'failed')
  t.equal(readGraphPage(429, '').kind, 'refused')
})

t.test('merge: the first source wins, the second fills its gaps', async t => {
  const graph = { ...emptyDetails(), name: 'From Graph', likes: 10, categories: ['A'] }
  const html = { ...emptyDetails(), name: 'From HTML', likes: 9, followers: 20, categories: ['B'], email: 'x@y.example' }
  t.match(mergeDetails(graph, html), { name: 'From Graph', likes: 10, followers: 20, categories: ['A'], email: 'x@y.example' })
})
