// Mojeek (www.mojeek.com/search): plain server-rendered markup,
// `ul.results-standard > li` with `h2 a.title` and `p.s`.
import * as cheerio from 'cheerio'
import { distinctTexts, nextLink, resultsOf, scrapedPage, type SerpPage } from './serp-page.ts'

/** Mojeek answers automated traffic with a 403 page saying the network "appears to be sending automated queries". */
function detectMojeekBlock (html: string): string | null {
  if (/automated queries|sending automated|unusual traffic/i.test(html)) return 'Mojeek automated-queries page'
  if (/<title>[^<]*(403|forbidden|captcha)[^<]*<\/title>/i.test(html)) return 'Mojeek refusal page'
  return null
}

export function parseMojeek (html: string, pageUrl: string): SerpPage {
  const $ = cheerio.load(html)
  const results = resultsOf($, 'ul.results-standard > li', pageUrl, $el => {
    const link = $el.find('h2 a.title, h2 a').first()
    return { title: link.text(), href: link.attr('href') ?? $el.find('a.ob').attr('href'), snippet: $el.find('p.s').first().text() }
  })
  return scrapedPage(html, results, {
    related: distinctTexts($('.related-searches a, .top-info.spell em a').map((_, a) => $(a).text()).get()),
    refusal: detectMojeekBlock,
    next: () => nextLink($('.pagination a').filter((_, a) => /next/i.test($(a).text())).first().attr('href'), pageUrl),
  })
}
