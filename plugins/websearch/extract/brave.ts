// Brave Search (search.brave.com/search): server-rendered Svelte markup.
// Web results are `div.snippet[data-type="web"]`; clusters (videos, news)
// are `standalone` snippets without that type. Class suffixes like
// `svelte-1rq4ngz` change with every deploy, so selectors use the stable part.
import * as cheerio from 'cheerio'
import { cleanText, distinctTexts, nextLink, resultsOf, scrapedPage, type SerpPage } from './serp-page.ts'

/** Brave refuses with a proof-of-work captcha page at /search/captcha or a "rate limited" page. */
function detectBraveBlock (html: string, pageUrl: string): string | null {
  if (/\/captcha/i.test(new URL(pageUrl).pathname)) return 'Brave captcha page'
  if (/<title>[^<]*captcha[^<]*<\/title>|pow-captcha|id=["']captcha/i.test(html)) return 'Brave captcha page'
  if (/unusual (traffic|activity)|too many requests|you have been rate limited/i.test(html)) return 'Brave rate-limit page'
  return null
}

export function parseBrave (html: string, pageUrl: string): SerpPage {
  const $ = cheerio.load(html)
  const results = resultsOf($, '#results div.snippet[data-type="web"], div.snippet[data-type="web"]', pageUrl, $el => {
    const link = $el.find('a[href]').first()
    const title = $el.find('.title, .snippet-title').first().text() || link.text()
    const snippet = $el.find('.generic-snippet .content, .snippet-description, .content').first().text()
    return { title, href: link.attr('href'), snippet }
  }, { excludeHosts: /(^|\.)search\.brave\.com$/ })

  let answerBox: Record<string, unknown> | null = null
  const infobox = $('#infobox, [data-type="infobox"]').first()
  const infoTitle = cleanText(infobox.find('.infobox-header-title, .infobox-title').first().text())
  const infoText = cleanText(infobox.find('.infobox-description').first().text() || infobox.find('.infobox-section').first().text())
  if (infoTitle || infoText) answerBox = { type: 'infobox', title: infoTitle || null, text: infoText || null, url: infobox.find('a[href^="http"]').first().attr('href') ?? null }

  return scrapedPage(html, results, {
    related: distinctTexts($('.related-query, #related-queries a').map((_, a) => $(a).text()).get()),
    answerBox,
    refusal: () => detectBraveBlock(html, pageUrl),
    next: () => nextLink($('a[href*="offset="]').filter((_, a) => /next/i.test($(a).text())).first().attr('href'), pageUrl),
  })
}
