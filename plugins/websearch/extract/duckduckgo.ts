// DuckDuckGo's two no-JavaScript endpoints: html.duckduckgo.com/html (div
// results) and lite.duckduckgo.com/lite (a table). The html parser also reads
// the JavaScript SERP's DOM, which uses the same `result__*` class names.
import * as cheerio from 'cheerio'
import { cleanText, distinctTexts, resultsOf, scrapedPage, type NextPage, type SerpPage } from './serp-page.ts'

/**
 * DuckDuckGo answers a suspected bot with HTTP 202 and an "anomaly" page:
 * a challenge form posting to /anomaly.js and the line "Unfortunately, bots
 * use DuckDuckGo too".
 */
function detectDuckDuckGoBlock (html: string): string | null {
  if (/bots use DuckDuckGo too/i.test(html)) return 'DuckDuckGo anomaly page ("bots use DuckDuckGo too")'
  if (/anomaly-modal|\/anomaly\.js|class=["'][^"']*anomaly/i.test(html)) return 'DuckDuckGo anomaly (bot challenge) page'
  if (/If this (error )?persists, please[\s\S]{0,80}(email|let us know)/i.test(html) && /captcha|challenge/i.test(html)) return 'DuckDuckGo challenge page'
  return null
}

function nextForm ($: cheerio.CheerioAPI, forms: cheerio.Cheerio<any>, pageUrl: string): NextPage | null {
  for (const form of forms.toArray()) {
    const $form = $(form)
    const fields: Record<string, string> = {}
    $form.find('input[name]').each((_, input) => {
      const name = $(input).attr('name')!
      fields[name] = $(input).attr('value') ?? ''
    })
    // The "Next" form carries the offset `s`; the "Previous" one has a smaller one. Keep the next.
    const submit = cleanText($form.find('input[type=submit]').attr('value'))
    if (fields.s !== undefined && !/prev/i.test(submit)) {
      const action = new URL($form.attr('action') ?? '', pageUrl).toString()
      return { kind: 'form', action, fields }
    }
  }
  return null
}

export function parseDuckDuckGoHtml (html: string, pageUrl: string): SerpPage {
  const $ = cheerio.load(html)
  const results = resultsOf($, 'div.result', pageUrl, $el => {
    // Ads on the html endpoint are `result--ad`; the empty "No more results" block is `result--no-result`.
    if ($el.is('.result--ad, .result--no-result') || $el.find('.badge--ad').length) return null
    const link = $el.find('a.result__a').first()
    return { title: link.text(), href: link.attr('href'), snippet: $el.find('.result__snippet').first().text() }
  })
  const zeroClick = $('.zci, .zero_click_wrapper').first()
  const answerText = cleanText(zeroClick.find('.zci__result, .zci__body').first().text())
  const answerBox = answerText
    ? { type: 'instant_answer', title: cleanText(zeroClick.find('.zci__heading').first().text()) || null, text: answerText, url: zeroClick.find('a.zci__heading, .zci__heading a').attr('href') ?? null }
    : null
  return scrapedPage(html, results, {
    related: distinctTexts($('.related-searches a, #related_searches a').map((_, a) => $(a).text()).get()),
    answerBox,
    refusal: detectDuckDuckGoBlock,
    next: () => nextForm($, $('.nav-link form'), pageUrl),
  })
}

export function parseDuckDuckGoLite (html: string, pageUrl: string): SerpPage {
  const $ = cheerio.load(html)
  const results = resultsOf($, 'a.result-link', pageUrl, $link => {
    const row = $link.closest('tr')
    if (row.is('.result-sponsored') || row.find('.result-sponsored').length) return null
    // The snippet is in the next row that holds a `result-snippet` cell, before the next result link.
    let snippet = ''
    for (let next = row.next(); next.length; next = next.next()) {
      if (next.find('a.result-link').length) break
      const cell = next.find('td.result-snippet')
      if (cell.length) { snippet = cell.text(); break }
    }
    return { title: $link.text(), href: $link.attr('href'), snippet }
  })
  return scrapedPage(html, results, { refusal: detectDuckDuckGoBlock, next: () => nextForm($, $('form.next_form'), pageUrl) })
}
