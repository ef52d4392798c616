// Yahoo Search (search.yahoo.com/search): organic results are `div.algo`
// (`dd algo algo-sr`). Links go through r.search.yahoo.com/.../RU=<encoded>/RK=...
// when served to a plain HTTP client; buildResults unwraps them.
import * as cheerio from 'cheerio'
import { cleanText, distinctTexts, nextLink, resultsOf, scrapedPage, type SerpPage } from './serp-page.ts'

/** Yahoo's refusals: the EU consent wall (consent.yahoo.com / guce.yahoo.com) and its unusual-traffic page. */
function detectYahooBlock (html: string, pageUrl: string): string | null {
  const host = new URL(pageUrl).hostname
  if (/^(consent|guce)\.yahoo\.com$/i.test(host) || /action=["'][^"']*(consent|guce)\.yahoo\.com/i.test(html) || /name=["']consentUUID["']|class=["'][^"']*consent-form/i.test(html)) return 'Yahoo consent wall'
  if (/unusual traffic|automated requests/i.test(html)) return 'Yahoo unusual-traffic page'
  return null
}

export function parseYahoo (html: string, pageUrl: string): SerpPage {
  const $ = cheerio.load(html)
  const results = resultsOf($, '#web div.algo, div.dd.algo', pageUrl, $el => {
    const link = $el.find('.compTitle a[href]').first()
    // The anchor also holds the favicon and displayed host; the title proper is the h3.
    const title = $el.find('.compTitle h3.title, h3.title').first().text() || link.attr('aria-label') || link.text()
    return { title, href: link.attr('href'), snippet: $el.find('.compText p, .compText').first().text() }
  }, { excludeHosts: /(^|\.)search\.yahoo\.com$/ })
  const related = distinctTexts($('.AlsoTry a, .AlsoTry_E a').map((_, a) => $(a).text()).get())
  const cardTitle = cleanText($('.cardReg .compTitle h2, .cardReg .title').first().text())
  const cardText = cleanText($('.cardReg .compText p').first().text())
  return scrapedPage(html, results, {
    related,
    answerBox: cardText ? { type: 'knowledge_card', title: cardTitle || null, text: cardText } : null,
    refusal: () => detectYahooBlock(html, pageUrl),
    next: () => nextLink($('a.next').attr('href'), pageUrl),
  })
}
