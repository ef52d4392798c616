// Refusal pages, hand-written after the real ones (Google's /sorry/ captcha
// and consent wall, Bing's challenge, DuckDuckGo's anomaly page, Yahoo's
// consent wall, Brave's captcha, Mojeek's automated-queries page), and the
// redirect wrappers each engine puts around result links.
import t from 'tap'
import { parseDuckDuckGoHtml, parseDuckDuckGoLite } from '../../../plugins/websearch/extract/duckduckgo.ts'
import { parseBing } from '../../../plugins/websearch/extract/bing.ts'
import { parseBrave } from '../../../plugins/websearch/extract/brave.ts'
import { parseMojeek } from '../../../plugins/websearch/extract/mojeek.ts'
import { parseYahoo } from '../../../plugins/websearch/extract/yahoo.ts'
import { parseGoogle } from '../../../plugins/websearch/extract/google.ts'
import { parseGoogleCse, parseSerpApi, parseSerper } from '../../../plugins/websearch/extract/providers.ts'
import { unwrapRedirect, buildResults } from '../../../plugins/websearch/extract/serp-page.ts'
import { BLOCK_PAGES } from './block-pages.ts'

t.test('Google /sorry/ unusual-traffic captcha (by final URL and by body)', async t => {
  t.match(parseGoogle(BLOCK_PAGES.googleSorry, 'https://www.google.com/sorry/index?continue=https://www.google.com/search%3Fq%3Dx&q=EgQ').blocked, /unusual-traffic captcha/)
  t.match(parseGoogle(BLOCK_PAGES.googleSorry, 'https://www.google.com/search?q=x').blocked, /unusual-traffic/)
})

t.test('Google consent wall (consent.google.com)', async t => {
  t.match(parseGoogle(BLOCK_PAGES.googleConsent, 'https://consent.google.com/ml?continue=https://www.google.com/search?q%3Dx').blocked, /consent wall/)
  t.match(parseGoogle(BLOCK_PAGES.googleConsent, 'https://www.google.com/search?q=x').blocked, /consent wall/)
})

t.test('Google JavaScript-required page', async t => {
  t.match(parseGoogle(BLOCK_PAGES.googleEnableJs, 'https://www.google.com/search?q=x').blocked, /JavaScript-required/)
})

t.test('Bing captcha and challenge pages', async t => {
  t.match(parseBing(BLOCK_PAGES.bingCaptcha, 'https://www.bing.com/search?q=x').blocked, /Bing (captcha|challenge)/)
  t.match(parseBing('<html><body>ok</body></html>', 'https://www.bing.com/turing/captcha/challenge?q=x').blocked, /Bing captcha/)
})

t.test('DuckDuckGo anomaly page on both endpoints', async t => {
  t.match(parseDuckDuckGoHtml(BLOCK_PAGES.duckduckgoAnomaly, 'https://html.duckduckgo.com/html/').blocked, /DuckDuckGo anomaly/)
  t.match(parseDuckDuckGoLite(BLOCK_PAGES.duckduckgoAnomaly, 'https://lite.duckduckgo.com/lite/').blocked, /DuckDuckGo anomaly/)
})

t.test('Yahoo consent wall (guce.yahoo.com)', async t => {
  t.match(parseYahoo(BLOCK_PAGES.yahooConsent, 'https://consent.yahoo.com/v2/collectConsent?sessionId=3_cc-session_abc').blocked, /Yahoo consent wall/)
  t.match(parseYahoo(BLOCK_PAGES.yahooConsent, 'https://search.yahoo.com/search?p=x').blocked, /Yahoo consent wall/)
})

t.test('Brave captcha and Mojeek automated-queries pages', async t => {
  t.match(parseBrave(BLOCK_PAGES.braveCaptcha, 'https://search.brave.com/search?q=x').blocked, /Brave captcha/)
  t.match(parseMojeek(BLOCK_PAGES.mojeekAutomated, 'https://www.mojeek.com/search?q=x').blocked, /automated-queries/)
})

