// Google web search (www.google.com/search). Two markups reach an HTTP client:
// - the JS desktop page: results are `div.g` blocks with `a > h3`, snippets in
//   `.VwiC3b` (or a line-clamped div), featured snippet in `.xpdopen`/`block-component`;
// - the basic no-JS page: results are `div.Gx5Zad` blocks with `a[href^="/url?q="] h3`,
//   text in `.BNeawe.s3v9rd`, related searches in `a.Q71vJc`.
// Both are read by anchoring on `a h3`, which both share.
import * as cheerio from 'cheerio'
import { buildResults, cleanText, distinctTexts, nextLink, scrapedPage, toAbsoluteHttpUrl, unwrapRedirect, type RawResult, type SerpPage } from './serp-page.ts'

/**
 * Google's refusals: a redirect to /sorry/ (the unusual-traffic captcha),
 * the consent wall on consent.google.com (EU), and the "enable JavaScript"
 * retry page it now serves to clients it does not trust.
 */
function detectGoogleBlock (html: string, pageUrl: string): string | null {
  let url: URL | null = null
  try { url = new URL(pageUrl) } catch { /* keep checking the body */ }
  if (url && url.pathname.startsWith('/sorry/')) return 'Google unusual-traffic captcha (/sorry/)'
  if (url && url.hostname === 'consent.google.com') return 'Google consent wall (consent.google.com)'
  if (/detected unusual traffic from your computer network/i.test(html)) return 'Google unusual-traffic page'
  if (/id=["']captcha-form["']|action=["'][^"']*\/sorry\//i.test(html)) return 'Google unusual-traffic captcha (/sorry/)'
  if (/action=["']https:\/\/consent\.google\.com|Before you continue to Google/i.test(html)) return 'Google consent wall (consent.google.com)'
  if (/\/httpservice\/retry\/enablejs/i.test(html)) return 'Google JavaScript-required page (enablejs)'
  return null
}

function isGoogleNavigation (href: string | undefined, pageUrl: string): boolean {
  const absolute = toAbsoluteHttpUrl(href, pageUrl)
  if (!absolute) return true
  const url = new URL(unwrapRedirect(absolute))
  // Links back into Google search itself ("More results", related queries) are navigation, not results.
  return /^(www\.)?google\.[a-z.]+$/.test(url.hostname) && url.pathname === '/search'
}

export function parseGoogle (html: string, pageUrl: string): SerpPage {
  const $ = cheerio.load(html)
  const raw: RawResult[] = []
  $('a h3').each((_, h3) => {
    const $h3 = $(h3)
    const link = $h3.closest('a')
    const href = link.attr('href')
    if (isGoogleNavigation(href, pageUrl)) return
    // Ads (#tads, #bottomads, data-text-ad) and "People also ask" answers are not organic results.
    if (link.closest('#tads, #bottomads, [data-text-ad], .related-question-pair, g-accordion-expander').length) return
    const block = link.closest('div.g, div.Gx5Zad, div.MjjYud')
    let snippet = block.find('.VwiC3b, [data-sncf="1"], div[style*="-webkit-line-clamp"] > span').first().text()
    if (!cleanText(snippet)) {
      // No-JS markup nests the same class; the innermost holder is the snippet proper.
      const holders = block.find('.BNeawe.s3v9rd.AP7Wnd').filter((_, el) => $(el).find('.BNeawe.s3v9rd').length === 0)
      snippet = holders.first().text()
    }
    raw.push({ title: $h3.text(), href, snippet })
  })
  const results = buildResults(raw, pageUrl)

  const related = distinctTexts([
    ...$('a.k8XOCe').map((_, a) => $(a).text()).get(),
    ...$('a.Q71vJc').map((_, a) => $(a).text()).get(),
  ])

  let answerBox: Record<string, unknown> | null = null
  const featured = $('.xpdopen, block-component').first()
  const featuredText = cleanText(featured.find('.hgKElc, .LGOjhe, .IZ6rdc').first().text())
  if (featuredText) {
    const source = featured.find('a h3').first()
    answerBox = {
      type: 'featured_snippet',
      text: featuredText,
      title: cleanText(source.text()) || null,
      url: toAbsoluteHttpUrl(source.closest('a').attr('href'), pageUrl),
    }
  } else {
    const description = cleanText($('.kno-rdesc span').first().text())
    const panelTitle = cleanText($('[data-attrid="title"]').first().text())
    if (description || panelTitle) answerBox = { type: 'knowledge_panel', title: panelTitle || null, text: description || null }
  }

  // The featured snippet's source result has an empty snippet of its own; the featured text is its snippet.
  if (answerBox?.type === 'featured_snippet' && answerBox.url) {
    for (const result of results) if (result.url === answerBox.url && !result.snippet) result.snippet = featuredText
  }

  return scrapedPage(html, results, {
    related,
    answerBox,
    refusal: () => detectGoogleBlock(html, pageUrl),
    next: () => nextLink($('a#pnnext').attr('href') ?? $('a[aria-label="Next page"]').attr('href'), pageUrl),
  })
}
