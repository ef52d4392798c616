// Bing (www.bing.com/search): organic results are `li.b_algo`; ads (`b_ad`),
// local packs and video carousels (`b_ans`) are not web results.
import * as cheerio from 'cheerio'
import { cleanText, distinctTexts, nextLink, resultsOf, scrapedPage, type SerpPage } from './serp-page.ts'

/** Bing's refusals: the "turing" captcha, its challenge interstitial, and the EU consent wall. */
function detectBingBlock (html: string, pageUrl: string): string | null {
  if (/\/turing\/captcha/i.test(pageUrl) || /\/turing\/captcha|id=["']b_captcha|class=["'][^"']*b_captcha/i.test(html)) return 'Bing captcha page'
  if (/Please solve the challenge below to continue|verify you are a human/i.test(html)) return 'Bing challenge page ("solve the challenge")'
  if (/id=["']bnp_container["'][\s\S]{0,2000}(consent|cookie)/i.test(html) && !/class=["']b_algo/.test(html)) return 'Bing consent wall'
  return null
}

export function parseBing (html: string, pageUrl: string): SerpPage {
  const $ = cheerio.load(html)
  const results = resultsOf($, '#b_results > li.b_algo, li.b_algo', pageUrl, $el => {
    const link = $el.find('h2 a').first()
    const snippet = $el.find('.b_caption p, p.b_lineclamp2, p.b_lineclamp3, p.b_lineclamp4, .b_snippet, p').first().text()
    return { title: link.text(), href: link.attr('href'), snippet }
  })

  const related = distinctTexts($('.b_rs a, #brsv3 a, .b_rrsr a').map((_, a) => $(a).text()).get())

  // The top answer ("b_ans b_top") carries a focus box or a fact; local packs are skipped.
  let answerBox: Record<string, unknown> | null = null
  const top = $('#b_results > li.b_ans.b_top, .b_top .b_focusTextLarge, .b_top .b_focusTextMedium').first()
  const topText = cleanText(top.find('.b_focusTextLarge, .b_focusTextMedium, .b_focusTextSmall, .b_paractl, .rwrl').first().text() || '')
  if (topText) {
    const source = top.find('cite').first().text()
    answerBox = { type: 'answer', text: topText, source: cleanText(source) || null }
  }

  return scrapedPage(html, results, {
    related,
    answerBox,
    refusal: () => detectBingBlock(html, pageUrl),
    next: () => nextLink($('a.sb_pagN').attr('href') ?? $('a[title="Next page"]').attr('href'), pageUrl),
  })
}