t.test('a Cloudflare challenge in front of any engine', async t => {
  t.match(parseMojeek(BLOCK_PAGES.cloudflareChallenge, 'https://www.mojeek.com/search?q=x').blocked, /Cloudflare/)
})

t.test('a results page that merely mentions captchas is not a block', async t => {
  const page = parseDuckDuckGoHtml(BLOCK_PAGES.duckduckgoResultsAboutCaptcha, 'https://html.duckduckgo.com/html/')
  t.equal(page.blocked, null)
  t.equal(page.results.length, 1)
})

t.test('providers: quota is a refusal, a bad key is an error, no results is neither', async t => {
  t.match(parseSerpApi({ error: 'Your account has run out of searches.' }, 'https://serpapi.com/search.json'), { blocked: /run out of searches/, results: [] })
  t.match(parseSerpApi({ error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' }, 'https://serpapi.com/search.json'), { blocked: null, error: /Invalid API key/ })
  t.match(parseSerpApi({ error: "Google hasn't returned any results for this query." }, 'https://serpapi.com/search.json'), { blocked: null, results: [] })
  t.notOk(parseSerpApi({ error: "Google hasn't returned any results for this query." }, 'https://serpapi.com/search.json').error)
  t.match(parseSerper({ message: 'Not enough credits', statusCode: 400 }, 'https://google.serper.dev/search'), { blocked: /Not enough credits/ })
  t.match(parseSerper({ message: 'Unauthorized.', statusCode: 403 }, 'https://google.serper.dev/search'), { blocked: null, error: /Unauthorized/ })
  t.match(parseGoogleCse({ error: { code: 429, message: "Quota exceeded for quota metric 'Queries' and limit 'Queries per day'", status: 'RESOURCE_EXHAUSTED' } }, 'https://www.googleapis.com/customsearch/v1'), { blocked: /Quota exceeded/ })
  t.match(parseGoogleCse({ error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } }, 'https://www.googleapis.com/customsearch/v1'), { blocked: null, error: /API key not valid/ })
  t.match(parseGoogleCse({ kind: 'customsearch#search', searchInformation: { totalResults: '0' } }, 'https://www.googleapis.com/customsearch/v1'), { blocked: null, results: [] })
})

t.test('redirect wrappers are unwrapped to the destination', async t => {
  t.equal(unwrapRedirect('https://r.search.yahoo.com/_ylt=AwrFQ;_ylu=Y29sbw--/RV=2/RE=1766000000/RO=10/RU=https%3a%2f%2fwww.w3schools.com%2fjs%2f/RK=2/RS=abc-'), 'https://www.w3schools.com/js/')
  t.equal(unwrapRedirect('https://www.google.com/url?q=https://example.com/a%3Fb%3D1&sa=U&ved=2ah&usg=AOv'), 'https://example.com/a?b=1')
  t.equal(unwrapRedirect('https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fpage&rut=abc'), 'https://example.org/page')
  const bing = `https://www.bing.com/ck/a?!&&p=abc&ptn=3&u=a1${Buffer.from('https://example.net/x?y=1').toString('base64url')}&ntb=1`
  t.equal(unwrapRedirect(bing), 'https://example.net/x?y=1')
  t.equal(unwrapRedirect('https://example.com/url?q=javascript:alert(1)'), 'https://example.com/url?q=javascript:alert(1)', 'a non-http target is not unwrapped')
  const rows = buildResults([
    { title: 'Yahoo-wrapped', href: 'https://r.search.yahoo.com/_ylt=A/RV=2/RE=1/RO=10/RU=https%3a%2f%2fexample.com%2f/RK=2/RS=x-' },
    { title: 'Relative Google', href: '/url?q=https://example.org/&sa=U' },
    { title: 'Protocol-relative DuckDuckGo', href: '//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.net%2F&rut=1' },
    { title: 'Javascript link', href: 'javascript:void(0)' },
    { title: '', href: 'https://example.info/' },
  ], 'https://www.google.com/search?q=x')
  t.same(rows.map(r => r.url), ['https://example.com/', 'https://example.org/', 'https://example.net/'])
})
